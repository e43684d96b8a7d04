-- embedding: a table split by rows must have one part per rank (the rank's
-- first row is rank x the part's rows).
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
ranks(4)
local t = weight("t", bf16, { 500, 64 }, { split = 1, parts = 2 })
local ids = input("ids", i32, { 4 })
-- CHECK: embedding_split_parts.lua:[[@LINE+1]]: error: embedding: a table split by rows must have a part for each rank (4), got 2 parts
output("y", embedding(t, ids))
