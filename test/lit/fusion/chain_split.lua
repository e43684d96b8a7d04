-- A fused chain stays inside the compilers' limits: at most 64 ops nested
-- in one expression (clang refuses brackets nested past 256) and at most 12
-- tensors read by one chain (a kernel takes 16 operands, an epilogue's
-- chain shares them with x, two weights and a norm's weight); past either,
-- the chain becomes several kernels instead of an error. 150 scales: 64 +
-- 64 + 22 (the two chains of 64 are one kernel, content-addressed); a sum
-- of 21 tensors: 12, then the partial sum and the 9 others.
-- RUN: %kgen --arch gfx942 --emit=table %s -o - | FileCheck %s
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s --check-prefix=HIP
-- CHECK: static const kgrt_kernel_t kernels[4] = {
-- CHECK: static const kgrt_step_t steps[5] = {
-- CHECK-NEXT: {0, {512,
-- CHECK-NEXT: {0, {512,
-- CHECK-NEXT: {1, {512,
-- CHECK-NEXT: {2, {512,
-- CHECK-NEXT: {3, {512,
-- CHECK-NEXT: };
-- HIP-LABEL: chain_split_scale_scale_scale_{{[0-9a-f]+}}(KG_GLOBAL(const float) in0, KG_GLOBAL(float) out, long n)
-- HIP-LABEL: chain_split_scale_scale_scale_{{[0-9a-f]+}}(KG_GLOBAL(const float) in0, KG_GLOBAL(float) out, long n)
-- HIP-LABEL: chain_split_add_add_add_{{[0-9a-f]+}}(KG_GLOBAL(const float) in0, KG_GLOBAL(const float) in1, KG_GLOBAL(const float) in2, KG_GLOBAL(const float) in3, KG_GLOBAL(const float) in4, KG_GLOBAL(const float) in5, KG_GLOBAL(const float) in6, KG_GLOBAL(const float) in7, KG_GLOBAL(const float) in8, KG_GLOBAL(const float) in9, KG_GLOBAL(const float) in10, KG_GLOBAL(const float) in11, KG_GLOBAL(float) out, long n)
-- HIP-LABEL: chain_split_add_add_add_{{[0-9a-f]+}}(KG_GLOBAL(const float) in0, {{.*}} KG_GLOBAL(const float) in9, KG_GLOBAL(float) out, long n)
local x = input("x", f32, { 8, 64 })
local y = x
for _ = 1, 150 do y = scale(y, 1.0) end
output("y", y)
local s = input("s0", f32, { 8, 64 })
for i = 1, 20 do s = add(s, input("s" .. i, f32, { 8, 64 })) end
output("sum", s)
