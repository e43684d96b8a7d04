-- concat: the joined dim and those after it are constants.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local T = sym("T", 64)
local a = input("a", f16, { T, 8 })
-- CHECK: concat_sym.lua:[[@LINE+1]]: error: concat: dim 1 and those after it must be constants, got [T, 8] and [T, 8]
output("y", concat(a, a, { dim = 1 }))
