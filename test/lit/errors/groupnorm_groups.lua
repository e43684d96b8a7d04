-- groupnorm: groups must divide the channels.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f16, { 2, 12, 8, 8 })
-- CHECK: groupnorm_groups.lua:[[@LINE+1]]: error: groupnorm: groups 5 does not divide the 12 channels of x [2, 12, 8, 8]
output("y", groupnorm(x, { groups = 5 }))
