-- reshape: a view, no kernel: the QKV projection's [T, 512] result is read
-- by rope as [T, 4, 128] from the same buffer; the table holds the matmul's
-- kernels and rope's, none for the reshape.
-- RUN: %kgen --arch gfx1100 --emit=table %s -o - | FileCheck %s
-- CHECK-LABEL: static const kgrt_kernel_t kernels[3] = {
-- CHECK-NEXT: {"reshape_matmul_gemv_{{[0-9a-f]+}}"
-- CHECK-NEXT: {"reshape_matmul_gemm_{{[0-9a-f]+}}"
-- CHECK-NEXT: {"reshape_rope_{{[0-9a-f]+}}"
-- CHECK-NEXT: };
-- CHECK-NOT: reshape_reshape
local T = sym("T", 64)
local x = input("x", f16, { T, 256 })
local q = reshape(matmul(x, weight("wq", f16, { 512, 256 })), { T, 4, -1 })
output("y", rope(view(q, { T, 4, 128 }), input("pos", i32, { T })))
