-- sample: the seed is i32 [1] or [2].
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f32, { 2, 64 })
local s = input("s", i32, { 3 })
-- CHECK: sample_seed.lua:[[@LINE+1]]: error: sample: seed must be i32 [1] or [2], got i32[3]
output("y", sample(x, s))
