-- ops/transpose.lua - x [..., R, C] -> y [..., C, R]: the last two dims
-- swapped, every matrix of the leading dims on its own (torch's x.mT made
-- contiguous). A diffusion model's attention reads an NCHW feature map as
-- tokens [H W, C] this way and writes its result back. R and C are
-- constants; the leading dims may be syms. Tiles of TS x TS pass through
-- LDS (a column of padding keeps the column reads off one bank), so that
-- both the reads and the writes run along rows.
local kg = require "kgen"
local fail = kg.fail

local TS = 32 -- the tile's side
local ROWS = 8 -- thread rows: BLOCK = TS x ROWS threads, each TS / ROWS elements

kg.template {
  name = "transpose",
  holes = { "C", "R", "TC", "TILES", "TS", "X_T" },
  params = function(target, info)
    return { BLOCK = TS * ROWS, VEC = 1, per_block = 1, ["repeat"] = info.tiles }
  end,
}

kg.op {
  name = "transpose",
  doc = "x [..., R, C] -> [..., C, R]: the last two dims swapped (R and C constants), each matrix of the leading dims on its own",
  inputs = { "x" },
  build = function(node, ins)
    local x = ins[1]
    if #x.shape < 2 then
      fail("transpose: x must have at least 2 dims, got %s", kg.shape_str(x.shape))
    end
    local r, c = x.shape[#x.shape - 1], x.shape[#x.shape]
    if math.type(r) ~= "integer" or math.type(c) ~= "integer" then
      fail("transpose: the last two dims must be constants, got %s", kg.shape_str(x.shape))
    end
    local lead, out = {}, {}
    for i = 1, #x.shape - 2 do
      lead[#lead + 1] = x.shape[i]
      out[#out + 1] = x.shape[i]
    end
    out[#out + 1], out[#out + 2] = c, r
    local tc = (c + TS - 1) // TS
    local tiles = (r + TS - 1) // TS * tc
    node.template = "transpose"
    node.grid = "tiles"
    node.tile_units = #lead > 0 and lead or 1
    local function s(v) return tostring(v) end
    node.holes = { X_T = x.dtype.ctype, R = s(r), C = s(c), TS = s(TS), TC = s(tc),
      TILES = s(tiles) }
    node.params_info = { tiles = tiles }
    node.out_dtype, node.out_shape = x.dtype, out
  end,
}
