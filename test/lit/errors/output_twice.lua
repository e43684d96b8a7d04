-- one tensor is one output: a second name for it is refused at the model's
-- line.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local y = input("x", f32, { 4 }) * 2.0
output("y", y)
-- CHECK: output_twice.lua:[[@LINE+1]]: error: output z: the tensor is already output y
output("z", y)
