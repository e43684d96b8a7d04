-- a quantized weight's last dim must be a constant multiple of its block (256 for q4_k).
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local K = sym("K", 4096)
-- CHECK: matmul_quant_k_sym.lua:[[@LINE+1]]: error: weight w: a q4_k weight's last dim must be a multiple of 256 (its block), got K
local w = weight("w", q4_k, { 64, K })
output("y", matmul(input("x", f16, { 1, K }), w))
