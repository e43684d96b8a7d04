-- attention: the decode attribute takes positive integers.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local q = input("q", f16, { 1, 8, 64 })
local k = input("k", f16, { 64, 2, 64 })
local v = input("v", f16, { 64, 2, 64 })
-- CHECK: attention_decode_splits.lua:[[@LINE+1]]: error: attention: attribute decode must be a table of bn, waves, stages, splits, min_tiles (splits a positive integer), got a table
output("y", attention(q, k, v, { decode = { splits = 0 } }))
