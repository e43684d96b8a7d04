-- every unary op on both targets: one map kernel each, the op's expression,
-- 128-bit loads and stores (bf16 x 8) in the ISA and no scratch.
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s
-- RUN: %kgen --arch gfx942 --emit=hip %s -o - | FileCheck %s
-- RUN: %kgen --arch gfx1100 --emit=asm %s -o - | FileCheck %s --check-prefix=W32
-- RUN: %kgen --arch gfx942 --emit=asm %s -o - | FileCheck %s --check-prefix=W64
-- RUN: %kgen --arch gfx1100 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- RUN: %kgen --arch gfx942 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- CHECK-LABEL: unary_all_exp_{{[0-9a-f]+}}(
-- CHECK: kg_from_f32<kg_bf16>(kg_exp(a0))
-- CHECK-LABEL: unary_all_log_{{[0-9a-f]+}}(
-- CHECK: kg_from_f32<kg_bf16>(kg_log(a0))
-- CHECK-LABEL: unary_all_sqrt_{{[0-9a-f]+}}(
-- CHECK: kg_from_f32<kg_bf16>(kg_sqrt(a0))
-- CHECK-LABEL: unary_all_rsqrt_{{[0-9a-f]+}}(
-- CHECK: kg_from_f32<kg_bf16>(kg_rsqrt(a0))
-- CHECK-LABEL: unary_all_recip_{{[0-9a-f]+}}(
-- CHECK: kg_from_f32<kg_bf16>((1.0f / a0))
-- CHECK-LABEL: unary_all_neg_{{[0-9a-f]+}}(
-- CHECK: kg_from_f32<kg_bf16>((-a0))
-- CHECK-LABEL: unary_all_abs_{{[0-9a-f]+}}(
-- CHECK: kg_from_f32<kg_bf16>(kg_fabs(a0))
-- CHECK-LABEL: unary_all_sqr_{{[0-9a-f]+}}(
-- CHECK: kg_from_f32<kg_bf16>((a0 * a0))
-- CHECK-LABEL: unary_all_tanh_{{[0-9a-f]+}}(
-- CHECK: kg_from_f32<kg_bf16>(kg_tanh(a0))
-- CHECK-LABEL: unary_all_sin_{{[0-9a-f]+}}(
-- CHECK: kg_from_f32<kg_bf16>(kg_sin(a0))
-- CHECK-LABEL: unary_all_cos_{{[0-9a-f]+}}(
-- CHECK: kg_from_f32<kg_bf16>(kg_cos(a0))
-- CHECK-LABEL: unary_all_sigmoid_{{[0-9a-f]+}}(
-- CHECK: kg_from_f32<kg_bf16>(kg_sigmoid(a0))
-- CHECK-LABEL: unary_all_relu_{{[0-9a-f]+}}(
-- CHECK: kg_from_f32<kg_bf16>(kg_relu(a0))
-- CHECK-LABEL: unary_all_silu_{{[0-9a-f]+}}(
-- CHECK: kg_from_f32<kg_bf16>(kg_silu(a0))
-- CHECK-LABEL: unary_all_gelu_{{[0-9a-f]+}}(
-- CHECK: kg_from_f32<kg_bf16>(kg_gelu(a0))
-- CHECK-LABEL: unary_all_gelu_erf_{{[0-9a-f]+}}(
-- CHECK: kg_from_f32<kg_bf16>(kg_gelu_erf(a0))
-- W32-LABEL: unary_all_exp_{{[0-9a-f]+}}:
-- W32: global_load_b128
-- W32: global_store_b128
-- W64-LABEL: unary_all_exp_{{[0-9a-f]+}}:
-- W64: global_load_dwordx4
-- W64: global_store_dwordx4
-- W32-LABEL: unary_all_log_{{[0-9a-f]+}}:
-- W32: global_load_b128
-- W32: global_store_b128
-- W64-LABEL: unary_all_log_{{[0-9a-f]+}}:
-- W64: global_load_dwordx4
-- W64: global_store_dwordx4
-- W32-LABEL: unary_all_sqrt_{{[0-9a-f]+}}:
-- W32: global_load_b128
-- W32: global_store_b128
-- W64-LABEL: unary_all_sqrt_{{[0-9a-f]+}}:
-- W64: global_load_dwordx4
-- W64: global_store_dwordx4
-- W32-LABEL: unary_all_rsqrt_{{[0-9a-f]+}}:
-- W32: global_load_b128
-- W32: global_store_b128
-- W64-LABEL: unary_all_rsqrt_{{[0-9a-f]+}}:
-- W64: global_load_dwordx4
-- W64: global_store_dwordx4
-- W32-LABEL: unary_all_recip_{{[0-9a-f]+}}:
-- W32: global_load_b128
-- W32: global_store_b128
-- W64-LABEL: unary_all_recip_{{[0-9a-f]+}}:
-- W64: global_load_dwordx4
-- W64: global_store_dwordx4
-- W32-LABEL: unary_all_neg_{{[0-9a-f]+}}:
-- W32: global_load_b128
-- W32: global_store_b128
-- W64-LABEL: unary_all_neg_{{[0-9a-f]+}}:
-- W64: global_load_dwordx4
-- W64: global_store_dwordx4
-- W32-LABEL: unary_all_abs_{{[0-9a-f]+}}:
-- W32: global_load_b128
-- W32: global_store_b128
-- W64-LABEL: unary_all_abs_{{[0-9a-f]+}}:
-- W64: global_load_dwordx4
-- W64: global_store_dwordx4
-- W32-LABEL: unary_all_sqr_{{[0-9a-f]+}}:
-- W32: global_load_b128
-- W32: global_store_b128
-- W64-LABEL: unary_all_sqr_{{[0-9a-f]+}}:
-- W64: global_load_dwordx4
-- W64: global_store_dwordx4
-- W32-LABEL: unary_all_tanh_{{[0-9a-f]+}}:
-- W32: global_load_b128
-- W32: global_store_b128
-- W64-LABEL: unary_all_tanh_{{[0-9a-f]+}}:
-- W64: global_load_dwordx4
-- W64: global_store_dwordx4
-- W32-LABEL: unary_all_sin_{{[0-9a-f]+}}:
-- W32: global_load_b128
-- W32: global_store_b128
-- W64-LABEL: unary_all_sin_{{[0-9a-f]+}}:
-- W64: global_load_dwordx4
-- W64: global_store_dwordx4
-- W32-LABEL: unary_all_cos_{{[0-9a-f]+}}:
-- W32: global_load_b128
-- W32: global_store_b128
-- W64-LABEL: unary_all_cos_{{[0-9a-f]+}}:
-- W64: global_load_dwordx4
-- W64: global_store_dwordx4
-- W32-LABEL: unary_all_sigmoid_{{[0-9a-f]+}}:
-- W32: global_load_b128
-- W32: global_store_b128
-- W64-LABEL: unary_all_sigmoid_{{[0-9a-f]+}}:
-- W64: global_load_dwordx4
-- W64: global_store_dwordx4
-- W32-LABEL: unary_all_relu_{{[0-9a-f]+}}:
-- W32: global_load_b128
-- W32: global_store_b128
-- W64-LABEL: unary_all_relu_{{[0-9a-f]+}}:
-- W64: global_load_dwordx4
-- W64: global_store_dwordx4
-- W32-LABEL: unary_all_silu_{{[0-9a-f]+}}:
-- W32: global_load_b128
-- W32: global_store_b128
-- W64-LABEL: unary_all_silu_{{[0-9a-f]+}}:
-- W64: global_load_dwordx4
-- W64: global_store_dwordx4
-- W32-LABEL: unary_all_gelu_{{[0-9a-f]+}}:
-- W32: global_load_b128
-- W32: global_store_b128
-- W64-LABEL: unary_all_gelu_{{[0-9a-f]+}}:
-- W64: global_load_dwordx4
-- W64: global_store_dwordx4
-- W32-LABEL: unary_all_gelu_erf_{{[0-9a-f]+}}:
-- W32: global_load_b128
-- W32: global_store_b128
-- W64-LABEL: unary_all_gelu_erf_{{[0-9a-f]+}}:
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
