-- a broadcast operand must have a constant shape.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local B = sym("B", 4)
local T = sym("T", 8)
local a = input("a", f16, { B, T, 64 })
local b = input("b", f16, { T, 64 })
-- CHECK: broadcast_sym.lua:[[@LINE+1]]: error: mul: operand 2 [T, 64] is broadcast, so its dims must be constants
output("y", mul(a, b))
