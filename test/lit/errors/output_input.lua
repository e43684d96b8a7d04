-- an input cannot be an output: refused at the model's line.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f32, { 4 })
-- CHECK: output_input.lua:[[@LINE+1]]: error: output y: is an input x itself; outputs must be values an op computes
output("y", x)
