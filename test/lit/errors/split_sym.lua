-- A weight is split along a constant dim.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
ranks(2)
local N = sym("N", 64)
-- CHECK: split_sym.lua:[[@LINE+1]]: error: weight w: the split dim 1 must be a constant
local w = weight("w", bf16, { N, 64 }, { split = 1 })
