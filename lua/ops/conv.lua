-- ops/conv.lua - 2-D convolution as an implicit GEMM on the matmul tiles:
-- conv2d(x, w, {stride, padding, dilation, groups, layout}) with x [N, C, H, W]
-- (layout "nchw", the default) or [N, H, W, C] ("nhwc"), w [Cout, C / groups,
-- KH, KW] (PyTorch's layout) or [Cout, KH, KW, C / groups] for nhwc, and y
-- [N, Cout, OH, OW] or [N, OH, OW, Cout] in x's dtype; OH = (H + 2 ph - dh (KH
-- - 1) - 1) / sh + 1 (OW alike). N may be a sym; every other dim is a
-- constant. f32, f16 and bf16 (x, w and the bias the same), accumulated in
-- f32; an optional bias [Cout] (PyTorch's conv bias) is added to the sums
-- before the result is rounded.
-- Per group, a GEMM: rows m = (n, oh, ow), columns = the group's output
-- channels, k = (c, kh, kw) for nchw or (kh, kw, c) for nhwc, which is the
-- order of each w row in either layout, so the B tile is a plain copy of w
-- rows (as matmul's [N, K] path) while the A tile is gathered from x, with
-- zeros for the padding (templates/conv2d.hip). The tile is the target's
-- GEMM data (targets/<arch>.lua gemm[dtype]), multiplied with the same
-- fragment structs (templates/lib_mma.hip) as matmul.
local kg = require "kgen"
local fail = kg.fail

kg.template {
  name = "conv2d",
  holes = { "BIAS", "BK", "BM", "BN", "C", "CG", "COG", "COUT", "DH", "DW", "FM", "FN", "FRAG", "IH",
    "IW", "K", "KH", "KW", "LD", "NHWC", "OH", "OW", "PH", "PW", "REPEAT", "SH",
    "SHARED_BYTES", "STAGES", "SW", "T", "TILES_N", "WM", "WN" },
  libs = { "mma" },
  params = function(target, info)
    -- the tile, fragment and checks of matmul's GEMM (lua/kgen/gemm.lua);
    -- the B tile (w rows of K elements) is copied VEC at a time, and each
    -- group is a batch of column tiles
    local p = kg.gemm_params("conv2d", target, { dtype = info.dtype, where = info.where,
      k = info.k, n = info.cog, batch = info.groups })
    p.holes = kg.declared_holes("conv2d", p.holes) -- not the B tile modes conv2d has no use for
    return p
  end,
}

--- A pair attribute: a positive (or, with zero_ok, non-negative) integer or a
--- table of two.
local function pair_check(zero_ok)
  local lo = zero_ok and 0 or 1
  local why = ("must be an integer >= %d or a table of two"):format(lo)
  return function(v)
    if math.type(v) == "integer" then return v >= lo, why end
    if type(v) ~= "table" or #v ~= 2 then return false, why end
    for i = 1, 2 do
      if math.type(v[i]) ~= "integer" or v[i] < lo then return false, why end
    end
    return true
  end
end

local function pair(v)
  if type(v) == "table" then return v[1], v[2] end
  return v, v
end

local function const_dims(what, t, names)
  for i, d in ipairs(t.shape) do
    if i > 1 or what == "w" then
      if math.type(d) ~= "integer" then
        fail("conv2d: %s must have constant %s, got %s", what, names, kg.shape_str(t.shape))
      end
    end
  end
end

kg.op {
  name = "conv2d",
  doc = "2-D convolution: x [N, C, H, W] (or [N, H, W, C] with layout = \"nhwc\"), w [Cout, C / groups, KH, KW] (or [Cout, KH, KW, C / groups]), optional bias [Cout] -> [N, Cout, OH, OW] (or [N, OH, OW, Cout]); stride, padding, dilation, groups; implicit GEMM, f32 accumulation",
  inputs = { "x", "w", "bias?" },
  attrs = {
    stride = { default = 1, check = pair_check(false) },
    padding = { default = 0, check = pair_check(true) },
    dilation = { default = 1, check = pair_check(false) },
    groups = { default = 1, type = "number", check = function(v)
      return math.type(v) == "integer" and v >= 1, "must be a positive integer"
    end },
    layout = { default = "nchw", check = function(v)
      return v == "nchw" or v == "nhwc", "must be \"nchw\" or \"nhwc\""
    end },
  },
  build = function(node, ins, a)
    local x, w, bias = ins[1], ins[2], ins[3]
    kg.check_float("conv2d", x, "x")
    kg.check_float("conv2d", w, "w")
    if x.dtype ~= w.dtype then
      fail("conv2d: dtype mismatch: x is %s, w is %s", x.dtype.name, w.dtype.name)
    end
    if bias and bias.dtype ~= x.dtype then
      fail("conv2d: dtype mismatch: x is %s, bias is %s", x.dtype.name, bias.dtype.name)
    end
    local nhwc = a.layout == "nhwc"
    if #x.shape ~= 4 then
      fail("conv2d: x must be %s, got %s", nhwc and "[N, H, W, C]" or "[N, C, H, W]", kg.shape_str(x.shape))
    end
    if #w.shape ~= 4 then
      fail("conv2d: w must be %s, got %s", nhwc and "[Cout, KH, KW, C / groups]" or
        "[Cout, C / groups, KH, KW]", kg.shape_str(w.shape))
    end
    const_dims("x", x, nhwc and "H, W, C" or "C, H, W")
    const_dims("w", w, "dims")
    local nb = x.shape[1]
    local c, h, wd
    if nhwc then h, wd, c = x.shape[2], x.shape[3], x.shape[4]
    else c, h, wd = x.shape[2], x.shape[3], x.shape[4] end
    local cout, cg, kh, kw
    if nhwc then cout, kh, kw, cg = w.shape[1], w.shape[2], w.shape[3], w.shape[4]
    else cout, cg, kh, kw = w.shape[1], w.shape[2], w.shape[3], w.shape[4] end
    local g = a.groups
    if c % g ~= 0 or cout % g ~= 0 then
      fail("conv2d: groups = %d must divide C = %d and Cout = %d", g, c, cout)
    end
    if cg ~= c // g then
      fail("conv2d: channel mismatch: x %s has C = %d, so w %s needs C / groups = %d, got %d",
        kg.shape_str(x.shape), c, kg.shape_str(w.shape), c // g, cg)
    end
    local sh, sw = pair(a.stride)
    local ph, pw = pair(a.padding)
    local dh, dw = pair(a.dilation)
    local oh = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    local ow = (wd + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    if h + 2 * ph - dh * (kh - 1) - 1 < 0 or wd + 2 * pw - dw * (kw - 1) - 1 < 0 then
      fail("conv2d: the output would be empty: input %dx%d, padding %dx%d, kernel %dx%d, dilation %dx%d",
        h, wd, ph, pw, kh, kw, dh, dw)
    end
    if bias and not (#bias.shape == 1 and bias.shape[1] == cout) then
      fail("conv2d: bias must be [%d] (Cout), got %s", cout, kg.shape_str(bias.shape))
    end
    local k = cg * kh * kw
    node.out_dtype = x.dtype
    node.out_shape = nhwc and { nb, oh, ow, cout } or { nb, cout, oh, ow }
    node.template = "conv2d"
    node.grid = "tiles"
    node.tile_units = { nb, oh * ow }
    node.dim_args = { { nb, oh * ow } } -- M, the output pixels
    local function s(v) return tostring(v) end
    node.holes = {
      T = x.dtype.ctype, C = s(c), IH = s(h), IW = s(wd), COUT = s(cout), CG = s(cg),
      COG = s(cout // g), KH = s(kh), KW = s(kw), SH = s(sh), SW = s(sw), PH = s(ph),
      PW = s(pw), DH = s(dh), DW = s(dw), OH = s(oh), OW = s(ow), K = s(k),
      NHWC = nhwc and "1" or "", BIAS = bias and "1" or "",
    }
    node.params_info = { dtype = x.dtype.name, k = k, cog = cout // g, groups = g,
      -- "model.lua:LINE: " of the call (level 4: error <- pcall <- build <- kg.op
      -- <- the model), for a tile that does not suit a target
      where = select(2, pcall(error, "", 4)) }
  end,
}
