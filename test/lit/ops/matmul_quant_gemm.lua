-- matmul with GGUF quantized weights, the GEMM path (templates/gemm.hip with
-- QUANT): T rows (a sym, max 512); the plan runs the GEMV (gemv_q.hip) for
-- T <= 8 and the GEMM above. The GEMM's B tile is decoded straight from the
-- blocks (w as 16-bit units): each thread takes a group of 32 weights of a
-- row (lib_quant.hip's _gl32 decoders) and stores them into LDS as x's
-- dtype, so the k-loop multiplies on the target's matrix instructions as for
-- float weights: 16 v_wmma per 32-wide k tile on gfx1100, 16 v_mfma 32x32x8
-- on gfx942. q4_k with f16 x at 4096 x 4096; q8_0 with f32 x, whose FMA tile
-- (bk 16 on the targets) takes bk = 32, one decoder group; q6_k with bf16 x
-- and silu(. + bias) fused into both kernels. No kernel uses scratch.
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s --check-prefixes=CHECK,W32
-- RUN: %kgen --arch gfx942 --emit=hip %s -o - | FileCheck %s --check-prefixes=CHECK,W64
-- RUN: %kgen --arch gfx1100 --emit=asm %s -o - | FileCheck %s --check-prefix=A32
-- RUN: %kgen --arch gfx942 --emit=asm %s -o - | FileCheck %s --check-prefix=A64
-- RUN: %kgen --arch gfx1100 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- RUN: %kgen --arch gfx942 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- RUN: %kgen --arch gfx1100 --emit=table %s -o - | FileCheck %s --check-prefix=TABLE
-- CHECK-LABEL: matmul_quant_gemm_matmul_gemv_q_{{[0-9a-f]+}}(KG_GLOBAL(const kg_f16) x, KG_GLOBAL(const unsigned short) w, KG_GLOBAL(kg_f16) y, long M)
-- CHECK: float acc[RW][8];
-- CHECK-LABEL: matmul_quant_gemm_matmul_gemm_{{[0-9a-f]+}}(KG_GLOBAL(const kg_f16) x, KG_GLOBAL(const unsigned short) w, KG_GLOBAL(kg_f16) y, long M)
-- W32: typedef kg_mma_wmma_16x16x16<kg_f16, 40> F;
-- W64: typedef kg_mma_mfma_32x32x8<kg_f16, 40> F;
-- CHECK: kg_tile_copy<8>(&As[s][F::at(r, c)], x,
-- CHECK-NOT: kg_tile_copy<8>(&Bs
-- CHECK: for (int u = tid; u < 128 * (32 / 32); u += 256) {
-- CHECK: const long n = ok ? n0 + r : 4096 - 1;
-- CHECK: kg_q4k_gl32(wsel, wrow * 2304L, ok ? (k0 + c) / 32 : 0, q, sc, &mn);
-- CHECK: Bs[s][F::at(r, c + e)] = kg_from_f32<kg_f16>(ok ? sc[e >> 4] * q[e] - mn : 0.0f);
-- CHECK: return kg_from_f32<kg_f16>(acc0);
-- f32 x: the FMA fragment over k tiles of 32 (LD = 36), K = 96
-- CHECK-LABEL: matmul_quant_gemm_matmul_gemm_{{[0-9a-f]+}}(KG_GLOBAL(const float) x, KG_GLOBAL(const unsigned short) w, KG_GLOBAL(float) y, long M)
-- W32: typedef kg_mma_fma<float, 36, 32> F;
-- W64: typedef kg_mma_fma<float, 36, 64> F;
-- CHECK: const long n = ok ? n0 + r : 129 - 1;
-- CHECK: kg_q8_0_gl32(wsel, wrow * 102L, ok ? (k0 + c) / 32 : 0, q, sc, &mn);
-- CHECK: Bs[s][F::at(r, c + e)] = kg_from_f32<float>(
-- the epilogue, in the GEMV and the GEMM alike
-- CHECK-LABEL: matmul_quant_gemm_matmul_add_silu_gemv_q_{{[0-9a-f]+}}(KG_GLOBAL(const kg_bf16) x, KG_GLOBAL(const unsigned short) w,
-- CHECK-NEXT: KG_GLOBAL(const kg_bf16) e2, KG_GLOBAL(kg_bf16) y, long M)
-- CHECK: const float a2 = kg_to_f32(kg_ld(e2, idx % 72L));
-- CHECK: kg_st(y, idx, kg_from_f32<kg_bf16>(kg_silu((acc0 + a2))));
-- CHECK-LABEL: matmul_quant_gemm_matmul_add_silu_gemm_{{[0-9a-f]+}}(KG_GLOBAL(const kg_bf16) x, KG_GLOBAL(const unsigned short) w,
-- CHECK-NEXT: KG_GLOBAL(const kg_bf16) e2, KG_GLOBAL(kg_bf16) y, long M)
-- CHECK: const long n = ok ? n0 + r : 72 - 1;
-- CHECK: kg_q6k_gl32(wsel, wrow * 210L,
-- CHECK: const float a2 = kg_to_f32(kg_ld(e2, idx % 72L));
-- CHECK: return kg_from_f32<kg_bf16>(kg_silu((acc0 + a2)));
-- the k-tile loop: the block that multiplies is in the loop (no label
-- outside a loop between), 16 products, then the loop's header
-- A32-LABEL: matmul_quant_gemm_matmul_gemm_{{[0-9a-f]+}}:
-- A32: ; in Loop: Header=[[HDR:BB[0-9_]+]] Depth=1
-- A32-NOT: {{^\.LBB[0-9_]+:$}}
-- A32-COUNT-16: v_wmma_f32_16x16x16_f16
-- A32-NOT: {{^\.LBB[0-9_]+:$}}
-- A32: .L[[HDR]]:{{ +}}; =>This Inner Loop Header: Depth=1
-- A32-LABEL: matmul_quant_gemm_matmul_add_silu_gemm_{{[0-9a-f]+}}:
-- A32: ; in Loop: Header=[[HDR:BB[0-9_]+]] Depth=1
-- A32-COUNT-16: v_wmma_f32_16x16x16_bf16
-- A64-LABEL: matmul_quant_gemm_matmul_gemm_{{[0-9a-f]+}}:
-- A64: ; in Loop: Header=[[HDR:BB[0-9_]+]] Depth=1
-- A64-NOT: {{^\.LBB[0-9_]+:$}}
-- A64-COUNT-16: v_mfma_f32_32x32x8{{_?}}f16
-- A64-NOT: {{^\.LBB[0-9_]+:$}}
-- A64: .L[[HDR]]:{{ +}}; =>This Inner Loop Header: Depth=1
-- A64-LABEL: matmul_quant_gemm_matmul_add_silu_gemm_{{[0-9a-f]+}}:
-- A64: ; in Loop: Header=[[HDR:BB[0-9_]+]] Depth=1
-- A64-COUNT-16: v_mfma_f32_32x32x8{{_?}}bf16
-- META: .name: matmul_quant_gemm_matmul_gemv_q_{{[0-9a-f]+}}
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
-- the plan: per product the GEMV when T <= 8 (its N columns in one group,
-- units and per block N, over a resident grid: 4096 / 16 columns per task =
-- 256 tasks, repeat 256 workgroups) and the GEMM over ceil(T / BM)
-- x column tiles when T >= 9 (4096 / 128 = 32; 129 / 64 -> 3; 72 / 128 -> 1)
-- TABLE-LABEL: static const kgrt_step_t steps[6] = {
-- TABLE-NEXT: {0, {4096, {-1, -1, -1, -1}}, 4096, 256, {1, {0, -1, -1, -1}}, 0LL, 8LL, s0_args, 0, 0, -1},
-- TABLE-NEXT: {1, {1, {0, -1, -1, -1}}, 128, 32, {1, {0, -1, -1, -1}}, 9LL, 9223372036854775807LL, s1_args, 0, 0, -1},
-- TABLE-NEXT: {2, {129, {-1, -1, -1, -1}}, 129, 129, {1, {0, -1, -1, -1}}, 0LL, 8LL, s2_args, 0, 0, -1},
-- TABLE-NEXT: {3, {1, {0, -1, -1, -1}}, 64, 3, {1, {0, -1, -1, -1}}, 9LL, 9223372036854775807LL, s3_args, 0, 0, -1},
-- TABLE-NEXT: {4, {72, {-1, -1, -1, -1}}, 72, 9, {1, {0, -1, -1, -1}}, 0LL, 8LL, s4_args, 0, 0, -1},
-- TABLE-NEXT: {5, {1, {0, -1, -1, -1}}, 128, 1, {1, {0, -1, -1, -1}}, 9LL, 9223372036854775807LL, s5_args, 0, 0, -1},
local T = sym("T", 512)
local x = input("x", f16, { T, 4096 })
local w = weight("w", q4_k, { 4096, 4096 })
output("y", matmul(x, w))
local v = input("v", f32, { T, 96 })
local u = weight("u", q8_0, { 129, 96 })
output("z", matmul(v, u))
local a = input("a", bf16, { T, 256 })
local b = weight("b", q6_k, { 72, 256 })
local bias = weight("bias", bf16, { 72 })
output("c", silu(matmul(a, b) + bias))
