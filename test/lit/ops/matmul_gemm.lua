-- matmul, the GEMM path: T rows (a sym, max 512) against w [4096, 4096]; the
-- plan runs the GEMV kernel for T <= 8 and the GEMM one above. The GEMM
-- kernel multiplies 128 x 128 tiles of y on the target's matrix instructions
-- (targets/*.lua gemm): WMMA on gfx1100 (8 waves of 32 x 64: 2 x 4
-- fragments, 2 k-steps per 32-wide k tile = 16 v_wmma per tile), MFMA
-- 32x32x8 on gfx942 (2 x 2 fragments, 4 k-steps = 16 v_mfma), mma.sync
-- m16n8k16 on sm_90 with ldmatrix and cp.async. No kernel uses scratch.
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s --check-prefixes=CHECK,W32
-- RUN: %kgen --arch gfx942 --emit=hip %s -o - | FileCheck %s --check-prefixes=CHECK,W64
-- RUN: %kgen --arch gfx1100 --emit=asm %s -o - | FileCheck %s --check-prefix=A32
-- RUN: %kgen --arch gfx942 --emit=asm %s -o - | FileCheck %s --check-prefix=A64
-- RUN: %kgen --arch gfx1100 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- RUN: %kgen --arch gfx942 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- RUN: %kgen --arch gfx1100 --emit=table %s -o - | FileCheck %s --check-prefix=TABLE
-- CHECK: #define KG_MMA_{{WMMA|MFMA}} 1
-- CHECK-LABEL: matmul_gemm_matmul_gemv_{{[0-9a-f]+}}(
-- CHECK-LABEL: matmul_gemm_matmul_gemm_{{[0-9a-f]+}}(KG_GLOBAL(const kg_f16) x, KG_GLOBAL(const kg_f16) w, KG_GLOBAL(kg_f16) y, long M)
-- W32: typedef kg_mma_wmma_16x16x16<kg_f16, 40> F;
-- W64: typedef kg_mma_mfma_32x32x8<kg_f16, 40> F;
-- CHECK: KG_SHARED_BUFFER(lds, 40960);
-- CHECK: typedef kg_f16 a_tile[128 * 40];
-- CHECK: kg_tile_copy<8>(&As[s][F::at(r, c)], x,
-- CHECK: kg_tile_copy<8>(&Bs[s][F::at(r, c)], w,
-- W32: typename F::acc_t acc[2][4];
-- W64: typename F::acc_t acc[2][2];
-- CHECK-LABEL: matmul_gemm_matmul_gemm_{{[0-9a-f]+}}(KG_GLOBAL(const kg_bf16) x
-- W32: typedef kg_mma_wmma_16x16x16<kg_bf16, 40> F;
-- W64: typedef kg_mma_mfma_32x32x8<kg_bf16, 40> F;
-- the k-tile loop body: every fragment product, then the branch back
-- A32-LABEL: matmul_gemm_matmul_gemm_{{[0-9a-f]+}}:
-- A32: [[LOOP:.LBB[0-9_]+]]:
-- A32-COUNT-16: v_wmma_f32_16x16x16_f16
-- A32: s_cbranch_{{.*}} [[LOOP]]
-- A32-LABEL: matmul_gemm_matmul_gemm_{{[0-9a-f]+}}:
-- A32-COUNT-16: v_wmma_f32_16x16x16_bf16
-- A64-LABEL: matmul_gemm_matmul_gemm_{{[0-9a-f]+}}:
-- A64: [[LOOP:.LBB[0-9_]+]]:
-- A64-COUNT-16: v_mfma_f32_32x32x8{{_?}}f16
-- A64: s_cbranch_{{.*}} [[LOOP]]
-- A64-LABEL: matmul_gemm_matmul_gemm_{{[0-9a-f]+}}:
-- A64-COUNT-16: v_mfma_f32_32x32x8{{_?}}bf16
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
-- the plan: GEMV (4096 columns, 8 per workgroup) when T <= 8; GEMM over ceil(T / 128) x 32 tiles when T >= 9
-- TABLE-LABEL: static const kgrt_step_t steps[4] = {
-- TABLE-NEXT: {0, {4096, {-1, -1, -1, -1}}, 8, 1, {1, {0, -1, -1, -1}}, 0LL, 8LL, s0_args, 0, 0, -1},
-- TABLE-NEXT: {1, {1, {0, -1, -1, -1}}, 128, 32, {1, {0, -1, -1, -1}}, 9LL, 9223372036854775807LL, s1_args, 0, 0, -1},
local T = sym("T", 512)
local x = input("x", f16, { T, 4096 })
local w = weight("w", f16, { 4096, 4096 })
output("y", matmul(x, w))
local xb = input("xb", bf16, { T, 4096 })
local wb = weight("wb", bf16, { 4096, 4096 })
output("yb", matmul(xb, wb))
