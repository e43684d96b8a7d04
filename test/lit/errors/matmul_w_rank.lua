-- matmul: w must be [N, K] or batched [B, N, K].
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f32, { 2, 64 })
local w = weight("w", f32, { 2, 2, 32, 64 })
-- CHECK: matmul_w_rank.lua:[[@LINE+1]]: error: matmul: w must be [N, K] or [B, N, K] with constant dims, got [2, 2, 32, 64]
output("y", matmul(x, w))
