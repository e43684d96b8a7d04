-- ops/softmax.lua - softmax over the last dim, with an optional scale applied
-- to x first (attention's 1/sqrt(d)). A row kernel with an online max/sum.
local kg = require "kgen"

kg.template {
  name = "softmax",
  params = function(target, info)
    local vec = kg.vector_width(kg.dtypes[info.dtype], { info.cols })
    return { BLOCK = kg.row_block(target, info.cols, vec), VEC = vec }
  end,
}

kg.op {
  name = "softmax",
  doc = "exp(scale x - max) / sum(exp(scale x - max)) over the last dim (scale default 1)",
  inputs = { "x" }, positional = "scale",
  attrs = {
    scale = { type = "number", default = 1.0,
      check = function(v) return v == v and v > 0 and v ~= math.huge, "must be finite and > 0" end },
  },
  build = function(node, ins, a)
    local x = ins[1]
    kg.check_float("softmax", x, "x")
    local cols = kg.const_cols("softmax", x)
    node.template = "softmax"
    node.grid = "rows"
    node.cols = cols
    node.holes = {
      X_T = x.dtype.ctype, Y_T = x.dtype.ctype, COLS = tostring(cols),
      SCALE = kg.float_literal(a.scale),
    }
    node.params_info = { dtype = x.dtype.name, cols = cols }
    node.out_dtype, node.out_shape = x.dtype, x.shape
  end,
}
