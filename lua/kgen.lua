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
-- set; the records behind them, the graph and its nodes live in this file's
-- locals, which a model cannot reach (it cannot require "kgen", and this
-- library runs with its own _ENV). A handle's shape is a fresh copy.

local kg = {}

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

kg.version = "0.1.0"

---------------------------------------------------------------------------
-- dtypes

local function field(name) return function(r) return r[name] end end
local Dtype = handle_mt("dtype", dtype_rec, {
  name = field("name"), size = field("size"), ctype = field("ctype"), float = field("float"),
  quant = field("quant"), block_elems = field("block_elems"), block_bytes = field("block_bytes"),
})
Dtype.__tostring = function(d) return dtype_rec[d].name end

local function dtype(name, size, ctype, float)
  return new_handle(dtype_rec, { name = name, size = size, ctype = ctype, float = float }, Dtype)
end

-- A GGUF (ggml) block format: `elems` weights in `bytes` bytes per block
-- (runtime/kgrt_gguf.h, templates/lib_quant.hip). Weights only, with the last
-- dim a multiple of the block; a kernel sees the raw blocks as 16-bit units
-- (ctype unsigned short: every block and field is 2-byte aligned) and
-- dequantizes them itself: only ops that say so in their build
-- (node.dequantizes) take such operands, today matmul's w.
local function quant_dtype(name, elems, bytes)
  return new_handle(dtype_rec, { name = name, ctype = "unsigned short", float = false,
    quant = true, block_elems = elems, block_bytes = bytes }, Dtype)
end

kg.dtypes = {
  f32 = dtype("f32", 4, "float", true),
  f16 = dtype("f16", 2, "kg_f16", true),
  bf16 = dtype("bf16", 2, "kg_bf16", true),
  i32 = dtype("i32", 4, "int", false),
  q8_0 = quant_dtype("q8_0", 32, 34),
  q4_0 = quant_dtype("q4_0", 32, 18),
  q4_k = quant_dtype("q4_k", 256, 144),
  q6_k = quant_dtype("q6_k", 256, 210),
}
-- The order of the runtime's kgrt_dtype_t.
kg.dtype_codes = { f32 = 0, f16 = 1, bf16 = 2, i32 = 3, q8_0 = 4, q4_0 = 5, q4_k = 6, q6_k = 7 }

function kg.is_dtype(v) return v ~= nil and dtype_rec[v] ~= nil end

---------------------------------------------------------------------------
-- symbolic dims

local Sym = handle_mt("sym", sym_rec, { name = field("name"), max = field("max"),
  ordinal = field("ordinal") })
Sym.__tostring = function(s) return sym_rec[s].name end

function kg.is_sym(v) return v ~= nil and sym_rec[v] ~= nil end

-- A dim of a handle's shape (an integer or a sym handle) or of a record's
-- (an integer or a sym record), as text.
local function dim_str(d)
  if kg.is_sym(d) then return sym_rec[d].name end
  if type(d) == "table" and sym_rec[d.handle] == d then return d.name end
  return tostring(d)
end

function kg.shape_str(shape)
  local parts = {}
  for i, d in ipairs(shape) do parts[i] = dim_str(d) end
  return "[" .. table.concat(parts, ", ") .. "]"
end

function kg.same_shape(a, b)
  if #a ~= #b then return false end
  for i = 1, #a do
    if a[i] ~= b[i] then return false end -- syms compare by identity
  end
  return true
end

---------------------------------------------------------------------------
-- the graph

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
  -- gen/front.c takes names of at most 128 bytes
  if #name > 128 then fail("%s %s...: the name is %d bytes, more than 128", what, name:sub(1, 16), #name) end
end

-- The sizes kgen plans and kgrt loads (runtime/kgrt_table.h): a dim, and a
-- sym's max, at most 2^31 - 1 (kernels index within a dim with 32-bit ints);
-- a tensor at most 2^48 elements and 2^48 bytes. gen/sizes.c checks them
-- again in C.
kg.max_dim = 0x7fffffff
kg.max_bytes = 1 << 48
-- The syms one size may hold: a tensor's element count, an op's size
-- argument (KGRT_EXPR_SYMS, each use of a sym counts).
kg.max_expr_syms = 4

-- The most of each thing a model may declare (gen/front.c checks them again):
-- far more than a real model needs, few enough that every later pass stays
-- fast and small.
kg.max_syms = 64
kg.max_tensors = 65536
kg.max_nodes = 16384
kg.max_io = 4096 -- inputs, weights and outputs, each
kg.max_ranks = 64

--- sym(name, max): a dimension bound at run time, at most `max`.
function kg.sym(name, max)
  check_name("sym", name)
  if name == "rank" then fail("sym rank: the name is kgen's (a split model's rank)") end
  if math.type(max) ~= "integer" or max < 1 then
    fail("sym %s: max must be a positive integer (the largest value the plan reserves memory for)", name)
  end
  if max > kg.max_dim then
    fail("sym %s: max %d is more than 2^31 - 1 (kernels index within a dim with 32-bit ints)", name, max)
  end
  for _, s in ipairs(graph.syms) do
    if s.name == name then fail("sym %s: declared twice", name) end
  end
  if #graph.syms >= kg.max_syms then fail("sym %s: more than %d syms", name, kg.max_syms) end
  local s = { name = name, max = max, ordinal = #graph.syms }
  graph.syms[#graph.syms + 1] = s
  return new_handle(sym_rec, s, Sym)
end

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
    if kg.is_sym(d) then
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

--- ranks(n): the model is one rank's part of a model split over n ranks
--- (tensor parallel, kgrt_model_join): a weight declared with a split holds
--- this rank's part of the file's tensor, and all_reduce / all_gather combine
--- the ranks' values. At most once, before any split weight or collective.
function kg.ranks(n)
  if math.type(n) ~= "integer" or n < 1 or n > kg.max_ranks then
    fail("ranks: n must be an integer from 1 to %d, got %s", kg.max_ranks, tostring(n))
  end
  if graph.ranks_fixed then
    fail("ranks: declared twice, or after a split weight or a collective op (which took 1 rank)")
  end
  graph.ranks, graph.ranks_fixed = n, true
end

--- The ranks the model is split over (1 unless ranks(n)); fixed from now on.
function kg.num_ranks()
  graph.ranks_fixed = true
  return graph.ranks
end

--- The model's rank, 0 .. ranks - 1, as a size for an op's dim_args (a
--- kernel argument; no shape may hold it): the constant 0 for a model of one
--- rank, else the sym `rank` (made once; KGRT_SYM_RANK: kgrt_model_join sets
--- it).
function kg.rank_size()
  local ranks = kg.num_ranks()
  if ranks == 1 then return 0 end
  if not graph.rank_sym then
    if #graph.syms >= kg.max_syms then fail("the model's rank: more than %d syms", kg.max_syms) end
    local s = { name = "rank", max = ranks - 1, ordinal = #graph.syms, rank = true }
    graph.syms[#graph.syms + 1] = s
    new_handle(sym_rec, s, Sym)
    graph.rank_sym = s
  end
  return graph.rank_sym
end

--- For what splits the model tensor parallel (a split weight, all_reduce,
--- all_gather): refused in a pipeline (on_rank), which runs each op on one
--- rank. Returns the ranks.
function kg.tensor_parallel(what)
  if graph.placed then
    fail("%s: tensor parallel in a model that places ops on ranks (on_rank, pipeline parallel): not supported", what)
  end
  graph.tensor_parallel = true
  return kg.num_ranks()
end

--- on_rank(r, fn): the ops fn makes run on rank r only (pipeline parallel:
--- a stage's layers); returns fn's results. A value read on another rank
--- than its own, and every model output, goes to every rank by a broadcast
--- step from its rank (one per value, however many read it): kgrt runs it
--- through the ranks' communicator. Outside on_rank, ops run on every rank.
function kg.on_rank(r, fn)
  local ranks = kg.num_ranks()
  if math.type(r) ~= "integer" or r < 0 or r >= ranks then
    fail("on_rank: r must be a rank from 0 to %d (ranks(%d)), got %s", ranks - 1, ranks, tostring(r))
  end
  if type(fn) ~= "function" then fail("on_rank: fn must be a function, got %s", type(fn)) end
  if graph.tensor_parallel then
    fail("on_rank: the model is tensor parallel (a split weight, all_reduce or all_gather); placing ops on ranks in it is not supported")
  end
  local outer = graph.rank
  graph.placed, graph.rank = true, r
  local results = table.pack(fn())
  graph.rank = outer
  return table.unpack(results, 1, results.n)
end

-- The rank a tensor's value is on: its producer's, through views; nil for
-- every rank (inputs, weights, broadcasts' results, ops outside on_rank).
local function value_rank(r)
  while r.view_of do r = r.view_of end
  local p = r.producer
  return p and p.rank ~= nil and p.combine ~= "from_rank" and p.rank or nil
end

-- t on every rank: t itself, or the broadcast of t from its rank (made once).
local function everywhere(t)
  local r = tensor_rec[t]
  local from = value_rank(r)
  if from == nil then return t end
  if not r.everywhere then
    r.everywhere = kg.node("broadcast", { t }, {}, function(node, ins)
      node.combine, node.rank = "from_rank", from
      node.out_dtype, node.out_shape = ins[1].dtype, ins[1].shape
    end)
  end
  return r.everywhere
end

-- weight(..., { split = dim, parts = n }): the shape is this rank's part of
-- the file's tensor, cut into `parts` (default: the ranks) equal parts along
-- `dim`; rank r binds part r * parts / ranks, so parts < ranks shares each
-- part between ranks / parts ranks (K and V heads fewer than the ranks).
local function split_weight(name, r, opts)
  if type(opts) ~= "table" then
    fail("weight %s: the 4th argument must be a table { split = dim, parts = n }", name)
  end
  for k in pairs(opts) do
    if k ~= "split" and k ~= "parts" then
      fail("weight %s: unknown key %s (known: parts, split)", name, tostring(k))
    end
  end
  local ranks = kg.tensor_parallel("weight " .. name)
  local dim, parts = rawget(opts, "split"), rawget(opts, "parts")
  if parts == nil then parts = ranks end
  if math.type(dim) ~= "integer" or dim < 1 or dim > #r.shape then
    fail("weight %s: split must be a dim from 1 to %d, got %s", name, #r.shape, tostring(dim))
  end
  if math.type(r.shape[dim]) ~= "integer" then
    fail("weight %s: the split dim %d must be a constant", name, dim)
  end
  if math.type(parts) ~= "integer" or parts < 1 or parts > ranks or ranks % parts ~= 0 then
    fail("weight %s: parts must be an integer that divides the ranks (%d), got %s", name, ranks,
      tostring(parts))
  end
  if r.shape[dim] > kg.max_dim // parts then
    fail("weight %s: the whole tensor's dim %d (%d x %d parts) is more than 2^31 - 1", name, dim,
      r.shape[dim], parts)
  end
  r.split_dim, r.split_parts = dim - 1, parts
end

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
---------------------------------------------------------------------------
-- ops


kg.ops = {}       -- name -> description, for --list-ops and the model env
kg.op_order = {}  -- names in registration order
kg.templates = {} -- template name -> { params = function(target, info) }

local function check_attr(opname, key, spec, v)
  if v == nil then return spec.default end
  if spec.type == "number" and type(v) ~= "number" then
    fail("%s: attribute %s must be a number, got %s", opname, key, type(v))
  end
  if spec.check then
    local ok, why = spec.check(v)
    if not ok then
      -- a table's tostring is its address: not in an error, which must not vary
      local shown = type(v) == "table" and "a table" or tostring(v)
      fail("%s: attribute %s %s, got %s", opname, key, why, shown)
    end
  end
  return v
end

--- kg.op{ name, doc, inputs = {"x", "weight?"}, attrs = {k = {default, type, check}},
---        positional = "attr" (a non-table trailing argument sets this attr),
---        build = function(node, ins, attrs) ... end }
--- build fills node.out_dtype, node.out_shape and the template facts; also,
--- where the op needs them:
---   node.extra_outputs = { {dtype =, shape =}, ... }  more results (returned after
---                        the first; the kernel writes them in this order);
---                        hidden = true: scratch the kernel needs, not returned
---                        to the model; persistent = true: state the kernel keeps
---                        across runs (zeroed at load, its memory shared with no
---                        other value)
---   node.inplace = k     the kernel updates operand k (1-based) in place; the result
---                        is that operand's memory (a KV cache, say), no new buffer
---   node.grid_of = t     row kernels: rows = numel(t) / node.cols (default: result)
---   node.dim_args = {..} sizes passed as i64 kernel arguments after the buffers
---                        (each an integer, a sym, a tensor (its numel) or a list)
---   node.grid = "tiles", node.tile_units = size: ceil(size / per_block) x repeat
---                        workgroups, per_block and repeat from the params rule;
---                        tiles_columns = true: size is w's columns (N), so a
---                        kernel of regions tiles all of theirs
---   node.variants = { v, ... }  several kernels for the node instead of one, each
---                        a table of the template facts above (template, grid,
---                        cols, grid_of, tile_units, dim_args, holes, params_info)
---                        and select = {size =, min =, max =}: the plan runs the
---                        one whose min <= size <= max at run time; a variant's
---                        label names its kernel (default: its template), and its
---                        fuse_key (a string) is what its params_info holds
---                        besides the holes: variants of different keys are never
---                        fused into one kernel (a pair, regions)
--- A size is an integer, a sym, a tensor (its numel) or a list of those (product).
-- kgen's C reads sizes as lists of integers and sym records.
local function size_list(what, s)
  if kg.is_tensor(s) then s = tensor_rec[s].shape end
  if math.type(s) == "integer" or kg.is_sym(s) then s = { s } end
  if type(s) ~= "table" then error(what .. ": a size is not an integer, sym, tensor or list", 0) end
  local out, syms, n = {}, 0, 1
  for i, d in ipairs(s) do
    if kg.is_sym(d) then d = sym_rec[d] end
    if not (math.type(d) == "integer" or type(d) == "table" and sym_rec[d.handle] == d) then
      error(what .. ": a size is not a product of integers and syms", 0)
    end
    if type(d) == "table" then
      syms = syms + 1
    elseif d < 0 or d > 0 and n > math.maxinteger // d then
      error(what .. ": a size is negative or more than 2^63 - 1", 0)
    else
      n = n * d
    end
    out[i] = d
  end
  if syms > kg.max_expr_syms then
    error(string.format("%s: a size of %d symbolic dims, more than %d (a size kgrt evaluates holds at most %d syms)",
      what, syms, kg.max_expr_syms, kg.max_expr_syms), 0)
  end
  return out
end

-- A tensor handle (or record) as its record.
local function tensor_of(what, t)
  if kg.is_tensor(t) then return tensor_rec[t] end
  if type(t) == "table" and t.handle and tensor_rec[t.handle] == t then return t end
  error(what .. ": not a tensor", 0)
end

local function normalize_variant(what, v)
  if v.dim_args then
    for i, s in ipairs(v.dim_args) do v.dim_args[i] = size_list(what, s) end
  end
  if v.tile_units then v.tile_units = size_list(what, v.tile_units) end
  if v.select then v.select.size = size_list(what, v.select.size) end
  if v.grid_of then v.grid_of = tensor_of(what, v.grid_of) end
end

-- An attribute named `block` sets BLOCK, the threads of the op's workgroup:
-- checked against every target of the build (kg.targets, set by kgen's C
-- before the model runs) with the rules kgen's C applies to BLOCK.
local function check_block(opname, block)
  for _, t in ipairs(kg.targets or {}) do
    local why
    if block % t.wave ~= 0 then
      why = string.format("a multiple of %s's wave (%d)", t.name, t.wave)
    elseif block > t.max_block then
      why = string.format("at most %s's max_block (%d)", t.name, t.max_block)
    elseif block // t.wave > t.wave then
      why = string.format("at most %d (%s's wave %d squared: a workgroup's waves reduce through one wave)",
        t.wave * t.wave, t.name, t.wave)
    end
    if why then fail("%s: attribute block must be %s, got %d", opname, why, block) end
  end
end

function kg.op(desc)
  assert(type(desc.name) == "string" and type(desc.doc) == "string" and (desc.build or desc.view))
  assert(not kg.ops[desc.name], "op registered twice: " .. desc.name)
  desc.attrs = desc.attrs or {}
  desc.inputs = desc.inputs or {}
  kg.ops[desc.name] = desc
  kg.op_order[#kg.op_order + 1] = desc.name
  desc.call = function(...)
    local args = table.pack(...)
    local ins, attrs = {}, nil
    local n = args.n
    local last = args[n]
    if n > 0 and desc.positional and type(last) == "table" and rawget(last, 1) ~= nil
      and not kg.is_tensor(last) then
      attrs = { [desc.positional] = last } -- a list: reshape(x, {T, 32, 128})
      n = n - 1
    elseif n > 0 and type(last) == "table" and not kg.is_tensor(last) and not kg.is_dtype(last) then
      attrs = last
      n = n - 1
    elseif n > 0 and desc.positional and not kg.is_tensor(last) then
      attrs = { [desc.positional] = last }
      n = n - 1
    end
    attrs = attrs or {}
    -- a positional list before the attributes: split(x, {64, 64}, {dim = 1})
    local prev = args[n]
    if n > 0 and desc.positional and attrs[desc.positional] == nil and type(prev) == "table"
      and rawget(prev, 1) ~= nil and not kg.is_tensor(prev) then
      attrs[desc.positional] = prev
      n = n - 1
    end
    -- operands
    local want = #desc.inputs
    local required = 0
    for _, spec in ipairs(desc.inputs) do
      if not spec:match("%?$") then required = required + 1 end
    end
    if n < required or n > want then
      fail("%s: expected %s tensor operand%s, got %d", desc.name,
        required == want and tostring(want) or (required .. " to " .. want),
        want == 1 and "" or "s", n)
    end
    for i = 1, n do
      local v = args[i]
      local what = desc.inputs[i]:gsub("%?$", "")
      if not kg.is_tensor(v) then
        fail("%s: operand %d (%s) must be a tensor, got %s", desc.name, i, what,
          v == nil and "nil" or type(v))
      end
      ins[i] = v
    end
    -- attributes: unknown keys are errors; checked in sorted order
    local keys = {}
    for k in pairs(attrs) do
      if type(k) ~= "string" or not desc.attrs[k] then
        local known = {}
        for name in pairs(desc.attrs) do known[#known + 1] = name end
        table.sort(known)
        fail("%s: unknown attribute %s (known: %s)", desc.name, tostring(k),
          #known > 0 and table.concat(known, ", ") or "none")
      end
      keys[#keys + 1] = k
    end
    local a = {}
    local all = {}
    for name in pairs(desc.attrs) do all[#all + 1] = name end
    table.sort(all)
    for _, name in ipairs(all) do
      a[name] = check_attr(desc.name, name, desc.attrs[name], attrs[name])
    end
    if math.type(a.block) == "integer" then check_block(desc.name, a.block) end
    if desc.view then return desc.view(ins, a) end
    return kg.node(desc.name, ins, a, desc.build)
  end
  return desc.call
end

--- kg.node(op, ins, attrs, build): records a node of the graph whose kernel
--- `build` describes (kg.op's build) and returns its results but the hidden
--- ones. kg.op's call runs it once the operands and attributes are checked.
function kg.node(opname, ins, a, build)
  if #graph.nodes >= kg.max_nodes then
    fail("%s: more than %d ops in the model (the most kgen builds)", opname, kg.max_nodes)
  end
  for i, t in ipairs(ins) do check_current(opname, i, t) end
  -- operands on another rank than this op's come by broadcast (on_rank)
  if graph.placed and opname ~= "broadcast" then
    for i, t in ipairs(ins) do
      local from = value_rank(tensor_rec[t])
      if from ~= nil and from ~= graph.rank then ins[i] = everywhere(t) end
    end
  end
  local node = { op = opname, inputs = ins, attrs = a, rank = graph.rank }
  node.file, node.line = kg_where()
  build(node, ins, a)
  -- quantized operands only where the build dequantizes them; never results
  local desc = kg.ops[opname]
  for i, t in ipairs(ins) do
    if t.dtype.quant and not (node.dequantizes and node.dequantizes[i]) then
      fail("%s: operand %d (%s) is %s, a quantized (GGUF block) dtype; only matmul's w may be quantized",
        opname, i, desc and desc.inputs[i] and desc.inputs[i]:gsub("%?$", "") or "?",
        t.dtype.name)
    end
  end
  for _, r in ipairs({ { dtype = node.out_dtype }, table.unpack(node.extra_outputs or {}) }) do
    if r.dtype and r.dtype.quant then
      fail("%s: the result cannot be %s, a quantized (GGUF block) dtype (for weights only)",
        opname, r.dtype.name)
    end
  end
  assert((node.template or node.variants or node.combine) and node.out_dtype and node.out_shape,
    opname)
  local out = kg.tensor("value", node.out_dtype, node.out_shape, nil, opname .. ": the result")
  local results = { out }
  node.output = tensor_rec[out]
  node.output.producer = node
  if node.inplace then -- the result is the operand's memory, one version on
    local m = tensor_rec[ins[node.inplace]].mem
    m.version, m.updated_by = m.version + 1, opname
    node.output.mem, node.output.version = m, m.version
  end
  node.outputs = { node.output }
  for _, extra in ipairs(node.extra_outputs or {}) do
    local t = kg.tensor("value", extra.dtype, extra.shape, nil, opname .. ": a result")
    local r = tensor_rec[t]
    r.producer = node
    r.persistent = extra.persistent or nil
    node.outputs[#node.outputs + 1] = r
    if not extra.hidden then results[#results + 1] = t end
  end
  local recs = {}
  for i, t in ipairs(ins) do recs[i] = tensor_of(opname, t) end
  node.inputs = recs
  normalize_variant(opname, node)
  for _, v in ipairs(node.variants or {}) do normalize_variant(opname, v) end
  -- the model's line of the op, for what its params rule raises (kg_context)
  for _, v in ipairs({ node, table.unpack(node.variants or {}) }) do
    if type(v.params_info) == "table" then
      v.params_info.kg_file, v.params_info.kg_line = node.file, node.line
    end
  end
  node.index = #graph.nodes
  graph.nodes[#graph.nodes + 1] = node
  return table.unpack(results)
end

--- kg.template{ name, params = function(target, info) return {BLOCK=, VEC=} end,
---   holes = { "A", "B", C = "" }  the holes the op's build and the params rule
---                                 give (a keyed one is optional: its default);
---                                 kgen refuses any other, and a declared hole
---                                 that the template's text never names
---   libs = { "norm" }             the templates/lib_<name>.hip it calls into
---                                 (only those are emitted)
---   file = "gemm"                 its own text, templates/<file>.hip (default:
---                                 its name; templates sharing one text declare
---                                 off the holes of roles they do not take)
---   sources = { "gemv_qm" }       the other files the params rule may pick as
---                                 `source` (they take the same holes)
---   fuse = { chain = true }       the fusion roles it accepts: chain (an
---                                 elementwise expression, EXPR over IN), or
---                                 epilogue (EPI over acc0 and EPI_IN at the
---                                 result's store) and pair (two weights, acc1)
---                                 and rms_prologue (an RMS norm of x taken in: NORM,
---                                 NG_T, NEPS); rms (the op is an RMS norm of
---                                 its operand 1 with weight 2, holes EPS,
---                                 COLS, R_T: a norm template may take it in);
---                                 regions (matmuls of one x with no epilogue
---                                 as regions of one N, its hole N: weights
---                                 w, wr1 (wr2) and results y, yr1 (yr2),
---                                 REGIONS, R1 (R2) where each starts);
---                                 region_epilogue (a regions template that
---                                 takes a rotary op and a cache op on a
---                                 region's result: REPI, ROPE<r>, KV<r>,
---                                 RE_D RE_PAIRS RE_HALF RE_REV RE_C_T
---                                 RE_SLOTS); rotary (the op rotates pairs of
---                                 its operand 1 at positions operand 2: holes
---                                 D HALF HALF_LAYOUT PASS REV); cache (the op
---                                 writes its operand 2 into the cache operand
---                                 1 in place at positions operand 3: holes
---                                 C_T SLOTS D, dim args tokens and layer);
---                                 norm_out (an epilogue template that also
---                                 writes, for an RMS norm of its result split
---                                 around it, z = the result times the norm's
---                                 weight and the result's sums of squares per
---                                 NPC columns: NOUT NOUT_T NOG_T NPC);
---                                 row_scale (a matmul that reads such a z as
---                                 x and scales each row of its product by the
---                                 norm's rsqrt from the sums: RSCALE RS_EPS
---                                 RS_K NPC); row_sums (the sums of squares
---                                 are the consumers' work: as norm_out it
---                                 writes z alone, as row_scale it takes the
---                                 norm's operand for the sums and adds its
---                                 squares itself: RS_T, the operand's type);
---                                 split_default (a norm is split around the
---                                 template's variants even where the model
---                                 does not ask)
---   weights_before_wait = true    reads its weight operands before
---                                 kg_dep_wait() (early launch: they must be
---                                 model weights) }
--- The holes C gives are not declared: KERNEL WAVE BLOCK VEC UNROLL; rows
--- grids ITERS CACHE; chain EXPR OUT_T and the list IN; epilogue EPI PAIR
--- OUT_T and the list EPI_IN; regions REGIONS R1 R2; region_epilogue REPI
--- ROPE0-2 KV0-2 and the RE_ holes; norm_out NOUT NOUT_T NOG_T NPC;
--- row_scale RSCALE RS_EPS RS_K NPC; row_sums RS_T.
function kg.template(desc)
  assert(type(desc.name) == "string" and type(desc.params) == "function", "kg.template")
  assert(not kg.templates[desc.name], "template declared twice: " .. desc.name)
  local function ident(v) return type(v) == "string" and v:match("^[%a_][%w_]*$") end
  desc.holes = desc.holes or {}
  for k, v in pairs(desc.holes) do
    assert(math.type(k) == "integer" and ident(v) or ident(k) and type(v) == "string",
      "template " .. desc.name .. ": bad hole " .. tostring(k))
  end
  assert(desc.file == nil or ident(desc.file), "template " .. desc.name .. ": bad file")
  for _, list in ipairs({ "libs", "sources" }) do
    desc[list] = desc[list] or {}
    for _, v in ipairs(desc[list]) do
      assert(ident(v), "template " .. desc.name .. ": bad " .. list .. " entry")
    end
  end
  desc.fuse = desc.fuse or {}
  kg.templates[desc.name] = desc
end

--- The holes of `holes` that template `name` declares (a params rule shared
--- with another template gives some that this one does not take).
function kg.declared_holes(name, holes)
  local t, out = kg.templates[name], {}
  for k, v in pairs(t.holes) do
    local h = math.type(k) == "integer" and v or k
    out[h] = holes[h]
  end
  return out
end

-- Called from C: the launch parameters a template takes on a target.
function kg.template_params(name, target, info)
  local t = kg.templates[name]
  if not t then error("no parameter rule for template " .. name, 0) end
  kg_context(info.kg_file, info.kg_line)
  local p = t.params(target, info)
  kg_context()
  assert(math.type(p.BLOCK) == "integer" and math.type(p.VEC) == "integer", name)
  p.UNROLL = p.UNROLL or 1
  assert(math.type(p.UNROLL) == "integer" and p.UNROLL >= 1, name)
  return p
end

---------------------------------------------------------------------------
-- shared helpers for op descriptions

--- A float constant as C source, exact enough for float32.
function kg.float_literal(v)
  if v ~= v then return "__builtin_nanf(\"\")" end
  if v == math.huge then return "__builtin_inff()" end
  if v == -math.huge then return "(-__builtin_inff())" end
  local s = string.format("%.9g", v)
  if not s:find("[%.eE]") then s = s .. ".0" end
  return s .. "f"
end

--- The largest vector width <= 16 bytes that divides every n in `ns`.
function kg.vector_width(dt, ns)
  local vec = 16 // dt.size
  while vec > 1 do
    local ok = true
    for _, n in ipairs(ns) do
      if n % vec ~= 0 then ok = false end
    end
    if ok then break end
    vec = vec // 2
  end
  return vec
end

--- Threads for a row of `cols` elements taken `vec` at a time: a power of two
--- from one wave up to `cap` (default 256; BLOCK / wave must not exceed the
--- wave).
function kg.row_block(target, cols, vec, cap)
  local want = (cols + vec - 1) // vec
  local block = target.wave
  while block < want and block < (cap or 256) do block = block * 2 end
  return block
end

--- The launch parameters of a row kernel over rows of `cols` elements of
--- dtype `dtype_name`: the widest vector that divides the row, and the threads
--- kg.row_block gives (up to `cap`).
function kg.row_params(target, dtype_name, cols, cap)
  local vec = kg.vector_width(kg.dtypes[dtype_name], { cols })
  return { BLOCK = kg.row_block(target, cols, vec, cap), VEC = vec }
end

function kg.check_float(opname, t, what)
  if not t.dtype.float then
    fail("%s: %s must be f32, f16 or bf16, got %s", opname, what or "operand", t.dtype.name)
  end
end

function kg.check_same(opname, a, b)
  if a.dtype ~= b.dtype then
    fail("%s: dtype mismatch: %s vs %s", opname, a.dtype.name, b.dtype.name)
  end
  if not kg.same_shape(a.shape, b.shape) then
    fail("%s: shape mismatch: %s vs %s", opname, kg.shape_str(a.shape), kg.shape_str(b.shape))
  end
end

--- The last dim as a constant (row kernels need it known at kgen time).
function kg.const_cols(opname, t)
  local c = t.shape[#t.shape]
  if not (math.type(c) == "integer") then
    fail("%s: the last dim must be a constant, got %s", opname, dim_str(c))
  end
  return c
end

---------------------------------------------------------------------------
-- what the command line gives a model (kgen --define NAME=VALUE)

--- define(name [, default]): the VALUE of `--define name=VALUE`, a string;
--- else `default`; else an error.
function kg.define(name, default)
  check_name("define", name)
  local v = kg_define(name)
  if v ~= nil then return v end
  if default ~= nil then return default end
  fail("define %s: not given (kgen --define %s=VALUE)", name, name)
end

-- What `read` (a reader kgen's C gives the library) makes of the file at
-- the path `--define name=PATH` gives: its value, or an error naming `what`.
local function kg_file_of(what, read, name)
  check_name(what, name)
  local value, why = read(name)
  if value == nil then
    if why == "not given" then
      fail("%s %s: not given (kgen --define %s=PATH)", what, name, name)
    end
    fail("%s %s: %s", what, name, why)
  end
  return value
end

--- weights_file(name): the header of the weight file at the path `--define
--- name=PATH` gives (GGUF, safetensors or a safetensors index), read and
--- checked by kgrt's reader: { format = "gguf" | "safetensors", meta = {
--- key = number | string | boolean } (GGUF's scalar keys; arrays left out),
--- tensors = { [file name] = { dtype = "q4_0", shape = { rows, cols } } } }
--- (shapes row-major, innermost last). A model opens only files the command
--- line names.
function kg.weights_file(name) return kg_file_of("weights_file", kg_weights_file, name) end

--- json_file(name): the value of the JSON file at the path `--define
--- name=PATH` gives (a Hugging Face config.json), read by kgen's strict
--- reader (gen/json.h): objects as tables, arrays as sequences, whole
--- numbers as integers, null members absent. At most 1 MiB, 64 levels deep.
function kg.json_file(name) return kg_file_of("json_file", kg_json_file, name) end

---------------------------------------------------------------------------
-- the environment a model runs in

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
