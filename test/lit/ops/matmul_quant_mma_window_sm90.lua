-- matmul with q4_0 weights and up to 8 rows of bf16 x at a down
-- projection's K = 14336 on sm_90: x (8 rows of 28 KiB) does not fit the
-- LDS beside gemv_qm.hip's ring, so it is staged in two windows of a step
-- (XW): the first before the loop, each next one by the first slot of a
-- step, after the barrier that frees its buffer (four 16-byte loads of a
-- block per thread and turn, as the whole-x staging does); the ring has 3
-- slots (cp.async.wait_group 1: two steps in flight); a workgroup's two
-- tasks keep their own accumulators in registers, nothing spills.
-- REQUIRES: nvrtc
-- RUN: %kgen --arch sm_90 --emit=asm %s -o - | FileCheck %s
-- RUN: %kgen --arch sm_90 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- CHECK-LABEL: .entry matmul_quant_mma_window_sm90_matmul_gemv_qm_{{[0-9a-f]+}}(
-- CHECK-NOT: .local
-- CHECK: cp.async.commit_group;
-- CHECK: griddepcontrol.wait;
-- CHECK-COUNT-4: ld.global.nc.v4.u32
-- CHECK: cp.async.wait_group 1;
-- CHECK: bar.sync 0;
-- CHECK-COUNT-4: ld.global.nc.v4.u32
-- CHECK-COUNT-16: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
-- CHECK-NOT: .local
-- CHECK: cp.async.wait_group 1;
-- META: .name: matmul_quant_mma_window_sm90_matmul_gemv_qm_{{[0-9a-f]+}}
-- META: .shared_bytes: 0
-- META: .stack_bytes: 0
local M = sym("M", 8)
local x = input("x", bf16, { M, 14336 })
output("y", matmul(x, weight("w", q4_0, { 4096, 14336 })))
