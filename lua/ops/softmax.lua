-- ops/softmax.lua - softmax and log_softmax over the last dim, with an
-- optional scale applied to x first (attention's 1/sqrt(d)), an optional
-- additive mask operand and an optional causal mask. A row kernel with an
-- online max/sum (templates/softmax.hip).
--
-- Masks, on x [..., Tq, Tk] (Tk the last dim, constant; Tq may be a sym):
--   softmax(x, mask, {...})  mask is added to scale * x; its shape is a suffix
--       of x's ([Tk], [Tq, Tk], ..., x's own shape), broadcast over the rest.
--   causal = true            element (i, j) is masked (-inf) when j > i + offset,
--       i the row modulo Tq; offset defaults to Tk - Tq (the query rows are
--       the last Tq positions: prefill and decode); an integer or a sym.
-- A masked element gives 0 (log_softmax: -inf); so does every element of a
-- row that is masked whole.
local kg = require "kgen"
local fail = kg.fail

kg.template {
  name = "softmax",
  holes = { "CAUSAL", "COLS", "LOG", "M_T", "OFFSET", "OFFSET_ARG", "SCALE", "X_T", "Y_T" },
  params = function(target, info)
    return kg.row_params(target, info.dtype, info.cols)
  end,
}

local function build(opname, log)
  return function(node, ins, a)
    local x, mask = ins[1], ins[2]
    kg.check_float(opname, x, "x")
    local cols = kg.const_cols(opname, x)
    node.template = "softmax"
    node.grid = "rows"
    node.cols = cols
    node.holes = {
      X_T = x.dtype.ctype, Y_T = x.dtype.ctype, COLS = tostring(cols),
      SCALE = kg.float_literal(a.scale), LOG = log and "1" or "",
      M_T = "", CAUSAL = "", OFFSET_ARG = "", OFFSET = "",
    }
    node.dim_args = {}
    if mask then
      kg.check_float(opname, mask, "mask")
      local xs, ms = x.shape, mask.shape
      local ok = #ms <= #xs
      for k = 0, #ms - 1 do
        if ok and ms[#ms - k] ~= xs[#xs - k] then ok = false end
      end
      if not ok then
        fail("%s: mask shape %s must equal the trailing dims of x %s", opname,
          kg.shape_str(ms), kg.shape_str(xs))
      end
      local rows = {}
      for k = 1, #ms - 1 do rows[k] = ms[k] end
      node.holes.M_T = mask.dtype.ctype
      node.dim_args[#node.dim_args + 1] = #rows > 0 and rows or 1
    end
    if a.offset ~= nil and not a.causal then
      fail("%s: attribute offset needs causal = true", opname)
    end
    if a.causal then
      if #x.shape < 2 then
        fail("%s: causal needs x of rank 2 or more ([..., Tq, Tk]), got %s", opname,
          kg.shape_str(x.shape))
      end
      node.holes.CAUSAL = "1"
      node.dim_args[#node.dim_args + 1] = x.shape[#x.shape - 1]
      if a.offset == nil then
        node.holes.OFFSET = string.format("(%dL - tq)", cols)
      elseif kg.is_sym(a.offset) then
        node.holes.OFFSET, node.holes.OFFSET_ARG = "offset", "1"
        node.dim_args[#node.dim_args + 1] = a.offset
      else
        node.holes.OFFSET = string.format("(%dL)", a.offset)
      end
    end
    node.params_info = { dtype = x.dtype.name, cols = cols }
    node.out_dtype, node.out_shape = x.dtype, x.shape
  end
end

local attrs = {
  scale = { type = "number", default = 1.0,
    check = function(v) return v == v and v > 0 and v ~= math.huge, "must be finite and > 0" end },
  causal = { default = false,
    check = function(v) return type(v) == "boolean", "must be true or false" end },
  offset = {
    check = function(v)
      return math.type(v) == "integer" or kg.is_sym(v), "must be an integer or a sym"
    end },
}

kg.op {
  name = "softmax",
  doc = "exp(f - max f) / sum(exp(f - max f)) over the last dim, f = scale x + mask (scale default 1; mask optional operand; causal, offset attrs: see ops/softmax.lua)",
  inputs = { "x", "mask?" }, positional = "scale", attrs = attrs,
  build = build("softmax", false),
}

kg.op {
  name = "log_softmax",
  doc = "f - max f - log(sum(exp(f - max f))) over the last dim, f = scale x + mask (as softmax; masked elements give -inf)",
  inputs = { "x", "mask?" }, positional = "scale", attrs = attrs,
  build = build("log_softmax", true),
}
