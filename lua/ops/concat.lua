-- ops/concat.lua - concat(a, b, {dim = d}): a and b joined along dim d (1 ..
-- rank, or -rank .. -1 from the end; default -1), every other dim equal. A
-- UNet's skip connections join a feature map and its encoder's twin along
-- the channels this way (NCHW: dim = 2). The joined dim is a constant in
-- both, as are the dims after it; those before may be syms. One thread an
-- element of y: y[o, j] = j < IA ? a[o, j] : b[o, j - IA], o the index over
-- the dims before d, j within the rest (IA = a's extent from d on).
local kg = require "kgen"
local fail = kg.fail

local BLOCK = 256

kg.template {
  name = "concat",
  holes = { "IA", "IB", "X_T" },
  params = function()
    return { BLOCK = BLOCK, VEC = 1, per_block = BLOCK, ["repeat"] = 1 }
  end,
}

kg.op {
  name = "concat",
  doc = "a and b joined along dim (default -1: the last; 1-based, negative from the end), every other dim equal; the joined dim and those after it constants",
  inputs = { "a", "b" },
  attrs = { dim = { type = "number", default = -1 } },
  build = function(node, ins, a)
    local x, y = ins[1], ins[2]
    if x.dtype ~= y.dtype then
      fail("concat: dtype mismatch: %s vs %s", x.dtype.name, y.dtype.name)
    end
    local r = #x.shape
    if #y.shape ~= r then
      fail("concat: rank mismatch: %s vs %s", kg.shape_str(x.shape), kg.shape_str(y.shape))
    end
    local d = a.dim
    if math.type(d) ~= "integer" or d == 0 or d > r or d < -r then
      fail("concat: dim must be an integer in 1..%d or -%d..-1, got %s", r, r, tostring(d))
    end
    if d < 0 then d = r + 1 + d end
    local ia, ib = 1, 1
    for i = 1, r do
      local p, q = x.shape[i], y.shape[i]
      if i >= d then
        if math.type(p) ~= "integer" or math.type(q) ~= "integer" then
          fail("concat: dim %d and those after it must be constants, got %s and %s", d,
            kg.shape_str(x.shape), kg.shape_str(y.shape))
        end
        ia, ib = ia * p, ib * q
      end
      if i ~= d and p ~= q then
        fail("concat: %s and %s differ in dim %d, not only in dim %d", kg.shape_str(x.shape),
          kg.shape_str(y.shape), i, d)
      end
    end
    local out = {}
    for i = 1, r do out[i] = x.shape[i] end
    out[d] = x.shape[d] + y.shape[d]
    node.template = "concat"
    node.grid = "tiles"
    node.tile_units = out
    node.dim_args = { out }
    node.holes = { X_T = x.dtype.ctype, IA = tostring(ia), IB = tostring(ib) }
    node.out_dtype, node.out_shape = x.dtype, out
  end,
}
