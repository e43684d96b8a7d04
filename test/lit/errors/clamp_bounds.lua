-- clamp needs a bound.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f16, { 4, 64 })
-- CHECK: clamp_bounds.lua:[[@LINE+1]]: error: clamp: give min, max or both
output("y", clamp(x, {}))
