-- matmul, the small-M GEMM's split K on sm_90a (issue 55): at up to 64
-- rows (small_m) the O-like projection (N 4096, K 4096) with its residual
-- add takes the target's gemm_small tile, 64 x 128 on one warpgroup
-- (wgmma), 32 tiles for 132 SMs, so K is split 4 ways (gemm_split: a
-- workgroup an SM, at least 4 k tiles a split): each workgroup takes 16 of
-- the 64 k tiles from kt0, writes its f32 products to kpart and counts
-- itself in kcnt; the last adds the 4 parts in split order and stores
-- through the epilogue. From 65 to 128 rows (2 small_m) a GEMM of its own
-- on the same tile, 64 tiles, splits K 2 ways (the parts planned for 64
-- rows hold 4 splits of 128, no more than 132 workgroups are wanted). The
-- GEMM for more rows, the gate/up pair (which
-- does not split: gemm_grid chooses its tile) and every kernel on gfx1100
-- (no gemm_split) take no parts.
-- RUN: %kgen --arch sm_90a --emit=hip %s -o - | FileCheck %s
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s --check-prefix=GFX
-- CHECK-LABEL: matmul_split_k_sm90a_matmul_add_gemm_{{[0-9a-f]+}}(
-- CHECK-NEXT: KG_GLOBAL(kg_bf16) y, KG_GLOBAL(float) kpart, KG_GLOBAL(int) kcnt, long M) {
-- CHECK-NEXT: typedef kg_mma_wgmma_64x128x16<kg_bf16, 64> F;
-- CHECK: const long batch = 0;
-- CHECK: const int KT = (4096 + 64 - 1) / 64 / 4;
-- CHECK-NEXT: const int split = (int)(rest / 32), kt0 = split * KT;
-- CHECK: const long k0 = (long)(kt0 + kt) * 64;
-- CHECK: kg_st(kpart, ((long)split * M + m) * 4096L + n, acc[i][j][r]);
-- CHECK: last = kg_atomic_add(kcnt, at, 1) == 4 - 1;
-- CHECK-NEXT: if (last)
-- CHECK-NEXT: kg_st(kcnt, at, 0);
-- CHECK: if (!last)
-- CHECK-NEXT: return;
-- CHECK: for (int s = 0; s < 4; s++)
-- CHECK-NEXT: sum += kg_ld(kpart, ((long)s * M + m) * 4096L + n);
-- CHECK: auto epi = [&](long idx, float acc0) {
-- CHECK-LABEL: matmul_split_k_sm90a_matmul_add_gemm_{{[0-9a-f]+}}(
-- CHECK-NEXT: KG_GLOBAL(kg_bf16) y, KG_GLOBAL(float) kpart, KG_GLOBAL(int) kcnt, long M) {
-- CHECK-NEXT: typedef kg_mma_wgmma_64x128x16<kg_bf16, 64> F;
-- CHECK: const int KT = (4096 + 64 - 1) / 64 / 2;
-- CHECK-LABEL: matmul_split_k_sm90a_matmul_add_gemm_{{[0-9a-f]+}}(
-- CHECK-NEXT: KG_GLOBAL(kg_bf16) y, long M) {
-- CHECK-NOT: kpart
-- CHECK-LABEL: matmul_split_k_sm90a_matmul_silu_matmul_gemm_{{[0-9a-f]+}}(
-- CHECK-SAME: KG_GLOBAL(kg_bf16) y, long M) {
-- CHECK-NOT: kpart
-- GFX-NOT: kpart
local M = sym("M", 256)
local x = input("x", bf16, { M, 4096 })
local r = input("r", bf16, { M, 4096 })
local wo = weight("wo", bf16, { 4096, 4096 })
local wg = weight("wg", bf16, { 1024, 4096 })
local wu = weight("wu", bf16, { 1024, 4096 })
local a = { small_m = 64 }
output("y", matmul(x, wo, a) + r)
output("h", silu(matmul(x, wg, a)) * matmul(x, wu, a))
