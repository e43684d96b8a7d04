-- ops/rope.lua - rotary position embedding (RoPE) of x [T, H, D] at integer
-- positions [T]: pair (a, b) of each head becomes (a cos - b sin, b cos + a sin)
-- at angle pos * theta^(-2i / rot), i the pair's index, rot = rotary_dim.
--   layout "half"        pairs (i, i + rot/2)  (GPT-NeoX, Llama)
--   layout "interleaved" pairs (2i, 2i + 1)    (GPT-J)
-- Dims past rotary_dim pass through unchanged. H is free (a constant or a
-- sym), so q and k of grouped-query attention are two calls with their own
-- head counts. `scaling` rescales the frequencies as Llama 3.1 does
-- ({ factor, low_freq_factor, high_freq_factor, original_context }: a
-- wavelength past original_context / low_freq_factor is divided by factor,
-- one below original_context / high_freq_factor kept, and the band between
-- blended linearly in original_context / wavelength).
--
-- One workgroup per token: it computes the cos/sin of its rot/2 angles once
-- into LDS and applies them to all H heads.
--
-- Precision. The angle in float, pos * inv_freq, is off by up to half an ulp
-- of pos * inv_freq (2.4e-4 rad at pos 4095, 0.004 rad at 65535), which alone
-- breaks an f32 NMSE of 1e-9. So the kernel works in revolutions and reduces
-- exactly: kgen computes f_i = inv_freq_i / (2 pi) in double and splits it into
-- three floats of 12 significant bits each (f_i to 2^-36 relative); the kernel
-- splits pos = a * 4096 + b (a, b of 12 bits for |pos| < 2^24), so the four
-- products {a * 4096, b} x {f1, f2} are exact floats whose fractional parts
-- (x - trunc(x)) are exact too; they and the small f3 terms are summed and
-- reduced to [-1/2, 1/2] revolutions, then times 2 pi. The angle's error is a
-- few float roundings of values below 1 revolution (< 2e-6 rad) plus 2^-36 of
-- the angle (< 1e-7 rad at pos 2^20), so the f32 case meets 1e-9 (measured
-- below 1e-13) for every position below 2^24; past that a has more than 12
-- bits and the error grows like pos * 2^-24 ulp.
local kg = require "kgen"
local fail = kg.fail

-- A positive double as three floats of at most 12 significant bits each
-- (rounded to nearest, so later parts may be negative), written as exact hex
-- float literals; their sum is v to about 2^-37 relative.
local function split12(v)
  local parts = {}
  for k = 1, 3 do
    local p, m = 0.0, math.abs(v)
    if m > 0 then
      local e = math.floor(math.log(m, 2))
      while 2.0 ^ e > m do e = e - 1 end
      while 2.0 ^ (e + 1) <= m do e = e + 1 end
      local q = 2.0 ^ (e - 11)
      p = math.floor(m / q + 0.5) * q
      if v < 0 then p = -p end
    end
    v = v - p
    parts[k] = string.format("%af", p)
  end
  return parts
end

kg.template {
  name = "rope",
  holes = { "D", "HALF", "HALF_LAYOUT", "INTERLEAVED", "PASS", "PASS_ITEMS", "REV", "ROT",
    "ROT_ITEMS", "X_T" },
  libs = { "rope" },
  fuse = { rotary = true },
  params = function(target, info)
    return { BLOCK = kg.row_block(target, info.work, 1), VEC = info.vec }
  end,
}

local layouts = { half = true, interleaved = true }

local function positive(v) return type(v) == "number" and v == v and v > 0 and v ~= math.huge end

local scaling_keys = { "factor", "low_freq_factor", "high_freq_factor", "original_context" }

-- The Llama 3.1 `scaling` attribute: a table of four positive numbers (read
-- raw, so a model's metatable cannot answer differently on a second read).
local function check_scaling(v)
  if type(v) ~= "table" then return false, "must be a table" end
  for _, key in ipairs(scaling_keys) do
    if not positive(rawget(v, key)) then return false, "needs " .. key .. " (a finite number > 0)" end
  end
  if rawget(v, "high_freq_factor") <= rawget(v, "low_freq_factor") then
    return false, "needs high_freq_factor > low_freq_factor"
  end
  return true
end

-- A checked scaling table copied into one of the library's own.
local function copy_scaling(v)
  if v == nil then return nil end
  local c = {}
  for _, key in ipairs(scaling_keys) do c[key] = rawget(v, key) end
  return c
end

-- inv_freq of pair i of rot / 2 at base theta, with Llama 3.1's scaling.
local function inv_freq(theta, i, rot, sc)
  local f = theta ^ (-2.0 * i / rot)
  if not sc then return f end
  local wavelen = 2.0 * math.pi / f
  local low = sc.original_context / sc.low_freq_factor
  local high = sc.original_context / sc.high_freq_factor
  if wavelen < high then return f end
  if wavelen > low then return f / sc.factor end
  local smooth = (sc.original_context / wavelen - sc.low_freq_factor) /
    (sc.high_freq_factor - sc.low_freq_factor)
  return (1 - smooth) * f / sc.factor + smooth * f
end

kg.op {
  name = "rope",
  doc = "rotary position embedding of x [T, H, D] at i32 positions [T] (theta, rotary_dim, layout half|interleaved, Llama 3.1 scaling)",
  inputs = { "x", "positions" },
  attrs = {
    theta = { type = "number", default = 10000.0,
      check = function(v) return v == v and v > 1 and v ~= math.huge, "must be finite and > 1" end },
    rotary_dim = { type = "number",
      check = function(v) return math.type(v) == "integer" and v >= 2 and v % 2 == 0,
        "must be an even integer >= 2" end },
    layout = { default = "half",
      check = function(v) return layouts[v] ~= nil, "must be \"half\" or \"interleaved\"" end },
    scaling = { check = check_scaling },
  },
  build = function(node, ins, a)
    local x, pos = ins[1], ins[2]
    kg.check_float("rope", x, "x")
    if #x.shape ~= 3 then
      fail("rope: x must be [T, H, D], got %s", kg.shape_str(x.shape))
    end
    local d = kg.const_cols("rope", x)
    if d % 2 ~= 0 then fail("rope: the head dim D must be even, got %d", d) end
    if d > 8192 then fail("rope: the head dim D must be at most 8192, got %d", d) end
    local rot = a.rotary_dim or d
    if rot > d then fail("rope: attribute rotary_dim must be <= the head dim %d, got %d", d, rot) end
    if pos.dtype ~= kg.dtypes.i32 then
      fail("rope: positions must be i32, got %s", pos.dtype.name)
    end
    if #pos.shape ~= 1 or pos.shape[1] ~= x.shape[1] then
      fail("rope: positions shape %s does not match the tokens of x %s (want [T])",
        kg.shape_str(pos.shape), kg.shape_str(x.shape))
    end
    local half = rot // 2
    local interleaved = a.layout == "interleaved"
    -- half: VEC pairs (i..i+VEC) with their partners at +rot/2; interleaved:
    -- VEC/2 whole pairs (rot and D even, so VEC >= 2 there).
    local vec = kg.vector_width(x.dtype, interleaved and { rot, d } or { half, d })
    local rev, scaling = {}, copy_scaling(a.scaling)
    for i = 0, half - 1 do
      local f = inv_freq(a.theta, i, rot, scaling) / (2.0 * math.pi)
      local p = split12(f)
      rev[#rev + 1] = table.concat(p, ", ")
    end
    local items = interleaved and rot // vec or half // vec
    node.template = "rope"
    node.grid = "rows"
    node.grid_of = pos -- one workgroup per token
    node.cols = 1
    node.dim_args = { x.shape[2] } -- heads
    node.holes = {
      X_T = x.dtype.ctype, D = tostring(d), ROT = tostring(rot), HALF = tostring(half),
      ROT_ITEMS = tostring(items), PASS_ITEMS = tostring((d - rot) // vec),
      PASS = rot < d and "1" or "", HALF_LAYOUT = interleaved and "" or "1",
      INTERLEAVED = interleaved and "1" or "", REV = table.concat(rev, ",\n    "),
    }
    local heads = math.type(x.shape[2]) == "integer" and x.shape[2] or 64
    node.params_info = { work = heads * d // vec, vec = vec }
    node.out_dtype, node.out_shape = x.dtype, x.shape
  end,
}
