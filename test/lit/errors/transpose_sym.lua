-- transpose: the two dims it swaps are constants (the tiles are planned).
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local T = sym("T", 64)
local x = input("x", f16, { T, 64 })
-- CHECK: transpose_sym.lua:[[@LINE+1]]: error: transpose: the last two dims must be constants, got [T, 64]
output("y", transpose(x))
