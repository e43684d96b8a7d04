-- attention on sm_90a (the shape of ops/attention.lua: 32 query heads over
-- 8 KV heads, D 128, bf16, causal): the prefill and decode kernels read q,
-- k and v only through 16-byte cp.async copies into their LDS tiles (no
-- ld.global until the decode's last workgroup adds the splits up), multiply
-- with mma.sync m16n8k16 (S = Q K^T from ldmatrix fragments, P packed to
-- bf16 pairs in registers, O += P V with V's fragments from ldmatrix
-- .trans); nothing spills.
-- REQUIRES: nvrtc
-- RUN: %kgen --arch sm_90a --emit=asm %s -o - | FileCheck %s
-- RUN: %kgen --arch sm_90a --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- CHECK-LABEL: .entry attention_sm90a_attention_prefill_{{[0-9a-f]+}}(
-- CHECK-NOT: ld.global
-- CHECK: cp.async.cg.shared.global [%r{{[0-9]+}}], [%rd{{[0-9]+}}], 16,
-- CHECK-NOT: ld.global
-- CHECK: cp.async.wait_group
-- CHECK-NOT: ld.global
-- CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
-- CHECK-NOT: ld.global
-- CHECK: ex2.approx.ftz.f32
-- CHECK-NOT: ld.global
-- CHECK: cvt.rn.bf16x2.f32
-- CHECK-NOT: ld.global
-- CHECK: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
-- CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
-- CHECK-NOT: ld.global
-- CHECK-LABEL: .entry attention_sm90a_attention_decode_{{[0-9a-f]+}}(
-- CHECK-NOT: ld.global
-- CHECK: cp.async.cg.shared.global [%r{{[0-9]+}}], [%rd{{[0-9]+}}], 16,
-- CHECK-NOT: ld.global
-- CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
-- CHECK-NOT: ld.global
-- CHECK: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
-- CHECK-NOT: ld.global
-- CHECK: atom.global.add.u32
-- META-NOT: .stack_bytes: {{[1-9]}}
-- META-DAG: .name: attention_sm90a_attention_prefill_{{[0-9a-f]+}}
-- META-DAG: .name: attention_sm90a_attention_decode_{{[0-9a-f]+}}
-- META-NOT: .stack_bytes: {{[1-9]}}
local T = sym("T", 4096)
local S = sym("S", 4096)
local q = input("q", bf16, { T, 32, 128 })
local k = input("k", bf16, { S, 8, 128 })
local v = input("v", bf16, { S, 8, 128 })
output("y", attention(q, k, v, { causal = true }))
