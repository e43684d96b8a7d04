-- a sym's max changed after the ops checked it: C checks it again.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
-- CHECK: size_mutated_sym.lua: error: sym T: max 9223372036854775807 is not in 1 .. 2^31 - 1
local T = sym("T", 8)
local x = input("x", f32, { T, 4 })
output("y", x * 2.0)
T.max = math.maxinteger
