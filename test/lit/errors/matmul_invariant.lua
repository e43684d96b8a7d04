-- matmul: invariant is a boolean (true: one GEMV kernel for every M <= 8).
-- RUN: rm -rf %t; timeout 5 %kgen --arch sm_90a %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", bf16, { 2, 64 })
local w = weight("w", bf16, { 64, 64 })
-- CHECK: matmul_invariant.lua:[[@LINE+1]]: error: matmul: attribute invariant must be true or false, got 1
output("y", matmul(x, w, { invariant = 1 }))
