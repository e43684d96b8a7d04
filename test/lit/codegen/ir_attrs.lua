-- LLVM IR: kernels are amdgpu_kernel with the work-group size kgen chose.
-- RUN: %kgen --arch gfx1100 --emit=llvm %s -o - | FileCheck %s --check-prefixes=CHECK,W32
-- RUN: %kgen --arch gfx942 --emit=llvm %s -o - | FileCheck %s --check-prefixes=CHECK,W64
-- CHECK-LABEL: define {{.*}}amdgpu_kernel void @ir_attrs_rmsnorm_{{[0-9a-f]+}}(
-- CHECK-LABEL: define {{.*}}amdgpu_kernel void @ir_attrs_silu_{{[0-9a-f]+}}(
-- W32-DAG: "amdgpu-flat-work-group-size"="1,128"
-- W64-DAG: "amdgpu-flat-work-group-size"="1,128"
-- CHECK-DAG: "amdgpu-flat-work-group-size"="1,256"
-- W32-DAG: "target-cpu"="gfx1100"
-- W64-DAG: "target-cpu"="gfx942"
local x = input("x", f16, { 2, 1024 })
output("n", rmsnorm(x))
output("s", silu(x))
