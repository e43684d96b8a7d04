-- matmul: the GEMM of a quantized weight decodes groups of 32 weights, so a
-- tile's bk must be a multiple of 32 (the targets' smaller f32 bk is rounded
-- up; a model's own is refused).
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local T = sym("T", 64)
local x = input("x", f16, { T, 256 })
local w = weight("w", q4_0, { 32, 256 })
-- CHECK: matmul_quant_tile_bk.lua:[[@LINE+1]]: error: matmul: GEMM tile bk = 16: a quantized w needs a multiple of 32 (a decoder group)
output("y", matmul(x, w, { tile = { bk = 16 } }))
