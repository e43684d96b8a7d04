-- ranks(n) comes before any split weight or collective: they took 1 rank.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f32, { 4, 64 })
local y = all_reduce(x)
-- CHECK: ranks_late.lua:[[@LINE+1]]: error: ranks: declared twice, or after a split weight or a collective op (which took 1 rank)
ranks(2)
output("y", y)
