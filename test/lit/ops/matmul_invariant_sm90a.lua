-- matmul with invariant = true on sm_90a (Llama-3-8B's gate/up shapes, up to
-- 8 rows of bf16 x): the GEMV runs on the tensor cores (templates/
-- gemv_mma.hip), one kernel for every M. Each step a lane issues all its
-- 128-bit loads first (8 chunks: two rows of w and one of x each; with the
-- gate/up pair and the norm taken in, 4 chunks with two rows of w1 as well)
-- and then the m16n8k16 products (two per chunk and weight); the waves' sums
-- meet in LDS after one barrier. Nothing spills.
-- REQUIRES: nvrtc
-- RUN: %kgen --arch sm_90a --emit=asm %s -o - | FileCheck %s
-- RUN: %kgen --arch sm_90a --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- CHECK-LABEL: .entry matmul_invariant_sm90a_matmul_{{[0-9a-f]+}}(
-- CHECK: griddepcontrol.wait;
-- CHECK-COUNT-24: ld.global.nc.v4.u32
-- CHECK-NOT: ld.global
-- CHECK-COUNT-16: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
-- CHECK: st.shared.f32
-- CHECK: bar.sync 0;
-- CHECK: ld.shared.f32
-- CHECK: st.global.u16
-- CHECK-LABEL: .entry matmul_invariant_sm90a_rmsnorm_matmul_silu_gemv_{{[0-9a-f]+}}(
-- CHECK: griddepcontrol.wait;
-- CHECK-COUNT-20: ld.global.nc.v4.u32
-- CHECK-COUNT-16: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
-- CHECK: bar.sync 0;
-- CHECK: st.global.u16
-- META: .name: matmul_invariant_sm90a_matmul_{{[0-9a-f]+}}
-- META: .stack_bytes: 0
-- META: .name: matmul_invariant_sm90a_rmsnorm_matmul_silu_gemv_{{[0-9a-f]+}}
-- META: .stack_bytes: 0
local M = sym("M", 8)
local x = input("x", bf16, { M, 4096 })
local w = weight("w", bf16, { 14336, 4096 })
local wu = weight("wu", bf16, { 14336, 4096 })
local g = weight("g", bf16, { 4096 })
local h = rmsnorm(x, g, { eps = 1e-5 })
output("y", matmul(x, w, { invariant = true }))
output("z", mul(silu(matmul(h, w, { invariant = true })), matmul(h, wu, { invariant = true })))
