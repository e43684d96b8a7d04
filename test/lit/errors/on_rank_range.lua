-- on_rank(r, fn): r is one of the ranks ranks(n) declared.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
ranks(2)
local x = input("x", f32, { 4, 64 })
-- CHECK: on_rank_range.lua:[[@LINE+1]]: error: on_rank: r must be a rank from 0 to 1 (ranks(2)), got 2
local y = on_rank(2, function() return exp(x) end)
output("y", y)
