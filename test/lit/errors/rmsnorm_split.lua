-- rmsnorm: split is a boolean.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f16, { 2, 64 })
-- CHECK: rmsnorm_split.lua:[[@LINE+1]]: error: rmsnorm: attribute split must be true or false, got 1
output("y", rmsnorm(x, { split = 1 }))
