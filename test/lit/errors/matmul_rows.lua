-- matmul: more than 8 rows of x (the sym's max) need the GEMM path, not built yet.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local T = sym("T", 16)
local x = input("x", bf16, { T, 4096 })
local w = weight("w", bf16, { 4096, 4096 })
-- CHECK: matmul_rows.lua:[[@LINE+1]]: error: matmul: x [T, 4096] has up to 16 rows; only the GEMV path (at most 8 rows) is built, the GEMM path is not built yet
output("y", matmul(x, w))
