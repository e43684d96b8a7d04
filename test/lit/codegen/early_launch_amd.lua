-- early launch on AMD: the targets have no early_launch, so a kernel whose
-- template calls kg_dep_wait() (gemv_q) is not marked, and kg_dep_wait() is
-- common.hip's no-op. sm_90a: early_launch.lua.
-- RUN: %kgen --arch gfx1100 --emit=table %s -o - | FileCheck %s
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s --check-prefix=HIP
-- CHECK-LABEL: static const kgrt_kernel_t kernels[2] = {
-- CHECK-NEXT: {"early_launch_amd_rmsnorm_{{[0-9a-f]+}}", {{.*}}, 0},
-- CHECK-NEXT: {"early_launch_amd_matmul_{{[0-9a-f]+}}", {{.*}}, 0},
-- CHECK-NEXT: };
-- HIP: KG_INLINE void kg_dep_wait() {}
-- HIP-LABEL: early_launch_amd_matmul_{{[0-9a-f]+}}(
-- HIP: {{^ *}}kg_dep_wait();
local x = input("x", bf16, { 1, 4096 })
local h = rmsnorm(x, weight("norm", bf16, { 4096 }))
output("h", h) -- a kernel of its own: the GEMV does not take it in
output("y", matmul(h, weight("w", q4_0, { 1024, 4096 })))
