-- ops/sketch.lua - random projections of rows: countsketch (each input
-- coordinate hashed to one of `width` buckets with a random sign). The hash is
-- kg_hash32 of templates/lib_sample.hip, keyed by the seed, so a reference can
-- reproduce it (templates/countsketch.hip states the exact rule).
local kg = require "kgen"
local fail = kg.fail

kg.template {
  name = "countsketch",
  params = function(target, info)
    return { BLOCK = kg.row_block(target, math.max(info.cols, info.width), 4), VEC = 1 }
  end,
}

local function int_in(lo, hi, why)
  return function(v) return math.type(v) == "integer" and v >= lo and v <= hi, why end
end

kg.op {
  name = "countsketch",
  doc = "[.., width] count sketch of x over the last dim: y[b] = sum_{h(j) = b} s(j) x[j] "
    .. "(h, s from kg_hash32 keyed by seed)",
  inputs = { "x" },
  attrs = {
    width = { type = "number", check = int_in(1, 1 << 24, "must be an integer in [1, 2^24]") },
    seed = { type = "number", default = 0,
      check = int_in(0, 0xffffffff, "must be an integer in [0, 2^32)") },
  },
  build = function(node, ins, a)
    local x = ins[1]
    kg.check_float("countsketch", x, "x")
    local cols = kg.const_cols("countsketch", x)
    if a.width == nil then fail("countsketch: attribute width is required") end
    node.template = "countsketch"
    node.grid = "rows"
    node.grid_of = x
    node.cols = cols
    node.holes = {
      X_T = x.dtype.ctype, Y_T = x.dtype.ctype, COLS = tostring(cols),
      WIDTH = tostring(a.width), SEED = tostring(a.seed),
    }
    node.params_info = { cols = cols, width = a.width }
    local out = {}
    for i = 1, #x.shape - 1 do out[i] = x.shape[i] end
    out[#x.shape] = a.width
    node.out_dtype, node.out_shape = x.dtype, out
  end,
}
