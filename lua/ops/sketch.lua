-- ops/sketch.lua - random projections of rows: countsketch (each input
-- coordinate hashed to one of `width` buckets with a random sign). The hash is
-- kg_hash32 of templates/lib_sample.hip, keyed by the seed, so a reference can
-- reproduce it (templates/countsketch.hip states the exact rule).
local kg = require "kgen"
local fail = kg.fail

kg.template {
  name = "countsketch",
  holes = { "COLS", "SEED", "WIDTH", "X_T", "Y_T" },
  libs = { "sample" },
  params = function(target, info)
    return { BLOCK = kg.row_block(target, math.max(info.cols, info.width), 4), VEC = 1 }
  end,
}

local function int_in(lo, hi, why)
  return function(v) return math.type(v) == "integer" and v >= lo and v <= hi, why end
end

--- Both projections take the same seed: the key of kg_hash32.
local seed_attr = { type = "number", default = 0,
  check = int_in(0, 0xffffffff, "must be an integer in [0, 2^32)") }

kg.op {
  name = "countsketch",
  doc = "[.., width] count sketch of x over the last dim: y[b] = sum_{h(j) = b} s(j) x[j] "
    .. "(h, s from kg_hash32 keyed by seed)",
  inputs = { "x" },
  attrs = {
    width = { type = "number", check = int_in(1, 1 << 24, "must be an integer in [1, 2^24]") },
    seed = seed_attr,
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

-- srht: the subsampled randomized Hadamard transform of each row (the exact
-- rule is in templates/srht.hip). The whole P-point transform sits in LDS when
-- it fits the target (gfx: 64 KiB, 16384 floats); where it does not (sm_90:
-- 48 KiB of static shared memory, 8192 floats) it is done as VEC pieces of
-- P / VEC points, piece h summing the row's segments with Hadamard signs
-- first. VEC is that piece count here, not a vector width.
local SRHT_MAX = 16384

kg.template {
  name = "srht",
  holes = { "COLS", "OUT", "P", "SCALE", "SEED", "SHIFT", "X_T", "Y_T" },
  libs = { "sample" },
  params = function(target, info)
    local fit = 1
    while fit * 2 * 4 <= target.lds_bytes do fit = fit * 2 end
    local pieces = math.max(1, info.p // fit)
    local size = info.p // pieces
    local block = target.wave
    while block * 8 < size and block < 1024 do block = block * 2 end
    return { BLOCK = block, VEC = pieces }
  end,
}

kg.op {
  name = "srht",
  doc = "[.., out] subsampled randomized Hadamard transform of x over the last dim C "
    .. "(C <= " .. SRHT_MAX .. "): y[k] = sqrt(P/out) (H D x)[pi(k)], P = next pow2 >= C, "
    .. "H normalised, signs D and permutation pi from kg_hash32 keyed by seed",
  inputs = { "x" },
  attrs = {
    out = { type = "number", check = int_in(1, 1 << 24, "must be an integer in [1, 2^24]") },
    seed = seed_attr,
  },
  build = function(node, ins, a)
    local x = ins[1]
    kg.check_float("srht", x, "x")
    local cols = kg.const_cols("srht", x)
    if a.out == nil then fail("srht: attribute out is required") end
    local p, logp = 1, 0
    while p < cols do p, logp = p * 2, logp + 1 end
    if p > SRHT_MAX then
      fail("srht: the last dim must be at most %d (the transform is held in LDS), got %d",
        SRHT_MAX, cols)
    end
    if a.out > p then
      fail("srht: attribute out must be at most %d (the last dim %d padded to a power of two), "
        .. "got %d", p, cols, a.out)
    end
    node.template = "srht"
    node.grid = "rows"
    node.grid_of = x
    node.cols = cols
    node.holes = {
      X_T = x.dtype.ctype, Y_T = x.dtype.ctype, COLS = tostring(cols), P = tostring(p),
      SHIFT = tostring(logp // 2 + 1), OUT = tostring(a.out), SEED = tostring(a.seed),
      SCALE = kg.float_literal(1 / math.sqrt(a.out)),
    }
    node.params_info = { p = p }
    local out = {}
    for i = 1, #x.shape - 1 do out[i] = x.shape[i] end
    out[#x.shape] = a.out
    node.out_dtype, node.out_shape = x.dtype, out
  end,
}
