-- sample: run-time settings need a counter (each row's Philox counter).
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f32, { 4, 100 })
-- CHECK: sample_params_counter.lua:[[@LINE+1]]: error: sample: params need a counter operand (i32 [rows])
output("t", sample(x, input("seed", i32, { 4 }), input("params", f32, { 4, 4 })))
