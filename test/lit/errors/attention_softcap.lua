-- attention: the soft-cap is finite and positive.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local q = input("q", f16, { 4, 8, 64 })
local k = input("k", f16, { 16, 2, 64 })
local v = input("v", f16, { 16, 2, 64 })
-- CHECK: attention_softcap.lua:[[@LINE+1]]: error: attention: attribute softcap must be finite and > 0, got 0
output("y", attention(q, k, v, { softcap = 0 }))
