-- matmul: a quantized weight cannot be batched ([B, N, K]).
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local T = sym("T", 16)
local x = input("x", f16, { 2, T, 256 })
local w = weight("w", q8_0, { 2, 32, 256 })
-- CHECK: matmul_quant_batched.lua:[[@LINE+1]]: error: matmul: a quantized w cannot be batched (w [2, 32, 256]): it must be [N, K]
output("y", matmul(x, w))
