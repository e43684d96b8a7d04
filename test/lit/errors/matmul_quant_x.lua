-- matmul: only w may be quantized; x must be a float tensor.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = weight("x", q8_0, { 2, 64 })
local w = weight("w", q8_0, { 32, 64 })
-- CHECK: matmul_quant_x.lua:[[@LINE+1]]: error: matmul: x must be f32, f16 or bf16, got q8_0
output("y", matmul(x, w))
