-- rope: an odd head dim is refused.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f32, { 2, 4, 63 })
local p = input("p", i32, { 2 })
-- CHECK: rope_odd_dim.lua:[[@LINE+1]]: error: rope: the head dim D must be even, got 63
output("y", rope(x, p))
