-- A Llama-style layer written with one fused QKV weight: split of the QKV
-- projection's result (matmuls of x with views of w's rows, at their
-- offsets; the whole product is never computed), reshape to heads (views),
-- the GQA layout (8 query heads over 2 KV heads) into RoPE, the KV write and
-- attention: no copy kernel in the plan. The q, k and v matmuls are one
-- kernel of three regions whose epilogue rotates q and k (RoPE) and writes k
-- and v into their caches, at decode (a GEMV, T <= 8) and at prefill (a
-- GEMM, T > 8) alike: neither RoPE nor the KV write has a kernel of its
-- own. Both norms are the GEMVs' prologue. At prefill the second norm
-- (split = true) is split around its GEMMs: the O GEMM, whose result is its operand, also
-- stores that result times the norm's weight (z, where the norm's result
-- would be) and its sums of squares per 32 columns, and the gate/up GEMM
-- reads z and scales its rows by the norm's rsqrt from those sums; no norm
-- kernel runs. The first norm's operand is the model's input, which no
-- GEMM writes: its kernel runs for T > 8 (a prologue in the GEMM cost more
-- than the norm's kernel on the H200, bench/results/h100_llama.md). Decode
-- (the steps whose select holds 1) runs 5 steps: [norm -> QKV + RoPE + KV
-- write], [attention], [O + residual], [norm -> gate/up + SwiGLU], [down +
-- residual]; prefill 6: [norm], [QKV + RoPE + KV write], [attention], [O +
-- residual + the norm's z and sums], [gate/up scaled + SwiGLU], [down +
-- residual] (in a stack of layers, the next layer's first norm is split
-- around the down GEMM the same way: models/llama_kernels.lua).
-- RUN: %kgen --arch gfx1100 --emit=table %s -o - | FileCheck %s
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck --check-prefix=HIP %s
-- the fused kernels: const operands, the caches (regions 1 and 2) writable,
-- q's result, M and the caches' layers (the GEMV also the norm's weight)
-- HIP: llama_layer_rmsnorm_matmul3_rope_kv_append_gemv_{{[0-9a-f]+}}(KG_GLOBAL(const kg_bf16) x, KG_GLOBAL(const kg_bf16) w, KG_GLOBAL(const kg_bf16) wr1, KG_GLOBAL(const kg_bf16) wr2, KG_GLOBAL(const kg_bf16) ng, KG_GLOBAL(const int) positions, KG_GLOBAL(kg_bf16) cache1, KG_GLOBAL(kg_bf16) cache2, KG_GLOBAL(kg_bf16) y, long M, long layer1, long layer2
-- HIP: llama_layer_matmul3_rope_kv_append_gemm_{{[0-9a-f]+}}(KG_GLOBAL(const kg_bf16) x, KG_GLOBAL(const kg_bf16) w, KG_GLOBAL(const kg_bf16) wr1, KG_GLOBAL(const kg_bf16) wr2, KG_GLOBAL(const int) positions, KG_GLOBAL(kg_bf16) cache1, KG_GLOBAL(kg_bf16) cache2, KG_GLOBAL(kg_bf16) y, long M, long layer1, long layer2
-- The GEMM stores its regions through LDS: one inlined epilogue, a loop over
-- the staged products, each with its rotation pair (c ^ 1).
-- HIP: auto region_out = [&](long m, long n0, int c, float acc0, float accp) {
-- HIP: float *const stage = (float *)(void *)As;
-- HIP: region_out(m, n0, c, stage[e], stage[e ^ 1]);
-- The split norm: the O GEMM reads the norm's weight after w and writes z
-- and the sums after y; the gate/up GEMM reads the sums after its weights.
-- HIP: llama_layer_matmul_add_gemm_{{[0-9a-f]+}}(KG_GLOBAL(const kg_bf16) x, KG_GLOBAL(const kg_bf16) w, KG_GLOBAL(const kg_bf16) nog,
-- HIP-NEXT: KG_GLOBAL(const kg_bf16) e3, KG_GLOBAL(kg_bf16) y, KG_GLOBAL(kg_bf16) z, KG_GLOBAL(float) part, long M) {
-- y and z go out from the registers; the squares, through LDS (rows SB
-- floats apart), become the sums of runs of 32 columns.
-- HIP: const kg_vec<kg_bf16, F::RUN> gv = kg_ldv<F::RUN>(nog, n);
-- HIP: kg_stv<F::RUN>(z, idx, zv);
-- HIP: kg_st(z, idx + e, kg_from_f32<kg_bf16>(f * kg_to_f32(kg_ld(nog, n + e))));
-- HIP: acc[i][j][r + e] = sq[e];
-- HIP: stage[F::row(r) * SB + wn + j * F::N + F::col(r)] = acc[i][j][r];
-- HIP: kg_st(part, (batch * M + m) * (512L / 32) + n / 32, s);
-- HIP: llama_layer_matmul_silu_matmul_gemm_{{[0-9a-f]+}}(KG_GLOBAL(const kg_bf16) x, KG_GLOBAL(const kg_bf16) w, KG_GLOBAL(const kg_bf16) w1, KG_GLOBAL(const float) rsum, KG_GLOBAL(kg_bf16) y, long M) {
-- HIP: s[i] += kg_ld(rsum, (batch * M + m) * P + l + 32 * j);
-- HIP: rsc[r] = kg_rsqrt(sum * (1.0f / 512) + 1e-05f);
-- CHECK-LABEL: static const kgrt_kernel_t kernels[11] = {
-- CHECK-NEXT: {"llama_layer_rmsnorm_{{[0-9a-f]+}}"
-- CHECK-NEXT: {"llama_layer_rmsnorm_matmul3_rope_kv_append_gemv_{{[0-9a-f]+}}"
-- CHECK-NEXT: {"llama_layer_matmul3_rope_kv_append_gemm_{{[0-9a-f]+}}"
-- CHECK-NEXT: {"llama_layer_attention_prefill_{{[0-9a-f]+}}"
-- CHECK-NEXT: {"llama_layer_attention_decode_{{[0-9a-f]+}}"
-- CHECK-NEXT: {"llama_layer_matmul_add_gemv_{{[0-9a-f]+}}"
-- CHECK-NEXT: {"llama_layer_matmul_add_gemm_{{[0-9a-f]+}}"
-- CHECK-NEXT: {"llama_layer_rmsnorm_matmul_silu_gemv_{{[0-9a-f]+}}"
-- CHECK-NEXT: {"llama_layer_matmul_silu_matmul_gemm_{{[0-9a-f]+}}"
-- CHECK-NEXT: {"llama_layer_matmul_add_gemv_{{[0-9a-f]+}}"
-- CHECK-NEXT: {"llama_layer_matmul_add_gemm_{{[0-9a-f]+}}"
-- CHECK-NEXT: };
-- both region kernels read q's, k's and v's rows of wqkv (weight 1): rows
-- 0 .. 511, 512 .. 639 and 640 .. 767 (the GEMV the norm's weight too), the
-- positions, then write both caches (inputs 2 and 3) in place and q
-- (rotated) to the arena, and take M and each cache's layer
-- CHECK-LABEL: static const kgrt_step_arg_t s1_args[12] = {
-- CHECK-NEXT: {KGRT_SPACE_INPUT, 0, 0,
-- CHECK-NEXT: {KGRT_SPACE_WEIGHT, 1, 0, {524288,
-- CHECK-NEXT: {KGRT_SPACE_WEIGHT, 1, 524288, {131072,
-- CHECK-NEXT: {KGRT_SPACE_WEIGHT, 1, 655360, {131072,
-- CHECK-NEXT: {KGRT_SPACE_WEIGHT, 0, 0,
-- CHECK-NEXT: {KGRT_SPACE_INPUT, 1, 0,
-- CHECK-NEXT: {KGRT_SPACE_INPUT, 2, 0,
-- CHECK-NEXT: {KGRT_SPACE_INPUT, 3, 0,
-- CHECK-NEXT: {KGRT_SPACE_ARENA,
-- CHECK-NEXT: {KGRT_SPACE_ARENA, 0, 0, {0, {-1, -1, -1, -1}}, {1, {0,
-- CHECK-NEXT: {KGRT_SPACE_ARENA, 0, 0, {0, {-1, -1, -1, -1}}, {0, {-1,
-- CHECK-NEXT: {KGRT_SPACE_ARENA, 0, 0, {0, {-1, -1, -1, -1}}, {0, {-1,
-- CHECK-LABEL: static const kgrt_step_arg_t s2_args[11] = {
-- CHECK-NEXT: {KGRT_SPACE_ARENA,
-- CHECK-NEXT: {KGRT_SPACE_WEIGHT, 1, 0, {524288,
-- CHECK-NEXT: {KGRT_SPACE_WEIGHT, 1, 524288, {131072,
-- CHECK-NEXT: {KGRT_SPACE_WEIGHT, 1, 655360, {131072,
-- CHECK-NEXT: {KGRT_SPACE_INPUT, 1, 0,
-- CHECK-NEXT: {KGRT_SPACE_INPUT, 2, 0,
-- CHECK-NEXT: {KGRT_SPACE_INPUT, 3, 0,
-- CHECK-NEXT: {KGRT_SPACE_ARENA,
-- CHECK-NEXT: {KGRT_SPACE_ARENA, 0, 0, {0, {-1, -1, -1, -1}}, {1, {0,
-- the O GEMM: x, wo, the norm's weight, the residual, then y, z and the
-- sums (16 floats a row), and M; the gate/up GEMM reads z and the sums
-- CHECK-LABEL: static const kgrt_step_arg_t s6_args[8] = {
-- CHECK-NEXT: {KGRT_SPACE_ARENA,
-- CHECK-NEXT: {KGRT_SPACE_WEIGHT, 2, 0,
-- CHECK-NEXT: {KGRT_SPACE_WEIGHT, 3, 0,
-- CHECK-NEXT: {KGRT_SPACE_INPUT, 0, 0,
-- CHECK-NEXT: {KGRT_SPACE_ARENA, 0, [[Y:[0-9]+]], {1024,
-- CHECK-NEXT: {KGRT_SPACE_ARENA, 0, [[Z:[0-9]+]], {1024,
-- CHECK-NEXT: {KGRT_SPACE_ARENA, 0, [[SUMS:[0-9]+]], {64, {0,
-- CHECK-LABEL: static const kgrt_step_arg_t s8_args[6] = {
-- CHECK-NEXT: {KGRT_SPACE_ARENA, 0, [[Z]], {1024,
-- CHECK-NEXT: {KGRT_SPACE_WEIGHT, 4, 0,
-- CHECK-NEXT: {KGRT_SPACE_WEIGHT, 5, 0,
-- CHECK-NEXT: {KGRT_SPACE_ARENA, 0, [[SUMS]], {64, {0,
-- CHECK-LABEL: static const kgrt_step_t steps[11] = {
-- CHECK-NEXT: {0, {{.*}}, 9LL, 9223372036854775807LL, s0_args, 0, 0, -1},
-- CHECK-NEXT: {1, {{.*}}, 0LL, 8LL, s1_args, 0, 0, -1},
-- CHECK-NEXT: {2, {{.*}}, 9LL, 9223372036854775807LL, s2_args, 0, 0, -1},
-- CHECK-NEXT: {3, {{.*}}, 5LL, 9223372036854775807LL, s3_args, 0, 0, -1},
-- CHECK-NEXT: {4, {{.*}}, 0LL, 4LL, s4_args, 0, 0, -1},
-- CHECK-NEXT: {5, {{.*}}, 0LL, 8LL, s5_args, 0, 0, -1},
-- CHECK-NEXT: {6, {{.*}}, 9LL, 9223372036854775807LL, s6_args, 0, 0, -1},
-- CHECK-NEXT: {7, {{.*}}, 0LL, 8LL, s7_args, 0, 0, -1},
-- CHECK-NEXT: {8, {{.*}}, 9LL, 9223372036854775807LL, s8_args, 0, 0, -1},
-- CHECK-NEXT: {9, {{.*}}, 0LL, 8LL, s9_args, 0, 0, -1},
-- CHECK-NEXT: {10, {{.*}}, 9LL, 9223372036854775807LL, s10_args, 0, 0, -1},
-- CHECK-NEXT: };
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
local h2 = rmsnorm(x, weight("ffn_norm", bf16, { E }), { eps = 1e-5, split = true })
local f = silu(matmul(h2, weight("wg", bf16, { F, E }))) * matmul(h2, weight("wu", bf16, { F, E }))
output("y", x + matmul(f, weight("wd", bf16, { E, F })))
