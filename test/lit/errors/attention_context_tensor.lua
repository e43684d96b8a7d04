-- attention: context and layer are for a cache, not for key tensors.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local S = sym("S", 16)
local q = input("q", f16, { 4, 8, 64 })
local k = input("k", f16, { S, 2, 64 })
local v = input("v", f16, { S, 2, 64 })
-- CHECK: attention_context_tensor.lua:[[@LINE+1]]: error: attention: attribute context is for a KV cache [L, KVH, S, D]; k is [S, 2, 64]
output("y", attention(q, k, v, { context = S }))
