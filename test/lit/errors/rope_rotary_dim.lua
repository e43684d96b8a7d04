-- rope: rotary_dim larger than the head dim is refused.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local T = sym("T", 8)
local x = input("x", f16, { T, 4, 64 })
local p = input("p", i32, { T })
-- CHECK: rope_rotary_dim.lua:[[@LINE+1]]: error: rope: attribute rotary_dim must be <= the head dim 64, got 128
output("y", rope(x, p, { rotary_dim = 128 }))
