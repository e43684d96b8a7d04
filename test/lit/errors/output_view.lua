-- a view (reshape, split) is not an output: refused at the model's line.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local y = input("x", f32, { 4, 4 }) * 2.0
-- CHECK: output_view.lua:[[@LINE+1]]: error: output y: is a view (reshape, split) of another value; outputs must be values a kernel computes (output the value itself)
output("y", reshape(y, { 16 }))
