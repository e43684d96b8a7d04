-- softmax: causal needs [..., Tq, Tk].
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f16, { 64 })
-- CHECK: softmax_causal_rank.lua:[[@LINE+1]]: error: softmax: causal needs x of rank 2 or more ([..., Tq, Tk]), got [64]
output("y", softmax(x, { causal = true }))
