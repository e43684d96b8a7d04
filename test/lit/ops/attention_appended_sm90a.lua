-- attention's appended attribute on sm_90a: the cache keys before this
-- run's (position context - T on) are earlier runs', which the runtime lets
-- finish before a run's first kernel (kgrt.c), so the decode kernel copies
-- its first tiles' old keys into LDS (cp.async) before griddepcontrol.wait
-- and q and this run's keys after it. Without the attribute nothing is
-- copied before the wait.
-- REQUIRES: nvrtc
-- RUN: %kgen --arch sm_90a --emit=asm %s -o - | FileCheck %s
-- CHECK-LABEL: .entry attention_appended_sm90a_attention_{{[0-9a-f]+}}(
-- CHECK: griddepcontrol.launch_dependents;
-- CHECK-NOT: griddepcontrol.wait
-- CHECK: cp.async.cg.shared.global [%r{{[0-9]+}}], [%rd{{[0-9]+}}], 16,
-- CHECK: griddepcontrol.wait;
-- CHECK: cp.async.cg.shared.global [%r{{[0-9]+}}], [%rd{{[0-9]+}}], 16,
-- CHECK-LABEL: .entry attention_appended_sm90a_attention_{{[0-9a-f]+}}(
-- CHECK: griddepcontrol.launch_dependents;
-- CHECK-NOT: cp.async
-- CHECK: griddepcontrol.wait;
-- CHECK: cp.async.cg.shared.global [%r{{[0-9]+}}], [%rd{{[0-9]+}}], 16,
local S = sym("S", 2048)
local q = input("q", bf16, { 1, 32, 128 })
local kc = input("kc", bf16, { 2, 8, 2048, 128 })
local vc = input("vc", bf16, { 2, 8, 2048, 128 })
output("y1", attention(q, kc, vc, { layer = 1, context = S, causal = true, appended = true }))
output("y2", attention(q, kc, vc, { layer = 1, context = S, causal = true }))
