-- One rank of a model split over 2 (ranks(2)): split weights carry their cut
-- in the table, all_reduce and all_gather are plan steps with no kernel (the
-- runtime's communicator runs them), and the table says how many ranks.
-- RUN: rm -rf %t; %kgen --arch gfx1100 %s -o %t > /dev/null
-- RUN: FileCheck %s --check-prefix=IO < %t/parallel.c
-- RUN: FileCheck %s --check-prefix=PLAN < %t/parallel_gfx1100.c
-- RUN: FileCheck %s --check-prefix=HIP < %t/parallel_gfx1100.hip
ranks(2)
local T = sym("T", 16)
local x = input("x", bf16, { T, 256 })
-- up's rows and down's columns are this rank's half; the head's rows too
-- IO: {"up", KGRT_DTYPE_BF16, 2, {{[{]}}{384, -1}, {256, -1}}, 0, 0, 2},
-- IO: {"down", KGRT_DTYPE_BF16, 2, {{[{]}}{256, -1}, {384, -1}}, 0, 1, 2},
-- IO: {"norm", KGRT_DTYPE_BF16, 1, {{[{]}}{256, -1}}, 0, 0, 0},
-- IO: {"head", KGRT_DTYPE_BF16, 2, {{[{]}}{250, -1}, {256, -1}}, 0, 0, 2},
-- IO: arches,
-- IO-NEXT: 2,
-- IO-NEXT: };
local up = weight("up", bf16, { 384, 256 }, { split = 1 })
local down = weight("down", bf16, { 256, 384 }, { split = 2 })
local norm = weight("norm", bf16, { 256 })
local head = weight("head", bf16, { 250, 256 }, { split = 1, parts = 2 })
-- PLAN-LABEL: static const kgrt_step_t steps[
-- PLAN: s{{[0-9]+}}_args, 0, 0, -1},
-- the partial sums [T, 256] in bf16: T x 256 elements, summed over the ranks
-- PLAN: {0, {256, {0, -1, -1, -1}}, 1, 1, {0, {-1, -1, -1, -1}}, 0LL, 0LL, s[[AR:[0-9]+]]_args, KGRT_COLLECTIVE_ALL_REDUCE, KGRT_DTYPE_BF16, -1},
-- the last row's 250 logits from each rank, gathered in rank order (f32,
-- then bf16)
-- PLAN: {0, {250, {-1, -1, -1, -1}}, 1, 1, {0, {-1, -1, -1, -1}}, 0LL, 0LL, s{{[0-9]+}}_args, KGRT_COLLECTIVE_ALL_GATHER, KGRT_DTYPE_F32, -1},
-- PLAN: {0, {250, {-1, -1, -1, -1}}, 1, 1, {0, {-1, -1, -1, -1}}, 0LL, 0LL, s{{[0-9]+}}_args, KGRT_COLLECTIVE_ALL_GATHER, KGRT_DTYPE_BF16, -1},
local y = x + all_reduce(matmul(silu(matmul(x, up)), down))
local last = embedding(rmsnorm(y, norm), input("last", i32, { 1 }))
output("logits", all_gather(cast(matmul(last, head), f32), { dim = 2 }))
-- along dim 1 the same bytes, then viewed as one row
local rows = all_gather(matmul(last, head))
output("row", cast(reshape(rows, { 1, 500 }), f32))
-- no kernel is a collective
-- HIP-NOT: all_reduce
-- HIP-NOT: all_gather
