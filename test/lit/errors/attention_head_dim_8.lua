-- attention: the head dim is a multiple of 8 (16-byte rows).
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local q = input("q", f16, { 4, 8, 100 })
local k = input("k", f16, { 16, 2, 100 })
local v = input("v", f16, { 16, 2, 100 })
-- CHECK: attention_head_dim_8.lua:[[@LINE+1]]: error: attention: the head dim D must be a multiple of 8 up to 256, got 100
output("y", attention(q, k, v))
