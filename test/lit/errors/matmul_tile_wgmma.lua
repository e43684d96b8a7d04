-- matmul: a tile that asks for the warpgroup kind (wgmma) must be one it can
-- do: rows of 128 bytes of k (bk 64 for 16-bit x) and one 64 x N fragment
-- per 4 waves. (The same override without mma = "wgmma" takes the target's
-- warp-level tiles instead: lit/ops/matmul_gemm_sm90a.lua.)
-- RUN: rm -rf %t; timeout 5 %kgen --arch sm_90a %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", bf16, { 64, 64 })
local w = weight("w", bf16, { 64, 64 })
-- CHECK: matmul_tile_wgmma.lua:[[@LINE+1]]: error: matmul: GEMM tile 128x256x32, 2x1 waves on sm_90a: a wgmma tile has rows of 128 bytes of k (bk * element size) and one 64 x N fragment per 4 waves
output("y", matmul(x, w, { tile = { mma = "wgmma", bk = 32 } }))
