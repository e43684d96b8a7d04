-- a sym's max is a dim too: math.maxinteger is refused where it is declared.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
-- CHECK: size_sym_max.lua:[[@LINE+1]]: error: sym T: max 9223372036854775807 is more than 2^31 - 1
local T = sym("T", math.maxinteger)
local x = input("x", f32, { T, T })
output("y", x * 2.0)
