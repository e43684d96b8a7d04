-- A count sym (it may be 0) sizes launches, never a tensor's shape.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local N = sym("N", 64, { count = true })
-- CHECK: sym_count_shape.lua:[[@LINE+1]]: error: input x: dim 1 is sym N, a count (it may be 0): counts size launches, not tensors
output("y", input("x", f16, { N, 8 }) * 2)
