-- attention: the context cannot pass the cache's slots.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local S = sym("S", 256)
local q = input("q", f16, { 1, 8, 64 })
local kc = input("kc", f16, { 2, 2, 128, 64 })
local vc = input("vc", f16, { 2, 2, 128, 64 })
-- CHECK: attention_context_slots.lua:[[@LINE+1]]: error: attention: attribute context can reach 256, past the cache's 128 slots
output("y", attention(q, kc, vc, { context = S }))
