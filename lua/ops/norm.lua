-- ops/norm.lua - normalisations over the last dim: RMSNorm.
-- A row kernel: one workgroup per row, the statistic reduced across it.
local kg = require "kgen"
local fail = kg.fail

--- Threads for a row of `cols` elements taken `vec` at a time: a power of two
--- from one wave up to 256 (BLOCK / wave must not exceed the wave).
local function row_block(target, cols, vec)
  local want = (cols + vec - 1) // vec
  local block = target.wave
  while block < want and block < 256 do block = block * 2 end
  return block
end
kg.row_block = row_block

kg.template {
  name = "rmsnorm",
  params = function(target, info)
    local vec = kg.vector_width(kg.dtypes[info.dtype], { info.cols })
    return { BLOCK = row_block(target, info.cols, vec), VEC = vec }
  end,
}

kg.op {
  name = "rmsnorm",
  doc = "x / sqrt(mean(x^2 over the last dim) + eps) * weight (weight optional, shape [last dim])",
  inputs = { "x", "weight?" },
  attrs = {
    eps = { type = "number", default = 1e-5,
      check = function(v) return v > 0 and v < 1, "must be in (0, 1)" end },
  },
  build = function(node, ins, a)
    local x, w = ins[1], ins[2]
    kg.check_float("rmsnorm", x, "x")
    local cols = kg.const_cols("rmsnorm", x)
    if w then
      kg.check_float("rmsnorm", w, "weight")
      if #w.shape ~= 1 or w.shape[1] ~= cols then
        fail("rmsnorm: weight shape %s does not match the last dim of x %s",
          kg.shape_str(w.shape), kg.shape_str(x.shape))
      end
    end
    node.template = "rmsnorm"
    node.grid = "rows"
    node.cols = cols
    node.holes = {
      X_T = x.dtype.ctype, W_T = w and w.dtype.ctype or "", Y_T = x.dtype.ctype,
      COLS = tostring(cols), EPS = kg.float_literal(a.eps),
    }
    node.params_info = { dtype = x.dtype.name, cols = cols }
    node.out_dtype, node.out_shape = x.dtype, x.shape
  end,
}
