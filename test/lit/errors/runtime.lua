-- a runtime error in the model names the model's line.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f32, { 4 })
local t = nil
-- CHECK: runtime.lua:[[@LINE+1]]: error: attempt to index a nil value (local 't')
local y = t.x
