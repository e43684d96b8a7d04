-- Kernels are named by their content: four identical layers (RMSNorm, then a
-- projection with a residual add, GEMV and GEMM variants; the GEMV takes the
-- norm in, the norm's own kernel runs for the GEMM) compile to the kernels of
-- one, each once in the source, and the plan's 12 steps run them; a model of
-- one layer (inputs/one_layer.lua) gets the same hashes. The RMSNorm of the
-- last layer takes another eps, so its kernel and its GEMV are others.
-- RUN: %kgen --arch gfx1100 --no-sim %s > %t.four
-- RUN: FileCheck %s --check-prefix=SUM < %t.four
-- RUN: %kgen --arch gfx1100 --no-sim %S/inputs/one_layer.lua > %t.one
-- RUN: sed -n 's/^[a-z_]*_\([0-9a-f]\{8\}\) .*/\1/p' %t.four | head -3 > %t.four.hash
-- RUN: sed -n 's/^[a-z_]*_\([0-9a-f]\{8\}\) .*/\1/p' %t.one > %t.one.hash
-- RUN: test $(wc -l < %t.one.hash) -eq 3 && diff %t.four.hash %t.one.hash
-- RUN: %kgen --arch gfx1100 --emit=table %s -o - | FileCheck %s --check-prefix=TABLE
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s --check-prefix=HIP
-- SUM: content_addressed_rmsnorm_{{[0-9a-f]+}} gfx1100
-- SUM-NEXT: content_addressed_rmsnorm_matmul_add_gemv_{{[0-9a-f]+}} gfx1100
-- SUM-NEXT: content_addressed_matmul_add_gemm_{{[0-9a-f]+}} gfx1100
-- SUM-NEXT: content_addressed_rmsnorm_{{[0-9a-f]+}} gfx1100
-- SUM-NEXT: content_addressed_rmsnorm_matmul_add_gemv_{{[0-9a-f]+}} gfx1100
-- SUM-NOT: gfx1100
-- TABLE: static const kgrt_kernel_t kernels[5] = {
-- TABLE: static const kgrt_step_t steps[12] = {
-- TABLE-NEXT: {0, {{.*}} s0_args, 0, 0, -1},
-- TABLE-NEXT: {1, {{.*}} s1_args, 0, 0, -1},
-- TABLE-NEXT: {2, {{.*}} s2_args, 0, 0, -1},
-- TABLE-NEXT: {0, {{.*}} s3_args, 0, 0, -1},
-- TABLE-NEXT: {1, {{.*}} s4_args, 0, 0, -1},
-- TABLE-NEXT: {2, {{.*}} s5_args, 0, 0, -1},
-- TABLE-NEXT: {0, {{.*}} s6_args, 0, 0, -1},
-- TABLE-NEXT: {1, {{.*}} s7_args, 0, 0, -1},
-- TABLE-NEXT: {2, {{.*}} s8_args, 0, 0, -1},
-- TABLE-NEXT: {3, {{.*}} s9_args, 0, 0, -1},
-- TABLE-NEXT: {4, {{.*}} s10_args, 0, 0, -1},
-- TABLE-NEXT: {2, {{.*}} s11_args, 0, 0, -1},
-- HIP: {{^}}content_addressed_rmsnorm_{{[0-9a-f]+}}(
-- HIP: {{^}}content_addressed_rmsnorm_matmul_add_gemv_{{[0-9a-f]+}}(
-- HIP-NOT: {{^}}content_addressed_matmul_add_gemv_{{[0-9a-f]+}}(
-- HIP: {{^}}content_addressed_matmul_add_gemm_{{[0-9a-f]+}}(
-- HIP-NOT: {{^}}content_addressed_matmul_add_gemm_{{[0-9a-f]+}}(
-- HIP: {{^}}content_addressed_rmsnorm_{{[0-9a-f]+}}(
-- HIP: {{^}}content_addressed_rmsnorm_matmul_add_gemv_{{[0-9a-f]+}}(
-- HIP-NOT: {{^}}content_addressed_{{[a-z_]+}}_{{[0-9a-f]+}}(
local T = sym("T", 64)
local x = input("x", f16, { T, 512 })
for l = 0, 3 do
  local h = rmsnorm(x, weight("n" .. l, f16, { 512 }), { eps = l == 3 and 1e-6 or 1e-5 })
  x = x + matmul(h, weight("w" .. l, f16, { 512, 512 }))
end
output("y", x)
