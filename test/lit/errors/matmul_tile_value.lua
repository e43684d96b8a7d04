-- matmul: a tile's sizes are whole numbers from 1 to 4096, refused at the
-- model's line otherwise (not an error inside kgen's library at lowering).
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
-- RUN: sed 's/bm = 0/bm = 1.5/' %s > %t.half.lua
-- RUN: not %kgen --arch gfx1100 %t.half.lua 2>&1 | FileCheck %s --check-prefix=HALF
-- RUN: sed 's/bm = 0/waves_n = "2"/' %s > %t.text.lua
-- RUN: not %kgen --arch gfx1100 %t.text.lua 2>&1 | FileCheck %s --check-prefix=TEXT
-- RUN: sed 's/bm = 0/shape = { 16, 16 }/' %s > %t.shape.lua
-- RUN: not %kgen --arch gfx1100 %t.shape.lua 2>&1 | FileCheck %s --check-prefix=SHAPE
local x = input("x", f16, { 64, 64 })
local w = weight("w", f16, { 64, 64 })
-- CHECK: matmul_tile_value.lua:[[@LINE+4]]: error: matmul: attribute tile must have bm a whole number from 1 to 4096 (not 0), got a table
-- HALF: half.lua:[[@LINE+3]]: error: matmul: attribute tile must have bm a whole number from 1 to 4096 (not 1.5), got a table
-- TEXT: text.lua:[[@LINE+2]]: error: matmul: attribute tile must have waves_n a whole number from 1 to 4096 (not string), got a table
-- SHAPE: shape.lua:[[@LINE+1]]: error: matmul: attribute tile must have shape a list of 3 whole numbers (m, n, k), got a table
output("y", matmul(x, w, { tile = { bm = 0 } }))
