-- where's two branches must have one dtype.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local c = input("c", i32, { 4, 64 })
local a = input("a", f16, { 4, 64 })
local b = input("b", f32, { 4, 64 })
-- CHECK: where_dtype.lua:[[@LINE+1]]: error: where: dtype mismatch: f16 vs f32
output("y", where(c, a, b))
