-- attention: q and k must have the same head dim.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local q = input("q", f16, { 4, 8, 64 })
local k = input("k", f16, { 16, 2, 128 })
local v = input("v", f16, { 16, 2, 128 })
-- CHECK: attention_head_dim.lua:[[@LINE+1]]: error: attention: head dim mismatch: q [4, 8, 64] has D = 64, k [16, 2, 128] has D = 128
output("y", attention(q, k, v))
