-- A model over 2 ranks as a pipeline (on_rank): each kernel step carries the
-- rank it runs on, a value read on another rank comes by one broadcast step
-- from its own rank (however many ops and outputs read it), every output is
-- on every rank, and ops outside on_rank run on every rank (-1).
-- RUN: rm -rf %t; %kgen --arch gfx1100 %s -o %t > /dev/null
-- RUN: FileCheck %s < %t/pipeline_gfx1100.c
-- RUN: FileCheck %s --check-prefix=IO < %t/pipeline.c
ranks(2)
local T = sym("T", 16)
local x = input("x", f32, { T, 128 })
local w0 = weight("w0", f32, { 128, 128 })
local w1 = weight("w1", f32, { 128, 128 })
local g = weight("g", f32, { 128 })
-- CHECK-LABEL: static const kgrt_step_t steps[9] = {
-- rank 0: x @ w0 with silu in its epilogue (GEMV and GEMM steps)
-- CHECK-NEXT: s0_args, 0, 0, 0},
-- CHECK-NEXT: s1_args, 0, 0, 0},
-- h [T, 128] f32 from rank 0 to every rank, once for both readers
-- CHECK-NEXT: {0, {128, {0, -1, -1, -1}}, 1, 1, {0, {-1, -1, -1, -1}}, 0LL, 0LL, s2_args, KGRT_COLLECTIVE_BROADCAST, KGRT_DTYPE_F32, 0},
-- rank 1: h @ w1, the norm, + h
-- CHECK-NEXT: s3_args, 0, 0, 1},
-- CHECK-NEXT: s4_args, 0, 0, 1},
-- CHECK-NEXT: s5_args, 0, 0, 1},
-- CHECK-NEXT: s6_args, 0, 0, 1},
-- the output y from rank 1
-- CHECK-NEXT: s7_args, KGRT_COLLECTIVE_BROADCAST, KGRT_DTYPE_F32, 1},
-- exp(x) on every rank
-- CHECK-NEXT: s8_args, 0, 0, -1},
-- CHECK-NEXT: };
-- IO: arches,
-- IO-NEXT: 2,
-- IO-NEXT: };
local h = on_rank(0, function() return silu(matmul(x, w0)) end)
local y = on_rank(1, function() return rmsnorm(matmul(h, w1), g) + h end)
output("y", y)
output("h", h)
output("z", exp(x))
