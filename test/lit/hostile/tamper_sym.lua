-- a sym's max cannot be changed after the ops checked it: a sym is a
-- read-only handle.
-- RUN: rm -rf %t; timeout 6 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local T = sym("T", 8)
local x = input("x", f32, { T, 4 })
output("y", x * 2.0)
-- CHECK: tamper_sym.lua:[[@LINE+1]]: error: sym: field max cannot be changed (kgen's handles are read-only)
T.max = math.maxinteger
