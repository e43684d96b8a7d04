-- softmax: offset must be an integer or a sym.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f16, { 4, 64 })
-- CHECK: softmax_offset_type.lua:[[@LINE+1]]: error: softmax: attribute offset must be an integer or a sym, got 1.5
output("y", softmax(x, { causal = true, offset = 1.5 }))
