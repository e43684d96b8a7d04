-- each value is 2^47 bytes, but three live at once: an arena of 2^49 bytes.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
-- CHECK: size_arena.lua: error: the plan needs an arena of 562949953421312 bytes for the values live at once, more than 2^48
local x = input("x", f32, { 1 << 23, 1 << 22 })
local a = softmax(x)
local b = softmax(x * 2.0)
local c = softmax(x * 3.0)
output("y", a + b + c)
