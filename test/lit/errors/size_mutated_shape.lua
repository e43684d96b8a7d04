-- a shape changed after the ops checked it (the model still sees kgen's own
-- tables): C checks every size it reads back.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
-- CHECK: size_mutated_shape.lua: error: input x: dim 1 is 4611686018427387904, not in 1 .. 2^31 - 1 (or a sym)
local x = input("x", f32, { 4 })
output("y", x * 2.0)
x.shape[1] = 1 << 62
