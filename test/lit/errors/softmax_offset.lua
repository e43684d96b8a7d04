-- log_softmax: offset without causal.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f16, { 4, 64 })
-- CHECK: softmax_offset.lua:[[@LINE+1]]: error: log_softmax: attribute offset needs causal = true
output("y", log_softmax(x, { offset = 2 }))
