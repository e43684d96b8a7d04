-- concat: the operands differ only in the joined dim.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local a = input("a", f16, { 1, 8, 4, 4 })
local b = input("b", f16, { 1, 8, 4, 5 })
-- CHECK: concat_shape.lua:[[@LINE+1]]: error: concat: [1, 8, 4, 4] and [1, 8, 4, 5] differ in dim 4, not only in dim 2
output("y", concat(a, b, { dim = 2 }))
