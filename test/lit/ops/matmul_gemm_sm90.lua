-- matmul, the GEMM path on sm_90: mma.sync m16n8k16 fed by ldmatrix from
-- shared tiles filled with cp.async (16 bytes, zero fill past M, N, K), a
-- 3-stage ring in dynamic shared memory; 8 warps of 64 x 64 = 4 x 8
-- fragments (B loaded two at a time, ldmatrix.x4), 4 k-steps per tile.
-- REQUIRES: nvrtc
-- RUN: %kgen --arch sm_90 --emit=asm %s -o - | FileCheck %s
-- RUN: %kgen --arch sm_90 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- CHECK-LABEL: .entry matmul_gemm_sm90_matmul_gemm_{{[0-9a-f]+}}(
-- CHECK: cp.async.cg.shared.global
-- CHECK: cp.async.commit_group
-- CHECK: cp.async.wait_group 1
-- CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
-- CHECK-NOT: ldmatrix.sync.aligned.m8n8.x2.shared.b16
-- CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
-- CHECK-COUNT-128: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
-- META: matmul_gemm_sm90_matmul_gemm_{{[0-9a-f]+}}
-- META-NOT: local
local T = sym("T", 512)
local x = input("x", bf16, { T, 4096 })
local w = weight("w", bf16, { 4096, 4096 })
output("y", matmul(x, w))
