-- ops/sort.lua - argsort over the last dim: the i32 indices that order each
-- row, stably (equal values keep their index order), ascending or descending.
-- A row kernel: every element is placed by its rank (templates/argsort.hip).
local kg = require "kgen"
local fail = kg.fail

kg.template {
  name = "argsort",
  holes = { "COLS", "DESC", "X_T" },
  libs = { "sample" },
  params = function(target, info)
    return { BLOCK = kg.row_block(target, info.cols, 4), VEC = 1 }
  end,
}

kg.op {
  name = "argsort",
  doc = "i32 indices that sort x along the last dim, stably "
    .. "(descending = false; NaN sorts as the lowest value)",
  inputs = { "x" },
  attrs = {
    descending = { default = false,
      check = function(v) return type(v) == "boolean", "must be true or false" end },
  },
  build = function(node, ins, a)
    local x = ins[1]
    kg.check_float("argsort", x, "x")
    local cols = kg.const_cols("argsort", x)
    if cols >= 1 << 31 then fail("argsort: the last dim %d is over 2^31", cols) end
    node.template = "argsort"
    node.grid = "rows"
    node.cols = cols
    node.holes = { X_T = x.dtype.ctype, COLS = tostring(cols), DESC = a.descending and "1" or "" }
    node.params_info = { cols = cols }
    node.out_dtype, node.out_shape = kg.dtypes.i32, x.shape
  end,
}
