-- a weight cannot be an output: refused at the model's line.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local w = weight("w", f32, { 4 })
output("y", w * 2.0)
-- CHECK: output_weight.lua:[[@LINE+1]]: error: output z: is a weight w itself; outputs must be values an op computes
output("z", w)
