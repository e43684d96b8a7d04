-- matmul: a tile override names only tile keys.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f16, { 64, 64 })
local w = weight("w", f16, { 64, 64 })
-- CHECK: matmul_tile_key.lua:[[@LINE+1]]: error: matmul: attribute tile must be a table of bm, bn, bk, waves_m, waves_n, stages, mma, shape (not bmm), got a table
output("y", matmul(x, w, { tile = { bmm = 64 } }))
