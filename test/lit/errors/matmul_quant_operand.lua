-- a quantized weight is an operand of matmul (as w) only, even where an op takes any dtype.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local w = weight("w", q4_0, { 2, 64 })
local x = input("x", f16, { 2, 64 })
-- CHECK: matmul_quant_operand.lua:[[@LINE+1]]: error: where: operand 1 (cond) is q4_0, a quantized (GGUF block) dtype; only matmul's w may be quantized
output("y", where(w, x, x))
