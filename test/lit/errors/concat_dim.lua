-- concat: dim is 1..rank or -rank..-1.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local a = input("a", f16, { 2, 8 })
-- CHECK: concat_dim.lua:[[@LINE+1]]: error: concat: dim must be an integer in 1..2 or -2..-1, got 3
output("y", concat(a, a, { dim = 3 }))
