-- matmul's split K, the counts of finished splits (issue 55): a splitting
-- kernel counts at its tile's index, up to ceil(M / BM) ceil(N / BN)
-- tiles, so the counts cover the most rows any GEMM that splits serves
-- (small_m, or a middle range's) at the smallest tile, 16 x 16. Here a
-- 16 x 16 tile with small_m 32: up to 32 rows split 8 ways, 33 .. 64 4
-- ways, 65 .. 128 2 ways over 8 x 4 tiles: 32 counts (128 bytes), not the
-- 8 that small_m's rows need; 129 .. 512 does not split.
-- RUN: %kgen --arch sm_90a --emit=table --no-sim %s -o - | FileCheck %s
-- CHECK-LABEL: s1_args[6] = {
-- CHECK: {KGRT_SPACE_ARENA, 0, 256, {65536, {-1, -1, -1, -1}}, {0, {-1, -1, -1, -1}}, {4096, {0, -1, -1, -1}}, "kpart"},
-- CHECK-NEXT: {KGRT_SPACE_ARENA, 0, 0, {128, {-1, -1, -1, -1}}
-- CHECK-LABEL: s3_args[6] = {
-- CHECK: {KGRT_SPACE_ARENA, 0, 256, {65536, {-1, -1, -1, -1}}, {0, {-1, -1, -1, -1}}, {1024, {0, -1, -1, -1}}, "kpart"},
-- CHECK-NEXT: {KGRT_SPACE_ARENA, 0, 0, {128, {-1, -1, -1, -1}}
-- CHECK-LABEL: s4_args[4] = {
-- CHECK-NOT: KGRT_SPACE_ARENA, 0, 0, {128,
-- CHECK: };
local M = sym("M", 512)
local x = input("x", bf16, { M, 2048 })
local w = weight("w", bf16, { 64, 2048 })
output("y", matmul(x, w, { small_m = 32, tile = { mma = "mma", shape = { 16, 8, 16 }, bm = 16,
  bn = 16, bk = 64, waves_m = 1, waves_n = 1, stages = 2 } }))
