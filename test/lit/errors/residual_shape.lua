-- rmsnorm_residual: x and r of different shapes.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f16, { 2, 64 })
local r = input("r", f16, { 4, 64 })
-- CHECK: residual_shape.lua:[[@LINE+1]]: error: rmsnorm_residual: shape mismatch: [2, 64] vs [4, 64]
local y, h = rmsnorm_residual(x, r)
output("y", y)
