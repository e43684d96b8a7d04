-- groupnorm: a weight that is not one per channel.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f16, { 2, 12, 8, 8 })
local w = weight("w", f16, { 6 })
-- CHECK: groupnorm_weight.lua:[[@LINE+1]]: error: groupnorm: weight shape [6] does not match the channels of x [2, 12, 8, 8]
output("y", groupnorm(x, w, { groups = 3 }))
