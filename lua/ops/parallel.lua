-- ops/parallel.lua - values combined over the ranks of a model split over
-- several GPUs (ranks(n), tensor parallel). No kernel: each is a plan step
-- that kgrt hands to the ranks' communicator (NCCL or RCCL, loaded with
-- dlopen; between sim devices, an in-process exchange), in the model's queue
-- between the kernels around it. Every rank must run the same plan.
--   all_reduce(x)   the sum of x over the ranks, on every rank: after a
--                   projection split by its input columns (attention's O,
--                   the FFN's down), each rank holds a partial sum
--   all_gather(x)   the ranks' x [d, ...] one after another in rank order,
--                   [ranks * d, ...] (d a constant); { dim = k } gathers
--                   along dim k where the dims before it are 1 (the same
--                   bytes): the LM head's logits [1, vocab / ranks], split
--                   by vocab rows, gathered into [1, vocab] before sampling
-- A model of 1 rank, or one not joined to a communicator, copies x.
-- Pipeline parallel (on_rank, lua/kgen/ranks.lua) needs no op of its own: kgen
-- puts a broadcast step (from the value's rank) wherever a value crosses
-- ranks.
local kg = require "kgen"
local fail = kg.fail

kg.op {
  name = "all_reduce",
  doc = "the sum of x over the ranks (ranks(n)), on every rank; x f32, f16 or bf16",
  inputs = { "x" },
  build = function(node, ins)
    local x = ins[1]
    kg.check_float("all_reduce", x, "x")
    kg.tensor_parallel("all_reduce")
    node.combine = "sum"
    node.out_dtype, node.out_shape = x.dtype, x.shape
  end,
}

kg.op {
  name = "all_gather",
  doc = "the ranks' x in rank order along dim (default 1; the dims before it 1): [.., ranks * d, ..] (d a constant); x f32, f16 or bf16",
  inputs = { "x" },
  attrs = {
    dim = { type = "number", default = 1,
      check = function(v) return math.type(v) == "integer" and v >= 1, "must be an integer >= 1" end },
  },
  build = function(node, ins, a)
    local x = ins[1]
    kg.check_float("all_gather", x, "x")
    local shape = x.shape
    if a.dim > #shape then
      fail("all_gather: attribute dim must be at most x's rank %d, got %d", #shape, a.dim)
    end
    -- the ranks' buffers one after another are the result only where every
    -- dim before the gathered one is 1
    for i = 1, a.dim - 1 do
      if shape[i] ~= 1 then
        fail("all_gather: x's dims before dim %d must be 1, got %s", a.dim, kg.shape_str(shape))
      end
    end
    local d = shape[a.dim]
    if math.type(d) ~= "integer" then
      fail("all_gather: x's dim %d must be a constant, got %s", a.dim, kg.shape_str(shape))
    end
    local ranks = kg.tensor_parallel("all_gather")
    if d > kg.max_dim // ranks then
      fail("all_gather: %d ranks of %d is more than 2^31 - 1", ranks, d)
    end
    shape[a.dim] = d * ranks
    node.combine = "rank_concat"
    node.out_dtype, node.out_shape = x.dtype, shape
  end,
}
