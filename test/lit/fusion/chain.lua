-- silu(gate) * up * 0.5 + x fuses into one map kernel reading three tensors.
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s
-- RUN: %kgen --arch gfx942 --emit=table %s -o - | FileCheck %s --check-prefix=TABLE
-- CHECK-LABEL: chain_silu_mul_scale_{{[0-9a-f]+}}(KG_GLOBAL(const kg_f16) in0, KG_GLOBAL(const kg_f16) in1, KG_GLOBAL(const kg_f16) in2, KG_GLOBAL(kg_f16) out, long n)
-- CHECK: kg_from_f32<kg_f16>((a0 + ((kg_silu(a1) * a2) * 0.5f)))
-- CHECK-NOT: chain_1_
-- TABLE: static const kgrt_kernel_t kernels[1] = {
-- TABLE: static const kgrt_step_t steps[1] = {
local T = sym("T", 32)
local x = input("x", f16, { T, 256 })
local gate = input("gate", f16, { T, 256 })
local up = input("up", f16, { T, 256 })
output("y", add(x, scale(mul(silu(gate), up), 0.5)))
