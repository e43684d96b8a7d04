-- a quantized weight's last dim must be a multiple of its block (32 for q4_0).
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f16, { 1, 33 })
-- CHECK: matmul_quant_k_block.lua:[[@LINE+1]]: error: weight w: a q4_0 weight's last dim must be a multiple of 32 (its block), got 33
local w = weight("w", q4_0, { 64, 33 })
output("y", matmul(x, w))
