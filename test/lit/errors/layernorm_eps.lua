-- layernorm: eps out of range.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f16, { 2, 64 })
-- CHECK: layernorm_eps.lua:[[@LINE+1]]: error: layernorm: attribute eps must be in (0, 1), got 2
output("y", layernorm(x, { eps = 2 }))
