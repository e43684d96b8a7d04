-- sample: temperature must be >= 0.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f32, { 2, 64 })
local s = input("s", i32, { 1 })
-- CHECK: sample_temperature.lua:[[@LINE+1]]: error: sample: attribute temperature must be finite and >= 0, got -0.5
output("y", sample(x, s, { temperature = -0.5 }))
