-- sample: greedy argmax, and temperature + top-k + top-p + min-p by radix cuts
-- and an inverse-CDF scan; no scratch on either target.
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s --check-prefixes=CHECK,W32
-- RUN: %kgen --arch gfx942 --emit=hip %s -o - | FileCheck %s --check-prefixes=CHECK,W64
-- RUN: %kgen --arch gfx1100 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- RUN: %kgen --arch gfx942 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- RUN: %kgen --arch gfx1100 --emit=asm %s -o - | FileCheck %s --check-prefix=ASM32
-- RUN: %kgen --arch gfx942 --emit=asm %s -o - | FileCheck %s --check-prefix=ASM64
-- CHECK: KG_INLINE kg_u32x4 kg_philox4x32_10(
-- greedy: 32 workgroups a row (4096 logits each), the last to count takes
-- the best of their parts
-- CHECK-LABEL: sample_sample_{{[0-9a-f]+}}(KG_GLOBAL(const kg_bf16) x, KG_GLOBAL(const int) seed, KG_GLOBAL(int) y, KG_GLOBAL(int) part, KG_GLOBAL(int) cnt)
-- CHECK: const long row = (long)blockIdx.x / 32;
-- W32: kg_block_argbest<32, 256>(best, at)
-- W64: kg_block_argbest<64, 256>(best, at)
-- CHECK: last = kg_atomic_add(cnt, row, 1) == 32 - 1;
-- CHECK: if (last)
-- CHECK-NEXT: kg_st(cnt, row, 0);
-- W32: kg_block_argbest<32, 256>(best, at)
-- W64: kg_block_argbest<64, 256>(best, at)
-- CHECK-LABEL: sample_sample_{{[0-9a-f]+}}(KG_GLOBAL(const kg_bf16) x, KG_GLOBAL(const int) seed, KG_GLOBAL(int) y)
-- CHECK: const float inv_t = 1.42857143f;
-- W32: kg_radix_cut<32, 256, 8, 128256, false, kg_bf16>(
-- W64: kg_radix_cut<64, 256, 8, 128256, false, kg_bf16>(
-- CHECK-NEXT: x, base, inv_t, m, 50u, 0.0f);
-- CHECK: kg_radix_cut<{{.*}}, true, kg_bf16>(
-- CHECK-NEXT: x, base, inv_t, m, 50u, 0.9f * mass);
-- CHECK: w >= 0.05f
-- CHECK: ctr.y = (unsigned)kg_ld(seed, 1);
-- META: .name: sample_sample_{{[0-9a-f]+}}
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
-- META: .name: sample_sample_{{[0-9a-f]+}}
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
-- ASM32: global_load_b128
-- ASM64: global_load_dwordx4
local B = sym("B", 64)
local x = input("x", bf16, { B, 128256 })
local s = input("s", i32, { 2 })
output("g", sample(x, s, { temperature = 0 }))
output("y", sample(x, s, { temperature = 0.7, top_k = 50, top_p = 0.9, min_p = 0.05 }))
