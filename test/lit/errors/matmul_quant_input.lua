-- quantized dtypes are for weights only: not for inputs.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
-- CHECK: matmul_quant_input.lua:[[@LINE+1]]: error: input x: q8_0 is a quantized (GGUF block) dtype, for weights only
local x = input("x", q8_0, { 1, 64 })
local w = weight("w", q8_0, { 32, 64 })
output("y", matmul(x, w))
