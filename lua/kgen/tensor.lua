-- kgen/tensor.lua - tensors: their handles and checks, views, and the
-- model's inputs, weights and outputs.
-- Needs: kgen/state.lua, kgen/types.lua, kgen/ranks.lua.
-- Gives: kg.is_tensor, kg.check_shape, kg.tensor, kg.view, kg.split_of,
-- kg.producer, kg.input, kg.weight, kg.output; S.Tensor, S.check_current.
local S = require "kgen.state"
local kg, dtype_rec, sym_rec, tensor_rec = S.kg, S.dtype_rec, S.sym_rec, S.tensor_rec
local new_handle, handle_mt, field = S.new_handle, S.handle_mt, S.field
local graph, names, fail, check_name = S.graph, S.names, S.fail, S.check_name
local everywhere, split_weight = S.everywhere, S.split_weight

local Tensor = handle_mt("tensor", tensor_rec, {
  dtype = function(r) return r.dtype.handle end,
  shape = function(r)
    local out = {}
    for i, d in ipairs(r.shape) do out[i] = type(d) == "table" and d.handle or d end
    return out
  end,
  name = field("name"),
  kind = field("kind"),
})
Tensor.__tostring = function(t)
  local r = tensor_rec[t]
  return string.format("tensor %s%s", r.dtype.name, kg.shape_str(r.shape))
end

function kg.is_tensor(v) return v ~= nil and tensor_rec[v] ~= nil end

local function check_shape(what, shape)
  if type(shape) ~= "table" or #shape == 0 then
    fail("%s: shape must be a non-empty list of dims", what)
  end
  if #shape > 8 then fail("%s: rank %d is more than 8", what, #shape) end
  local out = {}
  for i = 1, #shape do
    local d = shape[i]
    if kg.is_count(d) then
      fail("%s: dim %d is sym %s, a count (it may be 0): counts size launches, not tensors",
        what, i, tostring(d))
    elseif kg.is_sym(d) then
      out[i] = d
    elseif math.type(d) == "integer" and d >= 1 then
      if d > kg.max_dim then
        fail("%s: dim %d is %d, more than 2^31 - 1 (kernels index within a dim with 32-bit ints)",
          what, i, d)
      end
      out[i] = d
    else
      fail("%s: dim %d must be a positive integer or a sym, got %s", what, i, tostring(d))
    end
  end
  return out
end

kg.check_shape = check_shape

local function check_dtype(what, dt)
  if not kg.is_dtype(dt) then
    fail("%s: dtype must be one of f32, f16, bf16, i32, q8_0, q4_0, q4_k, q6_k", what)
  end
  return dt
end

-- A tensor's elements and bytes with every sym at its max, at most 2^48
-- each; multiplied without overflow. `shape` holds integers and sym records.
local function check_size(what, dt, shape)
  local n, over, syms = 1, false, 0
  for i, d in ipairs(shape) do
    if type(d) == "table" then syms = syms + 1 end
    local v = type(d) == "table" and d.max or d
    if math.type(v) ~= "integer" then fail("%s: dim %d is not an integer or a sym", what, i) end
    if v > kg.max_dim then
      fail("%s: dim %d is %d, more than 2^31 - 1 (kernels index within a dim with 32-bit ints)",
        what, i, v)
    end
    if v >= 1 and n > kg.max_bytes // v then over = true else n = n * v end
  end
  if syms > kg.max_expr_syms then
    fail("%s: %s has %d symbolic dims, more than %d (a size kgrt evaluates holds at most %d syms; make the others constants)",
      what, kg.shape_str(shape), syms, kg.max_expr_syms, kg.max_expr_syms)
  end
  local bytes = dt.quant and n // dt.block_elems * dt.block_bytes or n * dt.size
  if over or n > kg.max_bytes or bytes > kg.max_bytes then
    fail("%s: %s%s is more than 2^48 bytes or elements with every sym at its max (the most kgen plans)",
      what, dt.name, kg.shape_str(shape))
  end
end

-- The record of dtype handle dt, checked.
local function dtype_of(what, dt)
  local r = dt ~= nil and dtype_rec[dt]
  if not r then fail("%s: the dtype is not one of kgen's dtypes", what) end
  return r
end

-- A shape (integers and sym handles) as integers and sym records, checked.
local function shape_of(what, shape)
  shape = check_shape(what, shape)
  for i, d in ipairs(shape) do
    if kg.is_sym(d) then shape[i] = sym_rec[d] end
  end
  return shape
end

--- A new tensor of the graph (kind: "input", "weight" or "value"); `what`
--- names it in errors (default: kind and name). Returns its handle.
function kg.tensor(kind, dt, shape, name, what)
  what = what or (kind .. " " .. tostring(name))
  local r = { kind = kind, dtype = dtype_of(what, dt), shape = shape_of(what, shape), name = name,
    id = #graph.tensors, version = 0 }
  r.mem = { version = 0 } -- its memory, shared by views and in-place results
  check_size(what, r.dtype, r.shape)
  if #graph.tensors >= kg.max_tensors then
    fail("%s: more than %d tensors in the model (the most kgen builds)", what, kg.max_tensors)
  end
  graph.tensors[#graph.tensors + 1] = r
  return new_handle(tensor_rec, r, Tensor)
end

--- An operand whose memory an op has since updated in place (kv_append's
--- cache) holds what that op wrote, not what it held when it was made:
--- refused, so no reader depends on the order kernels run in.
local function check_current(opname, i, t)
  local r = tensor_rec[t]
  if r.version ~= r.mem.version then
    fail("%s: operand %d was updated in place by %s since it was made; use that op's result instead",
      opname, i, r.mem.updated_by)
  end
end

--- A tensor of another shape over x's memory, from `offset` bytes in
--- (ops/layout.lua checks the element count): no node, no kernel; C reads
--- view_of as its alias.
function kg.view(x, shape, offset)
  check_current("reshape", 1, x)
  local t = kg.tensor("value", x.dtype, shape, nil, "view of " .. tostring(x))
  local r, xr = tensor_rec[t], tensor_rec[x]
  r.view_of = xr
  r.view_offset = offset -- bytes into x's memory (split), or nil
  r.mem, r.version = xr.mem, xr.version
  return t
end

--- A split weight's cut (weight(..., { split = dim })): the dim (1-based)
--- and the parts, or nil for any other tensor.
function kg.split_of(t)
  local r = tensor_rec[t]
  if r.split_parts == nil or r.split_parts < 2 then return nil end
  return r.split_dim + 1, r.split_parts
end

--- The node that computed tensor t (its record), or nil: for the library's
--- own rewrites (split); a model cannot reach kg.
function kg.producer(t)
  return tensor_rec[t].producer
end

local function declare(kind, list, name, dt, shape)
  check_name(kind, name)
  if names[name] then fail("%s %s: the name is already used by an %s", kind, name, names[name]) end
  check_dtype(kind .. " " .. name, dt)
  shape = check_shape(kind .. " " .. name, shape)
  if dt.quant then
    if kind ~= "weight" then
      fail("%s %s: %s is a quantized (GGUF block) dtype, for weights only", kind, name, dt.name)
    end
    local last = shape[#shape]
    if math.type(last) ~= "integer" or last % dt.block_elems ~= 0 then
      fail("weight %s: a %s weight's last dim must be a multiple of %d (its block), got %s",
        name, dt.name, dt.block_elems, tostring(last))
    end
  end
  if #list >= kg.max_io then fail("%s %s: more than %d %ss", kind, name, kg.max_io, kind) end
  local t = kg.tensor(kind, dt, shape, name)
  names[name] = kind
  list[#list + 1] = tensor_rec[t]
  return t
end

--- input(name, dtype, shape)
function kg.input(name, dt, shape) return declare("input", graph.inputs, name, dt, shape) end

--- weight(name, dtype, shape [, { split = dim, parts = n }])
function kg.weight(name, dt, shape, opts)
  local t = declare("weight", graph.weights, name, dt, shape)
  if opts ~= nil then split_weight(name, tensor_rec[t], opts) end
  return t
end

--- output(name, tensor): make `tensor` a model output called `name`.
function kg.output(name, t)
  check_name("output", name)
  if names[name] then fail("output %s: the name is already used by an %s", name, names[name]) end
  if not kg.is_tensor(t) then fail("output %s: expected a tensor, got %s", name, type(t)) end
  local r = tensor_rec[t]
  if r.version ~= r.mem.version then
    fail("output %s: the tensor was updated in place by %s since it was made; output a value computed from that op's result",
      name, r.mem.updated_by)
  end
  if r.kind ~= "value" then
    fail("output %s: is %s %s %s itself; outputs must be values an op computes", name,
      r.kind == "input" and "an" or "a", r.kind, r.name)
  end
  if r.output_name then fail("output %s: the tensor is already output %s", name, r.output_name) end
  if r.view_of then
    fail("output %s: is a view (reshape, split) of another value; outputs must be values a kernel computes (output the value itself)",
      name)
  end
  local made = r -- what the model output (before a broadcast from its rank)
  t = everywhere(t)
  r = tensor_rec[t]
  local node = r.producer
  if node and node.inplace then
    local target = node.inputs[node.inplace]
    fail("output %s: is %s's in-place update of %s, not a new value (its memory is %s's own, "
      .. "which kgrt keeps); output a value computed from it instead", name, node.op,
      target.name or "a value", target.name or "that value")
  end
  if #graph.outputs >= kg.max_io then fail("output %s: more than %d outputs", name, kg.max_io) end
  names[name] = "output"
  made.output_name = name
  graph.outputs[#graph.outputs + 1] = { name = name, tensor = r }
  return t
end

S.Tensor, S.check_current = Tensor, check_current
