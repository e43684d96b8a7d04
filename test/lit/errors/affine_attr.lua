-- affine's numbers must be finite.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f16, { 4, 64 })
-- CHECK: affine_attr.lua:[[@LINE+1]]: error: affine: attribute mul must be finite, got inf
output("y", affine(x, { mul = math.huge }))
