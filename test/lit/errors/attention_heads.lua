-- attention: H must be a multiple of KVH.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local q = input("q", f16, { 4, 6, 64 })
local k = input("k", f16, { 16, 4, 64 })
local v = input("v", f16, { 16, 4, 64 })
-- CHECK: attention_heads.lua:[[@LINE+1]]: error: attention: q's 6 heads are not a multiple of the 4 KV heads
output("y", attention(q, k, v))
