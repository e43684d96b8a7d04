-- exhaustion: the count of outputs (and of inputs, weights, ops, tensors and
-- syms) is capped at the model's line.
-- RUN: rm -rf %t; timeout 6 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f32, { 4 })
-- CHECK: many_outputs.lua:[[@LINE+1]]: error: output y4096: more than 4096 outputs
for i = 0, 5000 do output("y" .. i, x * 2.0) end
