-- a weight whose shape does not match the row.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f16, { 4, 64 })
local w = weight("w", f16, { 32 })
-- CHECK: weight_shape.lua:[[@LINE+1]]: error: rmsnorm: weight shape [32] does not match the last dim of x [4, 64]
output("y", rmsnorm(x, w))
