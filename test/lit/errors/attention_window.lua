-- attention: a window is at least one key.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local q = input("q", f16, { 4, 8, 64 })
local k = input("k", f16, { 16, 2, 64 })
local v = input("v", f16, { 16, 2, 64 })
-- CHECK: attention_window.lua:[[@LINE+1]]: error: attention: attribute window must be an integer >= 1, got 0
output("y", attention(q, k, v, { causal = true, window = 0 }))
