-- matmul: a tile override that does not fit the target's LDS is refused, per target.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx942 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f16, { 64, 64 })
local w = weight("w", f16, { 64, 64 })
-- CHECK: matmul_tile_lds.lua:[[@LINE+1]]: error: matmul: GEMM tile 256x256x64, 2x2 waves on gfx942: needs 148480 bytes of LDS, the target has 65536
output("y", matmul(x, w, { tile = { bm = 256, bn = 256, bk = 64 } }))
