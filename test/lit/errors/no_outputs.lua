-- a model with no outputs.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
-- CHECK: no_outputs.lua: error: the model declares no outputs
local x = input("x", f32, { 4 })
local y = silu(x)
