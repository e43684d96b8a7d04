-- no op makes a quantized result: cast to q4_0 is refused.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f16, { 2, 64 })
-- CHECK: matmul_quant_cast.lua:[[@LINE+1]]: error: cast: the result cannot be q4_0, a quantized (GGUF block) dtype (for weights only)
output("y", cast(x, q4_0))
