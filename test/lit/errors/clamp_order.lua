-- clamp's min may not be above its max.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f16, { 4, 64 })
-- CHECK: clamp_order.lua:[[@LINE+1]]: error: clamp: min 2.0f is above max 1.0f
output("y", clamp(x, { min = 2, max = 1 }))
