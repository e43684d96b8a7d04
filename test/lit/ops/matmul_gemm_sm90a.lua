-- matmul, the GEMM path on sm_90a: wgmma.mma_async m64n256k16 reading both
-- tiles from shared memory through descriptors (128-byte swizzled rows,
-- filled with cp.async), 2 warpgroups of 64 x 256, a 4-stage ring copied 2
-- tiles ahead: the copies are made visible to the async proxy
-- (fence.proxy.async) before the barrier, each k tile is one group of 4
-- wgmmas, and the previous tile's group is waited for (wait_group 1) while
-- this one runs; all are waited for (wait_group 0) before the epilogue. The
-- gate/up pair halves the tile: two m64n128k16 groups per k tile, wait_group 2.
-- A tile override that leaves no warpgroup tile (bk 32) takes the target's
-- warp-level tiles: mma.sync. A GEMM whose grid of 128 x 256 tiles would
-- leave SMs idle at its largest M (N = 4096, M = 512: 64 tiles on 132 SMs)
-- takes the target's 128 x 128 tile (gemm_grid): m64n128k16; at M = 2048
-- it keeps 128 x 256.
-- REQUIRES: nvrtc
-- RUN: %kgen --arch sm_90a --emit=asm %s -o - | FileCheck %s
-- RUN: %kgen --arch sm_90a --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- CHECK-LABEL: .entry matmul_gemm_sm90a_matmul_gemm_{{[0-9a-f]+}}(
-- CHECK: cp.async.cg.shared.global
-- CHECK: cp.async.commit_group
-- CHECK: cp.async.wait_group 1
-- CHECK: fence.proxy.async.shared::cta
-- CHECK: bar.sync
-- CHECK: wgmma.fence.sync.aligned
-- CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
-- CHECK: wgmma.commit_group.sync.aligned
-- CHECK-NOT: mma.sync
-- CHECK: wgmma.wait_group.sync.aligned 1
-- CHECK: wgmma.wait_group.sync.aligned 0
-- CHECK-LABEL: .entry matmul_gemm_sm90a_matmul_silu_matmul_gemm_{{[0-9a-f]+}}(
-- CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
-- CHECK: wgmma.commit_group.sync.aligned
-- CHECK: wgmma.fence.sync.aligned
-- CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
-- CHECK: wgmma.commit_group.sync.aligned
-- CHECK: wgmma.wait_group.sync.aligned 2
-- CHECK-LABEL: .entry matmul_gemm_sm90a_matmul_gemm_{{[0-9a-f]+}}(
-- CHECK-NOT: wgmma
-- CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
-- CHECK-LABEL: .entry matmul_gemm_sm90a_matmul_gemm_{{[0-9a-f]+}}(
-- CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
-- CHECK-NOT: m64n256k16
-- CHECK: wgmma.wait_group.sync.aligned 0
-- META: .name: matmul_gemm_sm90a_matmul_gemm_{{[0-9a-f]+}}
-- META-NEXT: .code_bytes:
-- META-NEXT: .registers:
-- META-NEXT: .shared_bytes: 0
-- META-NEXT: .stack_bytes: 0
-- META-NEXT: .max_threads: 256
local T = sym("T", 2048)
local x = input("x", bf16, { T, 4096 })
local w = weight("w", bf16, { 4096, 4096 })
output("y", matmul(x, w))
local xh = input("xh", f16, { T, 1024 })
local wg = weight("wg", f16, { 512, 1024 })
local wu = weight("wu", f16, { 512, 1024 })
output("h", silu(matmul(xh, wg)) * matmul(xh, wu))
output("z", matmul(x, w, { tile = { bk = 32 } }))
local S = sym("S", 512)
local xs = input("xs", bf16, { S, 4096 })
output("ys", matmul(xs, w))
