-- A Llama-style layer written with one fused QKV weight: split of the QKV
-- projection's result (matmuls of x with views of w's rows, at their
-- offsets; the whole product is never computed), reshape to heads (views),
-- the GQA layout (8 query heads over 2 KV heads) into RoPE, the KV write and
-- attention: no copy kernel in the plan. Both norms are the GEMVs' prologue
-- (their kernel runs only with the GEMMs, T > 8), and at decode the q, k and
-- v matmuls are one GEMV of three regions. Decode (T = 1) runs 9 steps,
-- prefill 13: RoPE and the KV write are kernels of their own still (issue 18
-- asks 5 and 6).
-- RUN: %kgen --arch gfx1100 --emit=table %s -o - | FileCheck %s
-- CHECK-LABEL: static const kgrt_kernel_t kernels[15] = {
-- CHECK-NEXT: {"llama_layer_rmsnorm_{{[0-9a-f]+}}"
-- CHECK-NEXT: {"llama_layer_rmsnorm_matmul3_gemv_{{[0-9a-f]+}}"
-- CHECK-NEXT: {"llama_layer_matmul_gemm_{{[0-9a-f]+}}"
-- CHECK-NEXT: {"llama_layer_matmul_gemm_{{[0-9a-f]+}}"
-- CHECK-NEXT: {"llama_layer_rope_{{[0-9a-f]+}}"
-- CHECK-NEXT: {"llama_layer_rope_{{[0-9a-f]+}}"
-- CHECK-NEXT: {"llama_layer_kv_append_{{[0-9a-f]+}}"
-- CHECK-NEXT: {"llama_layer_attention_prefill_{{[0-9a-f]+}}"
-- CHECK-NEXT: {"llama_layer_attention_decode_{{[0-9a-f]+}}"
-- CHECK-NEXT: {"llama_layer_matmul_add_gemv_{{[0-9a-f]+}}"
-- CHECK-NEXT: {"llama_layer_matmul_add_gemm_{{[0-9a-f]+}}"
-- CHECK-NEXT: {"llama_layer_rmsnorm_matmul_silu_gemv_{{[0-9a-f]+}}"
-- CHECK-NEXT: {"llama_layer_matmul_silu_matmul_gemm_{{[0-9a-f]+}}"
-- CHECK-NEXT: {"llama_layer_matmul_add_gemv_{{[0-9a-f]+}}"
-- CHECK-NEXT: {"llama_layer_matmul_add_gemm_{{[0-9a-f]+}}"
-- CHECK-NEXT: };
-- the regions GEMV reads q's, k's and v's rows of wqkv (weight 1): rows
-- 0 .. 511, 512 .. 639 and 640 .. 767, and writes the three results
-- CHECK-LABEL: static const kgrt_step_arg_t s1_args[9] = {
-- CHECK-NEXT: {KGRT_SPACE_INPUT, 0, 0,
-- CHECK-NEXT: {KGRT_SPACE_WEIGHT, 1, 0, {524288,
-- CHECK-NEXT: {KGRT_SPACE_WEIGHT, 1, 524288, {131072,
-- CHECK-NEXT: {KGRT_SPACE_WEIGHT, 1, 655360, {131072,
-- CHECK: static const kgrt_step_t steps[18] = {
local T, S = sym("T", 256), sym("S", 2048)
local H, KVH, D, E, F = 8, 2, 64, 512, 1024
local x = input("x", bf16, { T, E })
local pos = input("pos", i32, { T })
local kc = input("kc", bf16, { 1, KVH, 2048, D })
local vc = input("vc", bf16, { 1, KVH, 2048, D })
local h = rmsnorm(x, weight("attn_norm", bf16, { E }), { eps = 1e-5 })
local q, k, v = split(matmul(h, weight("wqkv", bf16, { (H + 2 * KVH) * D, E })), { H * D, KVH * D, KVH * D })
q = rope(reshape(q, { T, H, D }), pos)
k = rope(reshape(k, { T, KVH, D }), pos)
kc = kv_append(kc, k, pos)
vc = kv_append(vc, reshape(v, { T, KVH, D }), pos)
local a = attention(q, kc, vc, { context = S, causal = true })
x = x + matmul(reshape(a, { T, H * D }), weight("wo", bf16, { E, H * D }))
local h2 = rmsnorm(x, weight("ffn_norm", bf16, { E }), { eps = 1e-5 })
local f = silu(matmul(h2, weight("wg", bf16, { F, E }))) * matmul(h2, weight("wu", bf16, { F, E }))
output("y", x + matmul(f, weight("wd", bf16, { E, F })))
