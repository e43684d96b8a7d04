-- matmul: a batched w [B, N, K] needs x [B, ..., K] with the same B.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f16, { 4, 16, 64 })
local w = weight("w", f16, { 3, 32, 64 })
-- CHECK: matmul_batch_x.lua:[[@LINE+1]]: error: matmul: batched w [3, 32, 64] needs x [3, ..., 64], got [4, 16, 64]
output("y", matmul(x, w))
