-- rope: positions must be i32 [T] with the tokens of x.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local T = sym("T", 8)
local x = input("x", f16, { T, 4, 64 })
local p = input("p", i32, { 8 })
-- CHECK: rope_positions.lua:[[@LINE+1]]: error: rope: positions shape [8] does not match the tokens of x [T, 4, 64] (want [T])
output("y", rope(x, p))
