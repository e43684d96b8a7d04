-- ops/reduce.lua - reductions over the last dim: sum, mean, amax, amin,
-- argmax, argmin. The result drops the last dim ([1] for a 1-D x), or keeps
-- it as 1 with keepdim = true. Float results are in x's dtype (accumulated in
-- f32); argmax/argmin give i32, the first index among equal values.
-- (amax/amin: max and min are the elementwise binary ops.)
-- A row kernel (templates/reduce.hip): one workgroup per row, the op a hole.
local kg = require "kgen"

kg.template {
  name = "reduce",
  holes = { "COLS", "OP", "RESULT", "X_T", "Y_T" },
  libs = { "norm" },
  params = function(target, info)
    return kg.row_params(target, info.dtype, info.cols)
  end,
}

local function boolean(v) return type(v) == "boolean", "must be true or false" end

local function reduction(name, doc, op, arg, mean)
  kg.op {
    name = name, doc = doc .. " over the last dim (keepdim: keep it as 1)",
    inputs = { "x" },
    attrs = { keepdim = { default = false, check = boolean } },
    build = function(node, ins, a)
      local x = ins[1]
      kg.check_float(name, x, "x")
      local cols = kg.const_cols(name, x)
      local shape = {}
      for i = 1, #x.shape - 1 do shape[i] = x.shape[i] end
      if a.keepdim or #shape == 0 then shape[#shape + 1] = 1 end
      local y_t = arg and kg.dtypes.i32 or x.dtype
      local result = arg and "acc.i"
        or string.format("kg_from_f32<%s>(%s)", y_t.ctype,
          mean and string.format("acc.v * (1.0f / %d)", cols) or "acc.v")
      node.template = "reduce"
      node.grid = "rows"
      node.cols = cols
      node.grid_of = x
      node.holes = {
        X_T = x.dtype.ctype, Y_T = y_t.ctype, COLS = tostring(cols), OP = op,
        RESULT = result,
      }
      node.params_info = { dtype = x.dtype.name, cols = cols }
      node.out_dtype, node.out_shape = y_t, shape
    end,
  }
end

reduction("sum", "sum of x", "KG_RED_SUM")
reduction("mean", "mean of x", "KG_RED_SUM", false, true)
reduction("amax", "largest element of x", "KG_RED_MAX")
reduction("amin", "smallest element of x", "KG_RED_MIN")
reduction("argmax", "i32 index of the largest element (the first among ties)",
  "KG_RED_ARGMAX", true)
reduction("argmin", "i32 index of the smallest element (the first among ties)",
  "KG_RED_ARGMIN", true)
