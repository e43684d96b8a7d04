-- attention: a model's tile that does not fit the target's LDS is refused
-- with what it needs (it is not shrunk, as the target's own tile is).
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local q = input("q", f16, { 64, 8, 128 })
local k = input("k", f16, { 64, 2, 128 })
local v = input("v", f16, { 64, 2, 128 })
-- CHECK: attention_tile_lds.lua:[[@LINE+1]]: error: attention: prefill tile bm 256, bn 256, 16 waves, 1 stages on gfx1100: needs {{[0-9]+}} bytes of LDS, the target has 65536
output("y", attention(q, k, v, { tile = { bm = 256, bn = 256, waves = 16 } }))
