-- sample: greedy argmax and top-k (+ top-p + min-p) split over parts of the
-- row, top-p + min-p by radix cuts and an inverse-CDF scan in one
-- workgroup a row (the model's settings as constants the compiler folds),
-- and the same path with each row's settings, key and counter read at run
-- time (split as the greedy one where the rows are known at build time);
-- no scratch on either target.
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
-- top-k 50: 32 parts of 4096 keep 50 candidates each; the last selects 50 of
-- their 1600 (7 a thread), sorts them by counting and cuts top-p and min-p
-- CHECK-LABEL: sample_sample_{{[0-9a-f]+}}(KG_GLOBAL(const kg_bf16) x, KG_GLOBAL(const int) seed, KG_GLOBAL(int) y, KG_GLOBAL(int) part, KG_GLOBAL(int) cnt)
-- CHECK: const float inv_t = 1.42857143f;
-- CHECK: ctr.y = (unsigned)kg_ld(seed, 1);
-- W32: kg_radix_nth<32, 256, 2 * 8, false>(
-- W64: kg_radix_nth<64, 256, 2 * 8, false>(
-- CHECK-NEXT: v, here < 50 ? (unsigned)here : 50u);
-- CHECK: last = kg_atomic_add(cnt, row, 1) == 32 - 1;
-- W32: kg_radix_nth<32, 256, 7, true>(w, 50u);
-- W64: kg_radix_nth<64, 256, 7, true>(w, 50u);
-- CHECK: r += top[j] > mine_v;
-- CHECK: through >= 0.9f * mass
-- CHECK: wt[j] >= 0.05f
-- top-k 300 is past the split's 256: one workgroup a row
-- CHECK-LABEL: sample_sample_{{[0-9a-f]+}}(KG_GLOBAL(const kg_bf16) x, KG_GLOBAL(const int) seed, KG_GLOBAL(int) y)
-- CHECK: const float inv_t = 1.42857143f;
-- CHECK-NEXT: constexpr bool use_topk = true;
-- CHECK-NEXT: constexpr bool use_topp = true;
-- CHECK-NEXT: constexpr bool use_minp = true;
-- CHECK-NEXT: constexpr unsigned topk = 300u;
-- CHECK-NEXT: constexpr float topp = 0.9f;
-- CHECK-NEXT: constexpr float minp = 0.05f;
-- W32: kg_radix_cut<32, 256, 8, 128256, false, kg_bf16>(
-- W64: kg_radix_cut<64, 256, 8, 128256, false, kg_bf16>(
-- CHECK-NEXT: x, base, inv_t, m, topk, 0.0f);
-- CHECK: kg_radix_cut<{{.*}}, true, kg_bf16>(
-- CHECK-NEXT: x, base, inv_t, m, use_topk ? topk : (unsigned)128256, topp * mass);
-- CHECK: (!use_minp || w >= minp)
-- CHECK: ctr.y = (unsigned)kg_ld(seed, 1);
-- run time: the row's settings from params, its key and counter; a
-- temperature that is not > 0 takes the argmax
-- CHECK-LABEL: sample_sample_{{[0-9a-f]+}}(KG_GLOBAL(const kg_bf16) x, KG_GLOBAL(const int) seed, KG_GLOBAL(const float) params, KG_GLOBAL(const int) counter, KG_GLOBAL(int) y)
-- CHECK: const float temp = kg_ld(params, row * 4), fk = kg_ld(params, row * 4 + 1);
-- CHECK: if (!(temp > 0.0f && temp <= 3.0e38f)) {
-- CHECK: const bool use_topk = fk >= 1.0f && fk < (float)128256;
-- CHECK: ctr.y = (unsigned)kg_ld(counter, row);
-- CHECK: kg_philox4x32_10(ctr, (unsigned)kg_ld(seed, row), 0u)
-- run time, one row known at build time (a batch-1 table's): the argmax
-- split over 63 parts of 2048 f32 where the temperature is not > 0, else
-- part 0 samples the row alone
-- CHECK-LABEL: sample_sample_{{[0-9a-f]+}}(KG_GLOBAL(const float) x, KG_GLOBAL(const int) seed, KG_GLOBAL(const float) params, KG_GLOBAL(const int) counter, KG_GLOBAL(int) y, KG_GLOBAL(int) part, KG_GLOBAL(int) cnt)
-- CHECK: const float greedy_t = kg_ld(params, (long)blockIdx.x / 63 * 4);
-- CHECK-NEXT: if (!(greedy_t > 0.0f && greedy_t <= 3.0e38f)) {
-- CHECK: last = kg_atomic_add(cnt, row, 1) == 63 - 1;
-- CHECK: if ((long)blockIdx.x % 63 != 0)
-- CHECK-NEXT: return;
-- CHECK: const long row = (long)blockIdx.x / 63;
-- CHECK: ctr.y = (unsigned)kg_ld(counter, row);
-- CHECK: kg_philox4x32_10(ctr, (unsigned)kg_ld(seed, row), 0u)
-- CHECK: kg_st(y, (long)blockIdx.x / 63, pick
-- META: .name: sample_sample_{{[0-9a-f]+}}
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
-- META: .name: sample_sample_{{[0-9a-f]+}}
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
-- META: .name: sample_sample_{{[0-9a-f]+}}
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
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
output("z", sample(x, s, { temperature = 0.7, top_k = 300, top_p = 0.9, min_p = 0.05 }))
output("r", sample(x, input("keys", i32, { B }), input("params", f32, { B, 4 }),
  input("counter", i32, { B })))
output("o", sample(input("x1", f32, { 1, 128256 }), input("key1", i32, { 1 }),
  input("params1", f32, { 1, 4 }), input("counter1", i32, { 1 })))
