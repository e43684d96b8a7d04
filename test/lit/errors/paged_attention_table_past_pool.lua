-- paged_attention: a block table cannot reach past the pool.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local T, B = sym("T", 64), sym("B", 8)
local q = input("q", f16, { T, 8, 64 })
local pos, seq = input("pos", i32, { T }), input("seq", i32, { T })
local ctx = input("ctx", i32, { B })
local kc = input("kc", f16, { 1, 2, 256, 64 })
local bt = input("bt", i32, { B, 17 })
-- CHECK: paged_attention_table_past_pool.lua:[[@LINE+1]]: error: paged_attention: a block table of 17 blocks of 16 reaches past the pool's 256 slots
output("y", paged_attention(q, kc, kc, pos, seq, ctx, bt, { block_size = 16 }))
