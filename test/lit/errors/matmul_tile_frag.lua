-- matmul: a wave's part of the tile must be whole fragments of the instruction.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", bf16, { 64, 64 })
local w = weight("w", bf16, { 64, 64 })
-- CHECK: matmul_tile_frag.lua:[[@LINE+1]]: error: matmul: GEMM tile 40x128x32, 4x2 waves on gfx1100: a wave's part is not whole 16x16 fragments
output("y", matmul(x, w, { tile = { bm = 40 } }))
