-- matmul with q8_0 and q4_0 weights and f16 or bf16 x on sm_90: the GEMV is
-- templates/gemv_qmma.hip, on the tensor cores. 16 rows of w per workgroup
-- (896 workgroups for N = 14336), 4 warps splitting K, each copying chunks of
-- 8 blocks per row into a shared-memory ring with cp.async (4 stages of
-- q4_0, 2 of q8_0); per block two mma.sync m16n8k16 (8 per chunk), the
-- weights made f16/bf16 pairs from their bits with packed FMAs, no
-- int-to-float conversion (cvt.rn.f32.s32 / .u32) anywhere in the kernel.
-- f32 x, q4_k and a K that is not a multiple of 256 keep gemv_q.hip (the
-- q4_k one shows the I2F check can fail: its 6-bit scales are converted),
-- and so does every quantized GEMV on gfx1100.
-- REQUIRES: nvrtc
-- RUN: %kgen --arch sm_90 --emit=asm %s -o - | FileCheck %s
-- RUN: %kgen --arch sm_90 --emit=hip %s -o - | FileCheck %s --check-prefix=SRC
-- RUN: %kgen --arch sm_90 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- RUN: %kgen --arch sm_90 --emit=table %s -o - | FileCheck %s --check-prefix=TABLE
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s --check-prefix=AMD
-- CHECK-LABEL: .entry matmul_quant_mma_sm90_0_matmul(
-- CHECK-NOT: cvt.rn.f32.{{[su]}}32
-- CHECK: cp.async.cg.shared.global
-- CHECK-NOT: cvt.rn.f32.{{[su]}}32
-- CHECK: cp.async.wait_group 2;
-- CHECK-NOT: cvt.rn.f32.{{[su]}}32
-- CHECK: fma.rn.bf16x2
-- CHECK-NOT: cvt.rn.f32.{{[su]}}32
-- CHECK-COUNT-16: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
-- CHECK-NOT: cvt.rn.f32.{{[su]}}32
-- CHECK-LABEL: .entry matmul_quant_mma_sm90_1_matmul(
-- CHECK-NOT: cvt.rn.f32.{{[su]}}32
-- CHECK: cp.async.wait_group 0;
-- CHECK-NOT: cvt.rn.f32.{{[su]}}32
-- CHECK: fma.rn.f16x2
-- CHECK-NOT: cvt.rn.f32.{{[su]}}32
-- CHECK-COUNT-16: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
-- CHECK-NOT: cvt.rn.f32.{{[su]}}32
-- CHECK-LABEL: .entry matmul_quant_mma_sm90_2_matmul(
-- CHECK-NOT: mma.sync
-- CHECK-LABEL: .entry matmul_quant_mma_sm90_3_matmul(
-- CHECK-NOT: mma.sync
-- CHECK: cvt.rn.f32.s32
-- CHECK-LABEL: .entry matmul_quant_mma_sm90_4_matmul(
-- CHECK-NOT: mma.sync
-- SRC-LABEL: matmul_quant_mma_sm90_0_matmul(KG_GLOBAL(const kg_bf16) x, KG_GLOBAL(const unsigned short) w, KG_GLOBAL(kg_bf16) y, long M)
-- SRC: alignas(16) __shared__ unsigned ring[4 * 4 * 16 * 36 + 4];
-- SRC: kg_q4_0_mma_a<1>(r0, r1, b * 18, t, a);
-- SRC: kg_mma_16x8x16<1>(cc, a[1], bx[1]);
-- SRC-LABEL: matmul_quant_mma_sm90_1_matmul(KG_GLOBAL(const kg_f16) x, KG_GLOBAL(const unsigned short) w, KG_GLOBAL(kg_f16) y, long M)
-- SRC: alignas(16) __shared__ unsigned ring[2 * 4 * 16 * 68 + 4];
-- SRC: kg_q8_0_mma_a<0>(r0, r1, b * 34, t, a);
-- SRC-LABEL: matmul_quant_mma_sm90_2_matmul(KG_GLOBAL(const float) x,
-- SRC: kg_q8_0_lds32(stage + slice + c * SW, g, q[c], sc[c], &mn[c]);
-- SRC-LABEL: matmul_quant_mma_sm90_3_matmul(KG_GLOBAL(const kg_f16) x,
-- SRC: kg_q4k_lds32(stage + slice + c * SW, g, q[c], sc[c], &mn[c]);
-- SRC-LABEL: matmul_quant_mma_sm90_4_matmul(KG_GLOBAL(const kg_f16) x,
-- SRC: kg_q4_0_lds32(stage + slice + c * SW, g, q[c], sc[c], &mn[c]);
-- META: .name: matmul_quant_mma_sm90_0_matmul
-- META: .shared_bytes: 36880
-- META-NEXT: .stack_bytes: 0
-- META: .max_threads: 128
-- META: .name: matmul_quant_mma_sm90_1_matmul
-- META: .shared_bytes: 34832
-- META-NEXT: .stack_bytes: 0
-- TABLE: {"matmul_quant_mma_sm90_0_matmul", 128,
-- TABLE: static const kgrt_step_t steps[5] = {
-- TABLE-NEXT: {0, {14336, {-1, -1, -1, -1}}, 16, 1,
-- TABLE-NEXT: {1, {14336, {-1, -1, -1, -1}}, 16, 1,
-- AMD-LABEL: matmul_quant_mma_sm90_0_matmul(
-- AMD-NOT: _mma_a<
-- AMD: kg_q4_0_lds32(stage
-- AMD-LABEL: matmul_quant_mma_sm90_1_matmul(
-- AMD-NOT: _mma_a<
-- AMD: kg_q8_0_lds32(stage
-- AMD-NOT: _mma_a<
local x = input("x", bf16, { 1, 4096 })
local xh = input("xh", f16, { 1, 4096 })
local xf = input("xf", f32, { 1, 4096 })
local xo = input("xo", f16, { 1, 4128 })
output("y", matmul(x, weight("w", q4_0, { 14336, 4096 })))
output("z", matmul(xh, weight("v", q8_0, { 14336, 4096 })))
output("f", matmul(xf, weight("u", q8_0, { 256, 4096 })))
output("k", matmul(xh, weight("kw", q4_k, { 256, 4096 })))
output("o", matmul(xo, weight("ow", q4_0, { 256, 4128 })))
