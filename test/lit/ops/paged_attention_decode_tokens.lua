-- paged_attention's decode_tokens D (a count sym): where a step holds a
-- prefill chunk (Q > TD = 4 here), the decode path takes the first D tokens
-- in a launch of its own (units 4 D: the same kernel as the decode path's at
-- Q <= 4) and the flash path the tokens after them (its grid sized for all
-- T, the first D skipped: kg_gofs).
-- RUN: rm -rf %t; %kgen --arch gfx1100 %s -o %t > /dev/null
-- RUN: FileCheck %s --check-prefix=H < %t/paged_attention_decode_tokens.h
-- RUN: FileCheck %s --check-prefix=IO < %t/paged_attention_decode_tokens.c
-- RUN: FileCheck %s < %t/paged_attention_decode_tokens_gfx1100.c
-- RUN: FileCheck %s --check-prefix=HIP < %t/paged_attention_decode_tokens_gfx1100.hip
-- RUN: %kgen --arch sm_90a --emit=table %s -o - | FileCheck %s
-- H: /* dim D: 0 .. 64, a count (sizes launches, not tensors) */
-- IO: {"D", 64, KGRT_SYM_COUNT},
-- CHECK-LABEL: static const kgrt_step_t steps[3] = {
-- CHECK-NEXT: {[[PRE:[0-9]+]], {4, {0, -1, -1, -1}}, {{[0-9]+}}, {{[0-9]+}}, {1, {2, -1, -1, -1}}, 5LL, 9223372036854775807LL,
-- CHECK-NEXT: {[[DEC:[0-9]+]], {4, {3, -1, -1, -1}}, {{[0-9]+}}, {{[0-9]+}}, {1, {2, -1, -1, -1}}, 5LL, 9223372036854775807LL,
-- CHECK-NEXT: {[[DEC]], {4, {0, -1, -1, -1}}, {{[0-9]+}}, {{[0-9]+}}, {1, {2, -1, -1, -1}}, 0LL, 4LL,
-- HIP-LABEL: paged_attention_decode_tokens_paged_attention_paged_prefill_{{[0-9a-f]+}}(
-- HIP: long tq, long sk, long layer,
-- HIP-NEXT: long first) {
-- HIP: const long t0 = first < 0 ? 0 : first > tq ? tq : first;
-- HIP-NEXT: q = kg_gofs(q, t0 * H * D);
-- HIP-NEXT: out = kg_gofs(out, t0 * H * D);
-- HIP: if (r0 < 0)
-- HIP-LABEL: paged_attention_decode_tokens_paged_attention_paged_decode_{{[0-9a-f]+}}(
-- HIP: long tq, long sk, long layer) {
local T, B, Q = sym("T", 256), sym("B", 64), sym("Q", 256)
local D = sym("D", 64, { count = true })
local kc = input("kc", bf16, { 2, 8, 512 * 16, 128 })
local vc = input("vc", bf16, { 2, 8, 512 * 16, 128 })
local q = input("q", bf16, { T, 32, 128 })
output("y", paged_attention(q, kc, vc, input("pos", i32, { T }), input("seq", i32, { T }),
  input("ctx", i32, { B }), input("bt", i32, { B, 32 }),
  { layer = 1, block_size = 16, causal = true, seq_tokens = Q, decode_tokens = D }))
