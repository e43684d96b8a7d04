-- an operand that does not broadcast is reported at the line that passed it.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local T = sym("T", 8)
local a = input("a", f16, { T, 64 })
local b = input("b", f16, { 32 })
-- CHECK: broadcast.lua:[[@LINE+1]]: error: add: shape mismatch: [T, 64] vs [32] (each must equal the trailing dims of the longest)
output("y", a + b)
