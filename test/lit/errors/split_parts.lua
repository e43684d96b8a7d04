-- A split weight's parts divide the ranks.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
ranks(4)
-- CHECK: split_parts.lua:[[@LINE+1]]: error: weight w: parts must be an integer that divides the ranks (4), got 3
local w = weight("w", bf16, { 64, 64 }, { split = 1, parts = 3 })
