-- an attribute the op does not have is an error listing the known ones.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f16, { 2, 64 })
-- CHECK: unknown_attribute.lua:[[@LINE+1]]: error: softmax: unknown attribute temperature (known: causal, offset, scale)
output("y", softmax(x, { temperature = 2 }))
