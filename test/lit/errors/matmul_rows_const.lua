-- matmul: the leading dims of x are the rows: 3 x 4 = 12, more than 8.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f32, { 3, 4, 64 })
local w = weight("w", f32, { 16, 64 })
-- CHECK: matmul_rows_const.lua:[[@LINE+1]]: error: matmul: x [3, 4, 64] has up to 12 rows; only the GEMV path (at most 8 rows) is built, the GEMM path is not built yet
output("y", matmul(x, w))
