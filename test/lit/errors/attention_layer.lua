-- attention: the cache layer must exist.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local q = input("q", f16, { 1, 8, 64 })
local kc = input("kc", f16, { 2, 2, 128, 64 })
local vc = input("vc", f16, { 2, 2, 128, 64 })
-- CHECK: attention_layer.lua:[[@LINE+1]]: error: attention: attribute layer must be < the cache's 2 layers, got 2
output("y", attention(q, kc, vc, { layer = 2, context = 16 }))
