-- matmul: a quantized weight is [N, K], as GGUF stores it; w_layout = "kn" is refused.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local T = sym("T", 16)
local x = input("x", bf16, { T, 256 })
local w = weight("w", q4_k, { 32, 256 })
-- CHECK: matmul_quant_kn.lua:[[@LINE+1]]: error: matmul: a quantized w is [N, K], as GGUF stores it; w_layout = "kn" is for float weights
output("y", matmul(x, w, { w_layout = "kn" }))
