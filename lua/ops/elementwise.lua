-- ops/elementwise.lua - elementwise ops: unary math, binary arithmetic with
-- broadcasting over leading dims, affine, clamp, where, fill and cast.
-- Each is an expression over its operands ($0, $1, ... in float) run by the
-- map template; kgen fuses chains of them into one kernel by splicing the
-- expressions together, so an op here never gets a kernel of its own unless
-- its result is needed in memory. Integer tensors (i32) enter only through
-- cast and where's condition: the expressions compute in float.
local kg = require "kgen"
local fail = kg.fail

kg.template {
  name = "map",
  holes = {},
  fuse = { chain = true },
  -- info: dtypes = { names of every operand and the result }
  -- UNROLL vectors per thread: enough loads in flight per thread to cover
  -- memory latency with few operands (measured on an H200: a copy went from
  -- 0.80 to ~1.0 of cudaMemcpy-class bandwidth; see bench/results)
  params = function(target, info)
    local widest = 1
    for _, name in ipairs(info.dtypes) do
      widest = math.max(widest, kg.dtypes[name].size)
    end
    local operands = #info.dtypes - 1
    return { BLOCK = 256, VEC = 16 // widest, UNROLL = operands <= 2 and 4 or 2 }
  end,
}

local function finite(v)
  return v == v and v ~= math.huge and v ~= -math.huge, "must be finite"
end

--- The shape of an elementwise result over operands whose shapes are each a
--- suffix of the longest (broadcast over leading dims) or hold one element
--- (a scalar, broadcast everywhere). A broadcast operand
--- must have a constant shape (the kernel indexes it modulo its size).
local function broadcast(opname, ts)
  local out = ts[1].shape
  for _, t in ipairs(ts) do
    if #t.shape > #out then out = t.shape end
  end
  for i, t in ipairs(ts) do
    local s = t.shape
    local ok, ones = #s <= #out, true
    for k = 1, #s do
      if ok and s[#s - k + 1] ~= out[#out - k + 1] then ok = false end
      if s[k] ~= 1 then ones = false end
    end
    ok = ok or ones -- a single element broadcasts to anything
    if not ok then
      local all = {}
      for k, u in ipairs(ts) do all[k] = kg.shape_str(u.shape) end
      fail("%s: shape mismatch: %s (each must equal the trailing dims of the longest)",
        opname, table.concat(all, " vs "))
    end
    if #s < #out then
      for _, d in ipairs(s) do
        if kg.is_sym(d) then
          fail("%s: operand %d %s is broadcast, so its dims must be constants", opname, i,
            kg.shape_str(s))
        end
      end
    end
  end
  return out
end

local function unary(name, doc, expr)
  kg.op {
    name = name, doc = doc, inputs = { "x" },
    build = function(node, ins)
      kg.check_float(name, ins[1])
      node.template, node.expr = "map", expr
      node.out_dtype, node.out_shape = ins[1].dtype, ins[1].shape
    end,
  }
end

local function binary(name, doc, expr)
  kg.op {
    name = name, doc = doc .. " (b may broadcast over a's leading dims, or a over b's)",
    inputs = { "a", "b" },
    build = function(node, ins)
      kg.check_float(name, ins[1], "a")
      kg.check_float(name, ins[2], "b")
      if ins[1].dtype ~= ins[2].dtype then
        fail("%s: dtype mismatch: %s vs %s", name, ins[1].dtype.name, ins[2].dtype.name)
      end
      node.template, node.expr = "map", expr
      node.out_dtype, node.out_shape = ins[1].dtype, broadcast(name, ins)
    end,
  }
end

unary("exp", "e^x", "kg_exp($0)")
unary("log", "natural log of x", "kg_log($0)")
unary("sqrt", "square root of x", "kg_sqrt($0)")
unary("rsqrt", "1 / sqrt(x)", "kg_rsqrt($0)")
unary("recip", "1 / x", "(1.0f / $0)")
unary("neg", "-x", "(-$0)")
unary("abs", "|x|", "kg_fabs($0)")
unary("sqr", "x * x", "($0 * $0)")
unary("tanh", "hyperbolic tangent", "kg_tanh($0)")
unary("sin", "sine (radians)", "kg_sin($0)")
unary("cos", "cosine (radians)", "kg_cos($0)")
unary("sigmoid", "1 / (1 + e^-x)", "kg_sigmoid($0)")
unary("relu", "max(x, 0)", "kg_relu($0)")
unary("silu", "x * sigmoid(x)", "kg_silu($0)")
unary("gelu", "GELU, tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))",
  "kg_gelu($0)")
unary("gelu_erf", "GELU, exact form: 0.5 x (1 + erf(x / sqrt(2)))", "kg_gelu_erf($0)")

binary("add", "a + b, elementwise", "($0 + $1)")
binary("sub", "a - b, elementwise", "($0 - $1)")
binary("mul", "a * b, elementwise", "($0 * $1)")
binary("div", "a / b, elementwise", "($0 / $1)")
binary("min", "the smaller of a and b, elementwise", "kg_min($0, $1)")
binary("max", "the larger of a and b, elementwise", "kg_max($0, $1)")

kg.op {
  name = "scale", doc = "x * factor, factor a number (scale(x, 0.5) or scale(x, {factor = 0.5}))",
  inputs = { "x" }, positional = "factor",
  attrs = { factor = { type = "number", check = finite } },
  build = function(node, ins, a)
    kg.check_float("scale", ins[1])
    if a.factor == nil then fail("scale: attribute factor is required") end
    node.template, node.expr = "map", "($0 * " .. kg.float_literal(a.factor) .. ")"
    node.out_dtype, node.out_shape = ins[1].dtype, ins[1].shape
  end,
}

kg.op {
  name = "affine", doc = "x * mul + add, numbers (affine(x, {mul = 2, add = 1}))",
  inputs = { "x" },
  attrs = {
    mul = { type = "number", default = 1.0, check = finite },
    add = { type = "number", default = 0.0, check = finite },
  },
  build = function(node, ins, a)
    kg.check_float("affine", ins[1])
    node.template = "map"
    node.expr = "($0 * " .. kg.float_literal(a.mul) .. " + " .. kg.float_literal(a.add) .. ")"
    node.out_dtype, node.out_shape = ins[1].dtype, ins[1].shape
  end,
}

kg.op {
  name = "clamp",
  doc = "x limited to [min, max], numbers, either may be left out (clamp(x, {min = 0, max = 6})); NaN stays NaN",
  inputs = { "x" },
  attrs = {
    min = { type = "number", check = finite },
    max = { type = "number", check = finite },
  },
  build = function(node, ins, a)
    kg.check_float("clamp", ins[1], "x")
    if a.min == nil and a.max == nil then fail("clamp: give min, max or both") end
    if a.min ~= nil and a.max ~= nil and a.min > a.max then
      fail("clamp: min %s is above max %s", kg.float_literal(a.min), kg.float_literal(a.max))
    end
    -- comparisons, not fmin/fmax: a NaN fails both and stays NaN (as torch.clamp)
    local e = "$0"
    if a.max ~= nil then
      local hi = kg.float_literal(a.max)
      e = "(" .. e .. " > " .. hi .. " ? " .. hi .. " : " .. e .. ")"
    end
    if a.min ~= nil then
      local lo = kg.float_literal(a.min)
      e = "($0 < " .. lo .. " ? " .. lo .. " : " .. e .. ")"
    end
    node.template, node.expr = "map", e
    node.out_dtype, node.out_shape = ins[1].dtype, ins[1].shape
  end,
}

kg.op {
  name = "where", doc = "cond ? a : b, elementwise; cond any dtype (non-zero is true), all three broadcast",
  inputs = { "cond", "a", "b" },
  build = function(node, ins)
    kg.check_float("where", ins[2], "a")
    kg.check_float("where", ins[3], "b")
    if ins[2].dtype ~= ins[3].dtype then
      fail("where: dtype mismatch: %s vs %s", ins[2].dtype.name, ins[3].dtype.name)
    end
    node.template, node.expr = "map", "($0 != 0.0f ? $1 : $2)"
    node.out_dtype, node.out_shape = ins[2].dtype, broadcast("where", ins)
  end,
}

kg.op {
  name = "fill", doc = "a new tensor of shape and dtype, every element value (fill{shape = {T, 8}, value = 0, dtype = f16})",
  attrs = {
    shape = { check = function(v) return type(v) == "table", "must be a list of dims" end },
    value = { type = "number", default = 0.0,
      check = function(v) return v == v, "must not be NaN" end },
    dtype = { check = function(v) return kg.is_dtype(v) and v.float, "must be f32, f16 or bf16" end },
  },
  build = function(node, _, a)
    if a.shape == nil then fail("fill: attribute shape is required") end
    if a.dtype == nil then fail("fill: attribute dtype is required") end
    node.template, node.expr = "map", kg.float_literal(a.value)
    node.out_dtype, node.out_shape = a.dtype, kg.check_shape("fill", a.shape)
  end,
}

kg.op {
  name = "cast",
  doc = "x converted to dtype: floats round to nearest even; to i32 truncates toward zero, saturating (NaN -> 0)",
  inputs = { "x" }, positional = "to",
  attrs = {
    to = { check = function(v) return kg.is_dtype(v), "must be a dtype (f32, f16, bf16, i32)" end },
  },
  build = function(node, ins, a)
    if a.to == nil then fail("cast: the target dtype is required, as in cast(x, f16)") end
    if a.to == kg.dtypes.i32 and ins[1].dtype == kg.dtypes.i32 then
      fail("cast: x is already i32")
    end
    node.template = "map"
    node.expr = "kg_round<" .. a.to.ctype .. ">($0)"
    node.out_dtype, node.out_shape = a.to, ins[1].shape
  end,
}
