-- sample: top_k must be a non-negative integer.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f32, { 2, 64 })
local s = input("s", i32, { 1 })
-- CHECK: sample_top_k.lua:[[@LINE+1]]: error: sample: attribute top_k must be an integer >= 0 (0: off), got -1
output("y", sample(x, s, { top_k = -1 }))
