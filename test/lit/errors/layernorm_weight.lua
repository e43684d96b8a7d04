-- layernorm: a weight that does not match the last dim.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f16, { 2, 64 })
local w = weight("w", f16, { 32 })
-- CHECK: layernorm_weight.lua:[[@LINE+1]]: error: layernorm: weight shape [32] does not match the last dim of x [2, 64]
output("y", layernorm(x, w))
