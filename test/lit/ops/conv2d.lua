-- conv2d: an implicit GEMM per group on the matmul tiles (targets/*.lua gemm):
-- x [N, 64, 16, 16] (N a sym) against w [128, 64, 3, 3], stride 1, padding 1:
-- rows m = (n, oh, ow), K = 64 * 3 * 3 = 576 in tiles of 32; the A tile is
-- gathered from x (zero in the padding), the B tile a plain copy of w rows.
-- WMMA 16x16x16 on gfx1100, MFMA 32x32x8 on gfx942, in the k-tile loop (the
-- tile sizes and wave split are the targets' data, so not pinned here); an
-- NHWC bf16 one with groups and a bias, added to the f32 sums before the
-- store. No kernel uses scratch.
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s --check-prefixes=CHECK,W32
-- RUN: %kgen --arch gfx942 --emit=hip %s -o - | FileCheck %s --check-prefixes=CHECK,W64
-- RUN: %kgen --arch gfx1100 --emit=asm %s -o - | FileCheck %s --check-prefix=A32
-- RUN: %kgen --arch gfx942 --emit=asm %s -o - | FileCheck %s --check-prefix=A64
-- RUN: %kgen --arch gfx1100 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- RUN: %kgen --arch gfx942 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- RUN: %kgen --arch gfx1100 --emit=table %s -o - | FileCheck %s --check-prefix=TABLE
-- CHECK-LABEL: conv2d_conv2d_{{[0-9a-f]+}}(KG_GLOBAL(const kg_f16) x, KG_GLOBAL(const kg_f16) w, KG_GLOBAL(kg_f16) y, long M)
-- W32: typedef kg_mma_wmma_16x16x16<kg_f16, [[LD:[0-9]+]]> F;
-- W64: typedef kg_mma_mfma_32x32x8<kg_f16, [[LD:[0-9]+]]> F;
-- CHECK: typedef kg_f16 a_tile[{{[0-9]+}} * [[LD]]];
-- CHECK: v = kg_ld(x, ((n * 64 + group * 64 + ci) * 16 + ih) * 16L + iw);
-- CHECK: kg_tile_copy<8>(&Bs[s][r * [[LD]] + c], w, woff + (n0 + r) * 576L + k0 + c, ok);
-- CHECK: typename F::acc_t acc[{{[0-9]+}}][{{[0-9]+}}];
-- CHECK: const float v = acc[i][j][r];
-- CHECK-LABEL: conv2d_conv2d_{{[0-9a-f]+}}(KG_GLOBAL(const kg_bf16) x, KG_GLOBAL(const kg_bf16) w, KG_GLOBAL(const kg_bf16) bias, KG_GLOBAL(kg_bf16) y, long M)
-- W32: typedef kg_mma_wmma_16x16x16<kg_bf16, {{[0-9]+}}> F;
-- W64: typedef kg_mma_mfma_32x32x8<kg_bf16, {{[0-9]+}}> F;
-- CHECK: v = kg_ld(x, ((n * 8 + ih) * 8 + iw) * 32L + group * 16 + ci);
-- CHECK: const float v = acc[i][j][r] + kg_to_f32(kg_ld(bias, oc));
-- CHECK: kg_st(y, m * 48L + oc, kg_from_f32<kg_bf16>(v));
-- A32-LABEL: conv2d_conv2d_{{[0-9a-f]+}}:
-- A32: [[LOOP:.LBB[0-9_]+]]:
-- A32: v_wmma_f32_16x16x16_f16
-- A32: s_cbranch_{{.*}} [[LOOP]]
-- A32-LABEL: conv2d_conv2d_{{[0-9a-f]+}}:
-- A32: v_wmma_f32_16x16x16_bf16
-- A64-LABEL: conv2d_conv2d_{{[0-9a-f]+}}:
-- A64: [[LOOP:.LBB[0-9_]+]]:
-- A64: v_mfma_f32_32x32x8{{_?}}f16
-- A64: s_cbranch_{{.*}} [[LOOP]]
-- A64-LABEL: conv2d_conv2d_{{[0-9a-f]+}}:
-- A64: v_mfma_f32_32x32x8{{_?}}bf16
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
-- the plan: ceil(N * 256 / BM) row tiles x ceil(128 / BN) column tiles;
-- then N * 64 rows x 2 groups (one column tile each: Cout / groups = 24)
-- TABLE-LABEL: static const kgrt_step_t steps[2] = {
-- TABLE-NEXT: {0, {256, {0, -1, -1, -1}}, {{[0-9]+}}, {{[0-9]+}},
-- TABLE-NEXT: {1, {64, {0, -1, -1, -1}}, {{[0-9]+}}, 2,
local N = sym("N", 8)
local x = input("x", f16, { N, 64, 16, 16 })
local w = weight("w", f16, { 128, 64, 3, 3 })
output("y", conv2d(x, w, { padding = 1 }))
local xb = input("xb", bf16, { N, 8, 8, 32 })
local wb = weight("wb", bf16, { 48, 3, 3, 16 })
local bb = weight("bb", bf16, { 48 })
output("yb", conv2d(xb, wb, bb, { layout = "nhwc", groups = 2, padding = 1 }))
