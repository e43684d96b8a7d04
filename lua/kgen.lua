-- kgen.lua - the model DSL: dtypes, symbolic dims, tensors, the graph a model
-- builds, and kg.op, with which the op families (lua/ops/*.lua) declare ops.
--
-- A model calls input/weight/output/sym and ops; each op checks its operands
-- and attributes, computes its result's shape and dtype, and records a node.
-- Errors are raised with error(msg, 0): kgen reports them at the model line
-- that made the call. kgen's C reads the graph back through kg.graph.
--
-- The model boundary: a model holds handles, never kgen's tables. Tensors,
-- syms and dtypes are userdata proxies (newproxy, from the sandbox) with
-- locked metatables whose fields are read through accessors and cannot be
-- set; the records behind them, the graph and its nodes live in the
-- library's private state (kgen/state.lua), which a model cannot reach (it
-- cannot require kgen's modules, and this library runs with its own _ENV).
-- A handle's shape is a fresh copy.
--
-- The pieces, loaded in this order: kgen/state.lua (the shared state),
-- kgen/types.lua (dtypes, syms), kgen/ranks.lua (ranks), kgen/tensor.lua
-- (tensors, inputs, weights, outputs), kgen/op.lua (kg.op, kg.node),
-- kgen/template.lua (kg.template), kgen/helpers.lua (for op descriptions),
-- kgen/gemm.lua (the GEMM templates' tiles and launch parameters),
-- kgen/define.lua (--define's values and files).

local S = require "kgen.state"
local kg = S.kg
require "kgen.types"
require "kgen.ranks"
require "kgen.tensor"
require "kgen.op"
require "kgen.template"
require "kgen.helpers"
require "kgen.gemm"
require "kgen.define"
local Tensor = S.Tensor

--- Loads the op families and returns the names a model sees as globals.
function kg.env()
  require "ops.elementwise"
  require "ops.reduce"
  require "ops.norm"
  require "ops.softmax"
  require "ops.rope"
  require "ops.kv"
  require "ops.attention"
  require "ops.index"
  require "ops.sort"
  require "ops.sample"
  require "ops.sketch"
  require "ops.resample"
  require "ops.transpose"
  require "ops.concat"
  require "ops.matmul"
  require "ops.conv"
  require "ops.layout"
  require "ops.parallel"
  local env = {
    sym = kg.sym, input = kg.input, weight = kg.weight, output = kg.output, ranks = kg.ranks,
    on_rank = kg.on_rank, define = kg.define, weights_file = kg.weights_file,
    json_file = kg.json_file,
  }
  for name, dt in pairs(kg.dtypes) do env[name] = dt end
  for _, name in ipairs(kg.op_order) do
    if env[name] then error("op name clashes with a DSL name: " .. name) end
    env[name] = kg.ops[name].call
  end
  return env
end

-- a + b, a - b, a * b, a / b, -a and a * 2.0 on tensors read like the ops
-- they are.
Tensor.__add = function(a, b) return kg.ops.add.call(a, b) end
Tensor.__sub = function(a, b) return kg.ops.sub.call(a, b) end
Tensor.__div = function(a, b) return kg.ops.div.call(a, b) end
Tensor.__unm = function(a) return kg.ops.neg.call(a) end
Tensor.__mul = function(a, b)
  if type(b) == "number" then return kg.ops.scale.call(a, b) end
  if type(a) == "number" then return kg.ops.scale.call(b, a) end
  return kg.ops.mul.call(a, b)
end

return kg
