-- matmul: w's dims must be constants.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local S = sym("S", 4)
local x = input("x", f32, { 2, 64 })
local w = input("w", f32, { S, 64 })
-- CHECK: matmul_w_sym.lua:[[@LINE+1]]: error: matmul: w must be [N, K] or [B, N, K] with constant dims, got [S, 64]
output("y", matmul(x, w))
