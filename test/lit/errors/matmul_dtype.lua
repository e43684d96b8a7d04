-- matmul: x and w must have the same dtype.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f16, { 2, 64 })
local w = weight("w", bf16, { 32, 64 })
-- CHECK: matmul_dtype.lua:[[@LINE+1]]: error: matmul: dtype mismatch: x is f16, w is bf16
output("y", matmul(x, w))
