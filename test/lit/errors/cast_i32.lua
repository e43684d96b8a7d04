-- cast refuses i32 to i32 (the map computes in float).
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local m = input("m", i32, { 8 })
-- CHECK: cast_i32.lua:[[@LINE+1]]: error: cast: x is already i32
output("c", cast(m, i32))
