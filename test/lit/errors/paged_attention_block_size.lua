-- paged_attention: the block size is required.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local T, B = sym("T", 64), sym("B", 8)
local q = input("q", f16, { T, 8, 64 })
local pos, seq = input("pos", i32, { T }), input("seq", i32, { T })
local ctx = input("ctx", i32, { B })
local kc = input("kc", f16, { 1, 2, 256, 64 })
local bt = input("bt", i32, { B, 16 })
-- CHECK: paged_attention_block_size.lua:[[@LINE+1]]: error: paged_attention: attribute block_size is required
output("y", paged_attention(q, kc, kc, pos, seq, ctx, bt, { causal = true }))
