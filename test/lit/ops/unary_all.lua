-- every unary op on both targets: one map kernel each, the op's expression,
-- 128-bit loads and stores (bf16 x 8) in the ISA and no scratch.
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s
-- RUN: %kgen --arch gfx942 --emit=hip %s -o - | FileCheck %s
-- RUN: %kgen --arch gfx1100 --emit=asm %s -o - | FileCheck %s --check-prefix=W32
-- RUN: %kgen --arch gfx942 --emit=asm %s -o - | FileCheck %s --check-prefix=W64
-- RUN: %kgen --arch gfx1100 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- RUN: %kgen --arch gfx942 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- CHECK-LABEL: unary_all_0_exp(
-- CHECK: kg_from_f32<kg_bf16>(kg_exp(a0))
-- CHECK-LABEL: unary_all_1_log(
-- CHECK: kg_from_f32<kg_bf16>(kg_log(a0))
-- CHECK-LABEL: unary_all_2_sqrt(
-- CHECK: kg_from_f32<kg_bf16>(kg_sqrt(a0))
-- CHECK-LABEL: unary_all_3_rsqrt(
-- CHECK: kg_from_f32<kg_bf16>(kg_rsqrt(a0))
-- CHECK-LABEL: unary_all_4_recip(
-- CHECK: kg_from_f32<kg_bf16>((1.0f / a0))
-- CHECK-LABEL: unary_all_5_neg(
-- CHECK: kg_from_f32<kg_bf16>((-a0))
-- CHECK-LABEL: unary_all_6_abs(
-- CHECK: kg_from_f32<kg_bf16>(kg_fabs(a0))
-- CHECK-LABEL: unary_all_7_sqr(
-- CHECK: kg_from_f32<kg_bf16>((a0 * a0))
-- CHECK-LABEL: unary_all_8_tanh(
-- CHECK: kg_from_f32<kg_bf16>(kg_tanh(a0))
-- CHECK-LABEL: unary_all_9_sin(
-- CHECK: kg_from_f32<kg_bf16>(kg_sin(a0))
-- CHECK-LABEL: unary_all_10_cos(
-- CHECK: kg_from_f32<kg_bf16>(kg_cos(a0))
-- CHECK-LABEL: unary_all_11_sigmoid(
-- CHECK: kg_from_f32<kg_bf16>(kg_sigmoid(a0))
-- CHECK-LABEL: unary_all_12_relu(
-- CHECK: kg_from_f32<kg_bf16>(kg_relu(a0))
-- CHECK-LABEL: unary_all_13_silu(
-- CHECK: kg_from_f32<kg_bf16>(kg_silu(a0))
-- CHECK-LABEL: unary_all_14_gelu(
-- CHECK: kg_from_f32<kg_bf16>(kg_gelu(a0))
-- CHECK-LABEL: unary_all_15_gelu_erf(
-- CHECK: kg_from_f32<kg_bf16>(kg_gelu_erf(a0))
-- W32-LABEL: unary_all_0_exp:
-- W32: global_load_b128
-- W32: global_store_b128
-- W64-LABEL: unary_all_0_exp:
-- W64: global_load_dwordx4
-- W64: global_store_dwordx4
-- W32-LABEL: unary_all_1_log:
-- W32: global_load_b128
-- W32: global_store_b128
-- W64-LABEL: unary_all_1_log:
-- W64: global_load_dwordx4
-- W64: global_store_dwordx4
-- W32-LABEL: unary_all_2_sqrt:
-- W32: global_load_b128
-- W32: global_store_b128
-- W64-LABEL: unary_all_2_sqrt:
-- W64: global_load_dwordx4
-- W64: global_store_dwordx4
-- W32-LABEL: unary_all_3_rsqrt:
-- W32: global_load_b128
-- W32: global_store_b128
-- W64-LABEL: unary_all_3_rsqrt:
-- W64: global_load_dwordx4
-- W64: global_store_dwordx4
-- W32-LABEL: unary_all_4_recip:
-- W32: global_load_b128
-- W32: global_store_b128
-- W64-LABEL: unary_all_4_recip:
-- W64: global_load_dwordx4
-- W64: global_store_dwordx4
-- W32-LABEL: unary_all_5_neg:
-- W32: global_load_b128
-- W32: global_store_b128
-- W64-LABEL: unary_all_5_neg:
-- W64: global_load_dwordx4
-- W64: global_store_dwordx4
-- W32-LABEL: unary_all_6_abs:
-- W32: global_load_b128
-- W32: global_store_b128
-- W64-LABEL: unary_all_6_abs:
-- W64: global_load_dwordx4
-- W64: global_store_dwordx4
-- W32-LABEL: unary_all_7_sqr:
-- W32: global_load_b128
-- W32: global_store_b128
-- W64-LABEL: unary_all_7_sqr:
-- W64: global_load_dwordx4
-- W64: global_store_dwordx4
-- W32-LABEL: unary_all_8_tanh:
-- W32: global_load_b128
-- W32: global_store_b128
-- W64-LABEL: unary_all_8_tanh:
-- W64: global_load_dwordx4
-- W64: global_store_dwordx4
-- W32-LABEL: unary_all_9_sin:
-- W32: global_load_b128
-- W32: global_store_b128
-- W64-LABEL: unary_all_9_sin:
-- W64: global_load_dwordx4
-- W64: global_store_dwordx4
-- W32-LABEL: unary_all_10_cos:
-- W32: global_load_b128
-- W32: global_store_b128
-- W64-LABEL: unary_all_10_cos:
-- W64: global_load_dwordx4
-- W64: global_store_dwordx4
-- W32-LABEL: unary_all_11_sigmoid:
-- W32: global_load_b128
-- W32: global_store_b128
-- W64-LABEL: unary_all_11_sigmoid:
-- W64: global_load_dwordx4
-- W64: global_store_dwordx4
-- W32-LABEL: unary_all_12_relu:
-- W32: global_load_b128
-- W32: global_store_b128
-- W64-LABEL: unary_all_12_relu:
-- W64: global_load_dwordx4
-- W64: global_store_dwordx4
-- W32-LABEL: unary_all_13_silu:
-- W32: global_load_b128
-- W32: global_store_b128
-- W64-LABEL: unary_all_13_silu:
-- W64: global_load_dwordx4
-- W64: global_store_dwordx4
-- W32-LABEL: unary_all_14_gelu:
-- W32: global_load_b128
-- W32: global_store_b128
-- W64-LABEL: unary_all_14_gelu:
-- W64: global_load_dwordx4
-- W64: global_store_dwordx4
-- W32-LABEL: unary_all_15_gelu_erf:
-- W32: global_load_b128
-- W32: global_store_b128
-- W64-LABEL: unary_all_15_gelu_erf:
-- W64: global_load_dwordx4
-- W64: global_store_dwordx4
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
local T = sym("T", 16)
local x = input("x", bf16, { T, 4096 })
output("y_exp", exp(x))
output("y_log", log(x))
output("y_sqrt", sqrt(x))
output("rsqrt", rsqrt(x))
output("recip", recip(x))
output("neg", neg(x))
output("y_abs", abs(x))
output("sqr", sqr(x))
output("y_tanh", tanh(x))
output("y_sin", sin(x))
output("y_cos", cos(x))
output("sigmoid", sigmoid(x))
output("relu", relu(x))
output("silu", silu(x))
output("gelu", gelu(x))
output("gelu_erf", gelu_erf(x))
