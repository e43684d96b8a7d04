-- kv_slots: the block tables' width is a constant.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local T, B = sym("T", 64), sym("B", 8)
local pos, seq = input("pos", i32, { T }), input("seq", i32, { T })
-- CHECK: kv_slots_blocks.lua:[[@LINE+1]]: error: kv_slots: blocks must be [B, MAXB] (MAXB a constant), got [B, T]
output("s", kv_slots(pos, seq, input("bt", i32, { B, T }), { block_size = 16 }))
