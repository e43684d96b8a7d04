-- transpose: x needs two dims to swap.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f16, { 64 })
-- CHECK: transpose_rank.lua:[[@LINE+1]]: error: transpose: x must have at least 2 dims, got [64]
output("y", transpose(x))
