-- A gate/up pair of q4_0 matmuls with small_m = 64 (a batched decode
-- table's, lua/models/llama.lua) over bf16 x at Llama-3-8B shapes on
-- sm_90a: one row takes gemv_q, 2 to 8 rows gemv_qm, and 9 to 64 rows
-- gemv_qm's wide variant (templates/gemv_qm.hip), not the dequantizing
-- GEMM, which keeps the rows above 64 (a prefill chunk). The wide kernel
-- stages x in windows (XW: 64 rows of a step's 8 blocks); each block's A
-- fragment decoded once is multiplied with the 8 B fragments of 8 rows of
-- x each (16 mma.sync a block), each task of the two its own
-- accumulators; nothing spills. A table for sm_90a and gfx942 keeps the
-- GEMM for 9 to 64 rows (here the same kernel as above 64 rows): the
-- variants are one list for every arch, and gfx942 has no mma.sync.
-- REQUIRES: nvrtc
-- RUN: %kgen --arch sm_90a --emit=table %s -o - | FileCheck %s --check-prefix=TABLE
-- RUN: %kgen --arch sm_80 --emit=table %s -o - | FileCheck %s --check-prefix=TABLE
-- RUN: %kgen --arch sm_90a --emit=asm %s -o - | FileCheck %s
-- RUN: %kgen --arch sm_90a --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- RUN: %kgen --arch sm_90a,gfx942 --no-sim %s -o %t | FileCheck %s --check-prefix=MIXED
-- TABLE-LABEL: kgrt_kernel_t kernels[4] = {
-- TABLE-NEXT: {"matmul_quant_mma_wide_sm90a_matmul_silu_matmul_gemv_q_{{[0-9a-f]+}}",
-- TABLE-NEXT: {"matmul_quant_mma_wide_sm90a_matmul_silu_matmul_gemv_qm_{{[0-9a-f]+}}",
-- TABLE-NEXT: {"matmul_quant_mma_wide_sm90a_matmul_silu_matmul_gemv_qm_{{[0-9a-f]+}}",
-- TABLE-NEXT: {"matmul_quant_mma_wide_sm90a_matmul_silu_matmul_gemm_{{[0-9a-f]+}}",
-- TABLE-LABEL: kgrt_step_t steps[4] = {
-- TABLE-NEXT: {0, {{.*}}, 0LL, 1LL,
-- TABLE-NEXT: {1, {{.*}}, 2LL, 8LL,
-- TABLE-NEXT: {2, {{.*}}, 9LL, 64LL,
-- TABLE-NEXT: {3, {{.*}}, 65LL, 9223372036854775807LL,
-- CHECK-LABEL: .entry matmul_quant_mma_wide_sm90a_matmul_silu_matmul_gemv_qm_{{[0-9a-f]+}}(
-- CHECK-LABEL: .entry matmul_quant_mma_wide_sm90a_matmul_silu_matmul_gemv_qm_{{[0-9a-f]+}}(
-- CHECK-NOT: .local
-- CHECK: griddepcontrol.wait;
-- CHECK: ld.global.nc.v4.u32
-- CHECK: cp.async.wait_group 1;
-- CHECK: bar.sync 0;
-- CHECK: or.b32 {{.*}}, 1124090624;
-- CHECK-COUNT-16: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
-- CHECK-NOT: .local
-- CHECK-LABEL: .entry matmul_quant_mma_wide_sm90a_matmul_silu_matmul_gemm_{{[0-9a-f]+}}(
-- META: .name: matmul_quant_mma_wide_sm90a_matmul_silu_matmul_gemv_qm_{{[0-9a-f]+}}
-- META: .stack_bytes: 0
-- META: .name: matmul_quant_mma_wide_sm90a_matmul_silu_matmul_gemv_qm_{{[0-9a-f]+}}
-- META: .stack_bytes: 0
-- MIXED: _gemv_qm_{{[0-9a-f]+}} sm_90a
-- MIXED-NEXT: _gemm_{{[0-9a-f]+}} sm_90a
-- MIXED-NEXT: _gemv_q_{{[0-9a-f]+}} gfx942
local M = sym("M", 512)
local x = input("x", bf16, { M, 4096 })
local gate = matmul(x, weight("w_gate", q4_0, { 14336, 4096 }), { small_m = 64 })
local up = matmul(x, weight("w_up", q4_0, { 14336, 4096 }), { small_m = 64 })
output("y", silu(gate) * up)
