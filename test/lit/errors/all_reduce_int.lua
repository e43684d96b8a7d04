-- all_reduce sums floats.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
ranks(2)
local x = input("x", i32, { 4 })
-- CHECK: all_reduce_int.lua:[[@LINE+1]]: error: all_reduce: x must be f32, f16 or bf16, got i32
output("y", all_reduce(x))
