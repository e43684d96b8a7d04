-- attention: appended is for a KV cache, whose rows earlier runs wrote.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local S = sym("S", 128)
local q = input("q", f16, { 1, 8, 64 })
local k = input("k", f16, { S, 2, 64 })
local v = input("v", f16, { S, 2, 64 })
-- CHECK: attention_appended.lua:[[@LINE+1]]: error: attention: attribute appended is for a KV cache [L, KVH, S, D]; k is [S, 2, 64]
output("y", attention(q, k, v, { causal = true, appended = true }))
