-- attention: k is [S, KVH, D] or a cache [L, KVH, S, D].
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local q = input("q", f16, { 4, 8, 64 })
local k = input("k", f16, { 16, 64 })
local v = input("v", f16, { 16, 64 })
-- CHECK: attention_k_rank.lua:[[@LINE+1]]: error: attention: k must be [S, KVH, D] or a KV cache [L, KVH, S, D], got [16, 64]
output("y", attention(q, k, v))
