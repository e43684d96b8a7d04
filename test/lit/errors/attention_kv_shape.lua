-- attention: k and v have one shape.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local q = input("q", f16, { 4, 8, 64 })
local k = input("k", f16, { 16, 2, 64 })
local v = input("v", f16, { 12, 2, 64 })
-- CHECK: attention_kv_shape.lua:[[@LINE+1]]: error: attention: k [16, 2, 64] and v [12, 2, 64] must have the same shape
output("y", attention(q, k, v))
