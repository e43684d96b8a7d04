-- countsketch: width must be at least 1.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f32, { 2, 64 })
-- CHECK: countsketch_width.lua:[[@LINE+1]]: error: countsketch: attribute width must be an integer in [1, 2^24], got 0
output("y", countsketch(x, { width = 0 }))
