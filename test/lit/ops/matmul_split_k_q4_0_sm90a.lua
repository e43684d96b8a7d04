-- matmul, the small-M GEMM's split K with a Q4_0 w on sm_90a (issue 55):
-- at up to 64 rows (small_m) the O-like projection (N 4096, K 4096) with
-- its residual add takes the gemm_small tile, 64 x 128 on one warpgroup,
-- 32 tiles for 132 SMs, so K is split 4 ways as for a float w: each
-- workgroup copies and decodes the blocks of its 16 k tiles from kt0 (QRAW)
-- and the last of a tile's splits adds the parts; from 65 to 128 rows
-- (the middle range) K is split 2 ways. The GEMM for more rows takes no
-- parts.
-- RUN: %kgen --arch sm_90a --emit=hip %s -o - | FileCheck %s
-- CHECK-LABEL: matmul_split_k_q4_0_sm90a_matmul_add_gemm_{{[0-9a-f]+}}(
-- CHECK-SAME: KG_GLOBAL(const unsigned short) w,
-- CHECK-NEXT: KG_GLOBAL(const kg_bf16) e2, KG_GLOBAL(kg_bf16) y, KG_GLOBAL(float) kpart, KG_GLOBAL(int) kcnt, long M) {
-- CHECK-NEXT: typedef kg_mma_wgmma_64x128x16<kg_bf16, 64> F;
-- CHECK: const int KT = (4096 + 64 - 1) / 64 / 4;
-- CHECK-NEXT: const int split = (int)(rest / 32), kt0 = split * KT;
-- CHECK: const long k0 = (long)(kt0 + kt) * 64;
-- CHECK: kg_async_copy<2>((unsigned short *)(Bq + s *
-- CHECK-NEXT: (wrow * 2304L + k0 / 32 * 18 + c) / 2
-- CHECK: decode_tile(0, 0);
-- CHECK: kg_st(kpart, ((long)split * M + m) * 4096L + n, acc[i][j][r]);
-- CHECK: last = kg_atomic_add(kcnt, at, 1) == 4 - 1;
-- CHECK: for (int s = 0; s < 4; s++)
-- CHECK-NEXT: sum += kg_ld(kpart, ((long)s * M + m) * 4096L + n);
-- CHECK-LABEL: matmul_split_k_q4_0_sm90a_matmul_add_gemm_{{[0-9a-f]+}}(
-- CHECK-NEXT: KG_GLOBAL(const kg_bf16) e2, KG_GLOBAL(kg_bf16) y, KG_GLOBAL(float) kpart, KG_GLOBAL(int) kcnt, long M) {
-- CHECK: const int KT = (4096 + 64 - 1) / 64 / 2;
-- CHECK-LABEL: matmul_split_k_q4_0_sm90a_matmul_add_gemm_{{[0-9a-f]+}}(
-- CHECK-NEXT: KG_GLOBAL(const kg_bf16) e2, KG_GLOBAL(kg_bf16) y, long M) {
-- CHECK-NOT: kpart
local M = sym("M", 256)
local x = input("x", bf16, { M, 4096 })
local r = input("r", bf16, { M, 4096 })
local wo = weight("wo", q4_0, { 4096, 4096 })
output("y", matmul(x, wo, { small_m = 64 }) + r)
