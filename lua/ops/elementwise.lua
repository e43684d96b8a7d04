-- ops/elementwise.lua - elementwise unary and binary ops, and cast.
-- Each is an expression over its operands ($0, $1, ... in float) run by the
-- map template; kgen fuses chains of them into one kernel by splicing the
-- expressions together, so an op here never gets a kernel of its own unless
-- its result is needed in memory.
local kg = require "kgen"
local fail = kg.fail

kg.template {
  name = "map",
  -- info: dtypes = { names of every operand and the result }
  params = function(target, info)
    local widest = 1
    for _, name in ipairs(info.dtypes) do
      widest = math.max(widest, kg.dtypes[name].size)
    end
    return { BLOCK = 256, VEC = 16 // widest }
  end,
}

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
    name = name, doc = doc, inputs = { "a", "b" },
    build = function(node, ins)
      kg.check_float(name, ins[1])
      kg.check_same(name, ins[1], ins[2])
      node.template, node.expr = "map", expr
      node.out_dtype, node.out_shape = ins[1].dtype, ins[1].shape
    end,
  }
end

binary("add", "a + b, elementwise (same shape and dtype)", "($0 + $1)")
binary("mul", "a * b, elementwise (same shape and dtype)", "($0 * $1)")
unary("silu", "x * sigmoid(x)", "kg_silu($0)")
unary("gelu", "GELU, tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))",
  "kg_gelu($0)")

kg.op {
  name = "scale", doc = "x * factor, factor a number (scale(x, 0.5) or scale(x, {factor = 0.5}))",
  inputs = { "x" }, positional = "factor",
  attrs = {
    factor = { type = "number", check = function(v)
      return v == v and v ~= math.huge and v ~= -math.huge, "must be finite"
    end },
  },
  build = function(node, ins, a)
    kg.check_float("scale", ins[1])
    if a.factor == nil then fail("scale: attribute factor is required") end
    node.template, node.expr = "map", "($0 * " .. kg.float_literal(a.factor) .. ")"
    node.out_dtype, node.out_shape = ins[1].dtype, ins[1].shape
  end,
}

kg.op {
  name = "cast", doc = "x converted to dtype (f32, f16, bf16), rounding to nearest even",
  inputs = { "x" }, positional = "to",
  attrs = {
    to = { check = function(v) return kg.is_dtype(v), "must be a dtype (f32, f16, bf16)" end },
  },
  build = function(node, ins, a)
    kg.check_float("cast", ins[1])
    if a.to == nil then fail("cast: the target dtype is required, as in cast(x, f16)") end
    if not a.to.float then fail("cast: to %s is not supported (f32, f16, bf16)", a.to.name) end
    node.template = "map"
    node.expr = "kg_round<" .. a.to.ctype .. ">($0)"
    node.out_dtype, node.out_shape = a.to, ins[1].shape
  end,
}
