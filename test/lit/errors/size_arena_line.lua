-- Each value fits (2^48 bytes), but three of them live at once pass the
-- arena's 2^49 bytes: the plan says so at the line of the op whose result
-- does not fit, not only the file.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 --no-sim %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
-- CHECK: size_arena_line.lua:11: error: kernel {{.*}}: the arena passes 2^49 bytes with its result (too many large values live at once)
local x = input("x", f32, { 1 << 23, 1 << 23 })
local w = weight("w", f32, { 1 << 23 })
local a = rmsnorm(x, w, { eps = 1e-5 })
local b = rmsnorm(x * 2, w, { eps = 1e-5 })
local c = rmsnorm(x * 3, w, { eps = 1e-5 })
output("y", a + b + c)
