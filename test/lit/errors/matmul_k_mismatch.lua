-- matmul: x's K must match w's (w is [N, K]).
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f16, { 2, 64 })
local w = weight("w", f16, { 32, 128 })
-- CHECK: matmul_k_mismatch.lua:[[@LINE+1]]: error: matmul: K mismatch: x [2, 64] has K = 64, w [32, 128] has K = 128
output("y", matmul(x, w))
