-- attention's decode path: each split takes at least min_tiles key tiles
-- (the target's decode table, 1 on gfx1100, or the model's decode
-- attribute), so that at a short context fewer splits have tiles (T = 1:
-- the decode path alone).
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s
local S = sym("S", 4096)
local k = input("k", bf16, { S, 2, 64 })
local v = input("v", bf16, { S, 2, 64 })
-- CHECK-LABEL: attention_min_tiles_attention_{{[0-9a-f]+}}(
-- CHECK: const int pmin = ntiles < 1 ? ntiles : 1;
output("y1", attention(input("q1", bf16, { 1, 8, 64 }), k, v))
-- CHECK-LABEL: attention_min_tiles_attention_{{[0-9a-f]+}}(
-- CHECK: const int pmin = ntiles < 3 ? ntiles : 3;
output("y3", attention(input("q3", bf16, { 1, 8, 64 }), k, v, { decode = { min_tiles = 3 } }))
