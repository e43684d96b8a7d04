-- a bad attribute value is reported at the line that passed it.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f16, { 2, 64 })
-- CHECK: bad_attribute.lua:[[@LINE+1]]: error: rmsnorm: attribute eps must be in (0, 1), got -1
output("y", rmsnorm(x, { eps = -1 }))
