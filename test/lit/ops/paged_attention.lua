-- paged_attention: a batch of sequences over paged KV pools. Its kernels
-- take q, the pools, then pos, seq, ctx and the block tables; both paths read
-- each key tile's rows through the block table (block j / BS, slot j % BS)
-- with 128-bit loads, the key tiles of a row tile's sequences in one stream; the prefill path multiplies on WMMA (gfx1100) and MFMA
-- (gfx942); no scratch on either.
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s
-- RUN: %kgen --arch gfx1100 --emit=asm %s -o - | FileCheck %s --check-prefix=ASM32
-- RUN: %kgen --arch gfx942 --emit=asm %s -o - | FileCheck %s --check-prefix=ASM64
-- RUN: %kgen --arch gfx1100 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- RUN: %kgen --arch gfx942 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- CHECK-LABEL: paged_attention_paged_attention_paged_prefill_{{[0-9a-f]+}}(KG_GLOBAL(const kg_bf16) q, KG_GLOBAL(const kg_bf16) k, KG_GLOBAL(const kg_bf16) v,
-- CHECK-NEXT: KG_GLOBAL(const int) pos, KG_GLOBAL(const int) seq, KG_GLOBAL(const int) ctx, KG_GLOBAL(const int) bt,
-- CHECK-NEXT: KG_GLOBAL(kg_bf16) out, KG_GLOBAL(float) part, KG_GLOBAL(int) cnt, long tq, long sk, long layer) {
-- CHECK: const int blk = j < lke && c < D ? kg_ld(bt, (long)lsq * 32 + j / 16) : -1;
-- CHECK: const bool ok = blk >= 0 && blk < 512;
-- CHECK: ((long)blk * 16 + j % 16) * 128L + c;
-- CHECK-LABEL: paged_attention_paged_attention_paged_decode_{{[0-9a-f]+}}(
-- CHECK: KG_GLOBAL(kg_bf16) out, KG_GLOBAL(float) part, KG_GLOBAL(int) cnt, long tq, long sk, long layer) {
-- a tile's passes (its sequences) are one stream of key tiles through the
-- ring: the next item is copied while this one is multiplied, across passes
-- CHECK: for (int it = 0; it < nitems; it++) {
-- CHECK: load_item((it + AHEAD) % STAGES, it + AHEAD);
-- CHECK: bool hide = key > last || Rq[rrow] != cp || Rp[rrow] < 0;
-- the decode path's splits of a sequence come from its context alone
-- CHECK: const int cs = context(sr), k0 = decode_kb(cs);
-- ASM32-LABEL: paged_attention_paged_attention_paged_prefill_{{[0-9a-f]+}}:
-- ASM32: global_load_b128
-- ASM32: v_wmma_f32_16x16x16_bf16
-- ASM32-LABEL: paged_attention_paged_attention_paged_decode_{{[0-9a-f]+}}:
-- ASM32: global_load_b128
-- ASM64-LABEL: paged_attention_paged_attention_paged_prefill_{{[0-9a-f]+}}:
-- ASM64: global_load_dwordx4
-- ASM64: v_mfma_f32_{{.*}}bf16
-- ASM64-LABEL: paged_attention_paged_attention_paged_decode_{{[0-9a-f]+}}:
-- ASM64: global_load_dwordx4
-- META: .name: paged_attention_paged_attention_paged_prefill_{{[0-9a-f]+}}
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
-- META: .name: paged_attention_paged_attention_paged_decode_{{[0-9a-f]+}}
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
local T, B, Q = sym("T", 256), sym("B", 64), sym("Q", 256)
local kc = input("kc", bf16, { 2, 8, 512 * 16, 128 })
local vc = input("vc", bf16, { 2, 8, 512 * 16, 128 })
local q = input("q", bf16, { T, 32, 128 })
output("y", paged_attention(q, kc, vc, input("pos", i32, { T }), input("seq", i32, { T }),
  input("ctx", i32, { B }), input("bt", i32, { B, 32 }),
  { layer = 1, block_size = 16, causal = true, seq_tokens = Q }))
