-- An epilogue that reads the matmul's own x (x + matmul(x, w)) gets x as an
-- epilogue operand of its own: the kernel compiles (it once named a0, x's
-- slot, which the epilogue does not declare).
-- RUN: %kgen --arch gfx1100 --no-sim %s | FileCheck %s
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s --check-prefix=HIP
-- CHECK: epilogue_reads_x_matmul_add_gemv_{{[0-9a-f]+}} gfx1100
-- HIP: kg_st(y, idx, kg_from_f32<kg_f16>((a2 + acc0)));
local T = sym("T", 64)
local x = input("x", f16, { T, 512 })
output("y", x + matmul(x, weight("w", f16, { 512, 512 })))
