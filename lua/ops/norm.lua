-- ops/norm.lua - normalisations: RMSNorm and LayerNorm over the last dim,
-- their fused residual forms (norm(x + r) and x + r in one kernel), and
-- GroupNorm over (channel group, spatial) of an NCHW tensor.
-- Row kernels: one workgroup per row (per (n, group) for GroupNorm), the
-- statistics reduced across it; statistics in f32, LayerNorm's variance in
-- two passes about the mean (templates/lib_norm.hip, kg_row_rstd).
local kg = require "kgen"
local fail = kg.fail

--- Norms take up to 512 threads per row: on an H200, RMSNorm over rows of
--- 8192 bf16 ran in 41.8 us at 512 against 44.1 at 256 and 50.2 at 1024
--- (bench/results/h200.md).
local function row_params(target, info)
  local p = kg.row_params(target, info.dtype, info.cols, 512)
  p.BLOCK = info.block or p.BLOCK
  return p
end

kg.template {
  name = "rmsnorm",
  holes = { "COLS", "EPS", "SRC", "X_T", "Y_T", R_T = "", W_T = "" },
  libs = { "norm" },
  fuse = { rms = true }, -- y = x rsqrt(mean(x^2) + EPS) w: a matmul may take it in
  params = row_params,
}
kg.template {
  name = "layernorm",
  holes = { "COLS", "EPS", "SRC", "X_T", "Y_T", B_T = "", R_T = "", W_T = "" },
  libs = { "norm" },
  params = row_params,
}
kg.template {
  name = "groupnorm",
  holes = { "COLS", "CPG", "EPS", "GROUPS", "HW", "X_T", "Y_T", B_T = "", W_T = "" },
  libs = { "norm" },
  params = row_params,
}

--- `block`: threads per row, overriding the rule (row_block); kgen checks it
--- against the target (a multiple of the wave, at most wave^2 and max_block).
local block_attr = {
  type = "number",
  check = function(v)
    return math.type(v) == "integer" and v >= 32 and v & (v - 1) == 0,
      "must be a power of two >= 32"
  end,
}

local eps_attr = {
  type = "number", default = 1e-5,
  check = function(v) return v > 0 and v < 1, "must be in (0, 1)" end,
}

--- An optional per-channel operand (weight, bias): a float vector of `n`.
local function check_vector(opname, t, what, n, against)
  if not t then return end
  kg.check_float(opname, t, what)
  if #t.shape ~= 1 or t.shape[1] ~= n then
    fail("%s: %s shape %s does not match %s", opname, what, kg.shape_str(t.shape), against)
  end
end

--- A row normalisation over the last dim of x: template `tmpl`; with a
--- residual r, the fused form with h = x + r as a second result.
local function row_norm(opname, tmpl, node, x, r, w, b, eps, block)
  kg.check_float(opname, x, "x")
  local cols = kg.const_cols(opname, x)
  if r then
    kg.check_float(opname, r, "r")
    kg.check_same(opname, x, r)
  end
  local against = "the last dim of x " .. kg.shape_str(x.shape)
  check_vector(opname, w, "weight", cols, against)
  check_vector(opname, b, "bias", cols, against)
  node.template = tmpl
  node.grid = "rows"
  node.cols = cols
  node.holes = {
    X_T = x.dtype.ctype, Y_T = x.dtype.ctype, COLS = tostring(cols), EPS = kg.float_literal(eps),
    W_T = w and w.dtype.ctype or nil, B_T = b and b.dtype.ctype or nil,
    R_T = r and r.dtype.ctype or nil, SRC = r and "h" or "x",
  }
  node.params_info = { dtype = x.dtype.name, cols = cols, block = block }
  node.out_dtype, node.out_shape = x.dtype, x.shape
  if r then node.extra_outputs = { { dtype = x.dtype, shape = x.shape } } end
end

kg.op {
  name = "rmsnorm",
  doc = "x / sqrt(mean(x^2 over the last dim) + eps) * weight (weight optional, shape [last dim]; block = threads per row overrides the rule; split = true lets kgen split it around GEMMs too, as it does by default around quantized GEMVs, see README)",
  inputs = { "x", "weight?" },
  attrs = { eps = eps_attr, block = block_attr,
    -- where x is a GEMM's epilogue result and only GEMMs read the norm: that
    -- GEMM writes x times the weight and x's sums of squares, the readers
    -- scale their rows (no norm kernel); off by default: on the H100 its
    -- epilogue through LDS still costs more than the norm's kernel. (Around
    -- the quantized GEMVs, whose templates say split_default, the norm is
    -- split whatever this says.)
    split = { default = false,
      check = function(v) return type(v) == "boolean", "must be true or false" end } },
  build = function(node, ins, a)
    row_norm("rmsnorm", "rmsnorm", node, ins[1], nil, ins[2], nil, a.eps, a.block)
    node.split_norm = a.split
  end,
}

kg.op {
  name = "rmsnorm_residual",
  doc = "two results: rmsnorm(h, weight) and h = x + r, h rounded to x's dtype before it is normalised (weight optional)",
  inputs = { "x", "r", "weight?" },
  attrs = { eps = eps_attr, block = block_attr },
  build = function(node, ins, a)
    row_norm("rmsnorm_residual", "rmsnorm", node, ins[1], ins[2], ins[3], nil, a.eps, a.block)
  end,
}

kg.op {
  name = "layernorm",
  doc = "(x - mean) / sqrt(var + eps) * weight + bias over the last dim (weight, bias optional, shape [last dim])",
  inputs = { "x", "weight?", "bias?" },
  attrs = { eps = eps_attr },
  build = function(node, ins, a)
    row_norm("layernorm", "layernorm", node, ins[1], nil, ins[2], ins[3], a.eps)
  end,
}

kg.op {
  name = "layernorm_residual",
  doc = "two results: layernorm(h, weight, bias) and h = x + r, h rounded to x's dtype before it is normalised (weight, bias optional)",
  inputs = { "x", "r", "weight?", "bias?" },
  attrs = { eps = eps_attr },
  build = function(node, ins, a)
    row_norm("layernorm_residual", "layernorm", node, ins[1], ins[2], ins[3], ins[4], a.eps)
  end,
}

kg.op {
  name = "groupnorm",
  doc = "x [N, C, spatial...] (NCHW) normalised per (n, group of C/groups channels); weight, bias optional, shape [C]",
  inputs = { "x", "weight?", "bias?" },
  attrs = {
    groups = { type = "number",
      check = function(v) return math.type(v) == "integer" and v >= 1, "must be a positive integer" end },
    eps = eps_attr,
  },
  build = function(node, ins, a)
    local x, w, b = ins[1], ins[2], ins[3]
    kg.check_float("groupnorm", x, "x")
    if a.groups == nil then fail("groupnorm: attribute groups is required") end
    if #x.shape < 2 then
      fail("groupnorm: x must be [N, C, spatial...], got %s", kg.shape_str(x.shape))
    end
    local hw = 1
    for i = 2, #x.shape do
      if not (math.type(x.shape[i]) == "integer") then
        fail("groupnorm: the channel and spatial dims must be constants, got %s",
          kg.shape_str(x.shape))
      end
      if i > 2 then hw = hw * x.shape[i] end
    end
    local channels = x.shape[2]
    if channels % a.groups ~= 0 then
      fail("groupnorm: groups %d does not divide the %d channels of x %s", a.groups, channels,
        kg.shape_str(x.shape))
    end
    local cpg = channels // a.groups
    local against = "the channels of x " .. kg.shape_str(x.shape)
    check_vector("groupnorm", w, "weight", channels, against)
    check_vector("groupnorm", b, "bias", channels, against)
    local cols = cpg * hw
    node.template = "groupnorm"
    node.grid = "rows"
    node.cols = cols
    node.holes = {
      X_T = x.dtype.ctype, Y_T = x.dtype.ctype, COLS = tostring(cols),
      EPS = kg.float_literal(a.eps), GROUPS = tostring(a.groups), CPG = tostring(cpg),
      HW = tostring(hw), W_T = w and w.dtype.ctype or nil, B_T = b and b.dtype.ctype or nil,
    }
    node.params_info = { dtype = x.dtype.name, cols = cols }
    node.out_dtype, node.out_shape = x.dtype, x.shape
  end,
}
