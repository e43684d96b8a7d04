-- scatter_add: the scattered dim of x must be a constant.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local V = sym("V", 1000)
local x = input("x", f32, { V, 6 })
local i = input("i", i32, { 4, 6 })
local s = input("s", f32, { 4, 6 })
-- CHECK: scatter_dim_sym.lua:[[@LINE+1]]: error: scatter_add: dim 0 of x must be a constant, got [V, 6]
output("y", scatter_add(x, i, s, { dim = 0 }))
