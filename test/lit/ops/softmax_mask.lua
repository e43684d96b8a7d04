-- softmax masks: an additive mask [Tq, Tk] broadcast over the leading dims
-- (row % mask_rows), a causal mask whose Tq is a sym (passed as `long tq`,
-- offset Tk - Tq), an offset given as a sym or an integer; no scratch.
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s --check-prefixes=CHECK,W32
-- RUN: %kgen --arch gfx942 --emit=hip %s -o - | FileCheck %s --check-prefixes=CHECK,W64
-- RUN: %kgen --arch gfx1100 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- RUN: %kgen --arch gfx942 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- CHECK-LABEL: softmax_mask_softmax_{{[0-9a-f]+}}(KG_GLOBAL(const kg_bf16) x, KG_GLOBAL(const kg_bf16) mask, KG_GLOBAL(kg_bf16) y, long mask_rows, long tq)
-- CHECK: const long mbase = ((long)blockIdx.x % mask_rows) * 256;
-- CHECK: const long limit = (long)blockIdx.x % tq + (256L - tq);
-- CHECK: kg_ldv<8>(mask, mbase + c)
-- CHECK: const float f = c + k > limit ? -__builtin_inff() : kg_to_f32(v.v[k]) * 0.125f + kg_to_f32(a.v[k]);
-- W32: kg_block_max<32, 32>(m)
-- W64: kg_block_max<64, 64>(m)
-- CHECK: f == -__builtin_inff() ? 0.0f : kg_exp(f - row_max) * inv_sum
-- CHECK-LABEL: softmax_mask_log_softmax_{{[0-9a-f]+}}(KG_GLOBAL(const kg_bf16) x, KG_GLOBAL(kg_bf16) y, long tq, long offset)
-- CHECK: const long limit = (long)blockIdx.x % tq + offset;
-- CHECK-LABEL: softmax_mask_softmax_{{[0-9a-f]+}}(KG_GLOBAL(const kg_bf16) x, KG_GLOBAL(const kg_bf16) mask, KG_GLOBAL(kg_bf16) y, long mask_rows, long tq)
-- CHECK: const long limit = (long)blockIdx.x % tq + (-3L);
-- META: .name: softmax_mask_softmax_{{[0-9a-f]+}}
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
-- META: .name: softmax_mask_log_softmax_{{[0-9a-f]+}}
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
-- META: .name: softmax_mask_softmax_{{[0-9a-f]+}}
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
local T = sym("T", 16)
local P = sym("P", 256)
local s = input("s", bf16, { 8, T, 256 })
local m = input("m", bf16, { T, 256 })
output("p", softmax(s, m, { scale = 0.125, causal = true }))
output("lp", log_softmax(s, { causal = true, offset = P }))
output("q", softmax(s, s, { causal = true, offset = -3 }))
