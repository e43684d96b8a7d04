-- kgen/state.lua - the DSL's private state, shared by the pieces of the
-- library (lua/kgen.lua loads them): the module table kg, the records behind
-- the handles a model holds and how handles are made, the graph a model
-- builds, the names it declared, and the most of each thing kgen builds.
-- Nothing here is reachable from a model: it cannot require kgen's modules,
-- and the library runs with its own _ENV.
-- Needs: newproxy (the sandbox). Gives: the table S (S.kg is kgen's module).

local S = {}

local kg = {}
S.kg = kg

-- handle -> record, one table per kind; a model never sees a record
local dtype_rec, sym_rec, tensor_rec = {}, {}, {}

-- A handle for record r of kind `kind`, with metatable mt.
local function new_handle(map, r, mt)
  local h = newproxy(mt)
  map[h] = r
  r.handle = h
  return h
end

-- The metatable of a kind of handle: `fields` (name -> function(record))
-- are what a model can read; nothing can be set.
local function handle_mt(kind, map, fields)
  return {
    __metatable = kind,
    __name = kind,
    __index = function(h, k)
      local f = fields[k]
      if f then return f(map[h]) end
      return nil
    end,
    __newindex = function(_, k)
      error(string.format("%s: field %s cannot be changed (kgen's handles are read-only)",
        kind, tostring(k)), 2)
    end,
  }
end

S.dtype_rec, S.sym_rec, S.tensor_rec = dtype_rec, sym_rec, tensor_rec
S.new_handle, S.handle_mt = new_handle, handle_mt

kg.version = "0.1.0"

-- A field accessor for handle_mt: reads the record's field `name`.
local function field(name) return function(r) return r[name] end end
S.field = field

local graph = { syms = {}, tensors = {}, nodes = {}, inputs = {}, weights = {}, outputs = {},
  ranks = 1 }
kg.graph = graph
local names = {} -- every input, weight and output name, to catch clashes

local function fail(fmt, ...)
  error(string.format(fmt, ...), 0)
end
kg.fail = fail

local function check_name(what, name)
  if type(name) ~= "string" or not name:match("^[A-Za-z_][A-Za-z0-9_]*$") then
    fail("%s: name must be an identifier string, got %s", what, type(name) == "string" and
      string.format("%q", name) or type(name))
  end
  -- gen/front_raw.c takes names of at most 128 bytes
  if #name > 128 then fail("%s %s...: the name is %d bytes, more than 128", what, name:sub(1, 16), #name) end
end
S.graph, S.names, S.fail, S.check_name = graph, names, fail, check_name

-- The sizes kgen plans and kgrt loads (runtime/kgrt_table.h): a dim, and a
-- sym's max, at most 2^31 - 1 (kernels index within a dim with 32-bit ints);
-- a tensor at most 2^48 elements and 2^48 bytes. gen/sizes.c checks them
-- again in C.
kg.max_dim = 0x7fffffff
kg.max_bytes = 1 << 48
-- The syms one size may hold: a tensor's element count, an op's size
-- argument (KGRT_EXPR_SYMS, each use of a sym counts).
kg.max_expr_syms = 4

-- The most of each thing a model may declare (gen/front_graph.c checks them
-- again):
-- far more than a real model needs, few enough that every later pass stays
-- fast and small.
kg.max_syms = 64
kg.max_tensors = 65536
kg.max_nodes = 16384
kg.max_io = 4096 -- inputs, weights and outputs, each
kg.max_ranks = 64

return S
