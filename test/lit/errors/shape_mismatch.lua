-- operands of different shapes.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local T = sym("T", 8)
local a = input("a", f16, { T, 64 })
local b = input("b", f16, { T, 32 })
-- CHECK: shape_mismatch.lua:[[@LINE+1]]: error: mul: shape mismatch: [T, 64] vs [T, 32]
output("y", mul(a, b))
