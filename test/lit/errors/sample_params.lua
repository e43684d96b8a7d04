-- sample: run-time settings are f32 [rows, 4], a row each.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f32, { 4, 100 })
local seed, counter = input("seed", i32, { 4 }), input("counter", i32, { 4 })
-- CHECK: sample_params.lua:[[@LINE+1]]: error: sample: params must be f32[4, 4] (logits [4, 100]), got f32[4, 3]
output("t", sample(x, seed, input("params", f32, { 4, 3 }), counter))
