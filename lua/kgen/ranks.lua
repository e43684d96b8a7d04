-- kgen/ranks.lua - a model split over ranks: tensor parallel (ranks, split
-- weights, collectives) and pipeline parallel (on_rank, the broadcasts of
-- values read on another rank).
-- Needs: kgen/state.lua, kgen/types.lua; kg.node (kgen/op.lua) when a value
-- crosses ranks.
-- Gives: kg.ranks, kg.num_ranks, kg.rank_size, kg.tensor_parallel,
-- kg.on_rank; S.value_rank, S.everywhere, S.split_weight.
local S = require "kgen.state"
local kg, sym_rec, tensor_rec, new_handle = S.kg, S.sym_rec, S.tensor_rec, S.new_handle
local graph, fail, Sym = S.graph, S.fail, S.Sym

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

S.value_rank, S.everywhere, S.split_weight = value_rank, everywhere, split_weight
