-- reduce: keepdim must be a boolean.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f16, { 2, 64 })
-- CHECK: reduce_keepdim.lua:[[@LINE+1]]: error: sum: attribute keepdim must be true or false, got 1
output("y", sum(x, { keepdim = 1 }))
