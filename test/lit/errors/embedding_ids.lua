-- embedding: ids must be i32.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local t = weight("t", f16, { 100, 64 })
local ids = input("ids", f32, { 4 })
-- CHECK: embedding_ids.lua:[[@LINE+1]]: error: embedding: ids must be i32, got f32
output("y", embedding(t, ids))
