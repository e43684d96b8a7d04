-- groupnorm: channel and spatial dims must be constants.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local H = sym("H", 64)
local x = input("x", f16, { 2, 12, H, 8 })
-- CHECK: groupnorm_sym.lua:[[@LINE+1]]: error: groupnorm: the channel and spatial dims must be constants, got [2, 12, H, 8]
output("y", groupnorm(x, { groups = 3 }))
