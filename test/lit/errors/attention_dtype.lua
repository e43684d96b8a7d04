-- attention: q, k and v share one dtype.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local q = input("q", f16, { 4, 8, 64 })
local k = input("k", bf16, { 16, 2, 64 })
local v = input("v", bf16, { 16, 2, 64 })
-- CHECK: attention_dtype.lua:[[@LINE+1]]: error: attention: dtype mismatch: q is f16, k is bf16, v is bf16
output("y", attention(q, k, v))
