-- where's operands must broadcast to one shape.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local c = input("c", i32, { 4, 64 })
local a = input("a", f16, { 4, 64 })
local b = input("b", f16, { 32 })
-- CHECK: where_shape.lua:[[@LINE+1]]: error: where: shape mismatch: [4, 64] vs [4, 64] vs [32]
output("y", where(c, a, b))
