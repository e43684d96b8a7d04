-- early launch (programmatic dependent launch) on sm_90a: a kernel whose
-- template calls kg_dep_wait() is marked KGRT_KERNEL_EARLY_LAUNCH in the
-- table, and its PTX waits with griddepcontrol.wait: rmsnorm, the GEMV with
-- q4_0 weights (M = 1, plain and with a fused epilogue: it copies its first
-- weights before the wait), the float GEMV, also of an activation's rows (it
-- reads nothing before the wait). Each lets the next kernel launch first
-- (launch_dependents), then waits. The GEMM (x of 64 rows) copies its
-- first weight tiles before the wait and x's after it; the GEMM whose w is
-- an input calls it too but is not marked, since that w may not be read
-- before the wait. sm_80 has no early_launch: nothing is marked and no
-- griddepcontrol is emitted (prelude_cuda.hip defines it for
-- __CUDA_ARCH__ >= 900 only), and the two GEMMs, the same code with the same
-- flags, are one kernel. AMD: early_launch_amd.lua.
-- REQUIRES: nvrtc
-- RUN: %kgen --arch sm_90a --emit=table %s -o - | FileCheck %s --check-prefix=SM90A
-- RUN: %kgen --arch sm_90a --emit=asm %s -o - | FileCheck %s --check-prefix=PTX
-- RUN: %kgen --arch sm_80 --emit=table %s -o - | FileCheck %s --check-prefix=SM80
-- RUN: %kgen --arch sm_80 --emit=asm %s -o - | FileCheck %s --check-prefix=PTX80
-- SM90A-LABEL: static const kgrt_kernel_t kernels[7] = {
-- SM90A-NEXT: {"early_launch_rmsnorm_{{[0-9a-f]+}}", {{.*}}, KGRT_KERNEL_EARLY_LAUNCH},
-- SM90A-NEXT: {"early_launch_matmul_{{[0-9a-f]+}}", {{.*}}, KGRT_KERNEL_EARLY_LAUNCH},
-- SM90A-NEXT: {"early_launch_matmul_add_gemv_q_{{[0-9a-f]+}}", {{.*}}, KGRT_KERNEL_EARLY_LAUNCH},
-- SM90A-NEXT: {"early_launch_matmul_{{[0-9a-f]+}}", {{.*}}, KGRT_KERNEL_EARLY_LAUNCH},
-- SM90A-NEXT: {"early_launch_matmul_{{[0-9a-f]+}}", {{.*}}, KGRT_KERNEL_EARLY_LAUNCH},
-- SM90A-NEXT: {"early_launch_matmul_{{[0-9a-f]+}}", {{.*}}, KGRT_KERNEL_EARLY_LAUNCH},
-- SM90A-NEXT: {"early_launch_matmul_{{[0-9a-f]+}}_2", {{.*}}, 0},
-- SM90A-NEXT: };
-- PTX-LABEL: .entry early_launch_rmsnorm_{{[0-9a-f]+}}(
-- PTX: griddepcontrol.launch_dependents;
-- PTX: griddepcontrol.wait;
-- PTX-LABEL: .entry early_launch_matmul_{{[0-9a-f]+}}(
-- PTX: griddepcontrol.wait;
-- PTX-LABEL: .entry early_launch_matmul_add_gemv_q_{{[0-9a-f]+}}(
-- PTX: griddepcontrol.wait;
-- PTX-LABEL: .entry early_launch_matmul_{{[0-9a-f]+}}(
-- PTX: griddepcontrol.wait;
-- PTX-LABEL: .entry early_launch_matmul_{{[0-9a-f]+}}(
-- PTX: griddepcontrol.wait;
-- PTX-LABEL: .entry early_launch_matmul_{{[0-9a-f]+}}(
-- PTX: griddepcontrol.launch_dependents;
-- PTX: cp.async.cg.shared.global
-- PTX: griddepcontrol.wait;
-- PTX: cp.async.cg.shared.global
-- SM80-LABEL: static const kgrt_kernel_t kernels[6] = {
-- SM80-NOT: KGRT_KERNEL_EARLY_LAUNCH
-- SM80: };
-- PTX80-NOT: griddepcontrol
local x = input("x", bf16, { 1, 4096 })
local h = rmsnorm(x, weight("norm", bf16, { 4096 }))
output("h", h) -- a kernel of its own: the GEMVs do not take it in
local w = weight("w", q4_0, { 1024, 4096 })
output("y", matmul(h, w))
output("z", matmul(h, w) + input("r", bf16, { 1, 1024 }))
output("f", matmul(h, weight("wf", bf16, { 1024, 4096 })))
output("a", matmul(x, input("act", bf16, { 256, 4096 })))
output("g", matmul(input("xg", bf16, { 64, 4096 }), weight("wg", bf16, { 1024, 4096 })))
output("b", matmul(input("xb", bf16, { 64, 4096 }), input("wb", bf16, { 1024, 4096 })))
