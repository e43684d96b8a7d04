-- attention: a tile's rows are whole fragments for every wave.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local q = input("q", f16, { 64, 8, 64 })
local k = input("k", f16, { 64, 2, 64 })
local v = input("v", f16, { 64, 2, 64 })
-- CHECK: attention_tile_rows.lua:[[@LINE+1]]: error: attention: prefill tile bm 48, bn 32, 4 waves, 1 stages on gfx1100: bm must be a multiple of waves x 16 (the fragment's rows)
output("y", attention(q, k, v, { tile = { bm = 48, waves = 4 } }))
