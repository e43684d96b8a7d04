-- embedding: the table must be [V, D].
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local t = weight("t", f16, { 2, 100, 64 })
local ids = input("ids", i32, { 4 })
-- CHECK: embedding_table.lua:[[@LINE+1]]: error: embedding: table must be [V, D], got [2, 100, 64]
output("y", embedding(t, ids))
