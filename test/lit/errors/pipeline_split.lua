-- A pipeline (ops placed with on_rank) splits no weight over its ranks.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
ranks(2)
local x = input("x", f32, { 4, 64 })
local y = on_rank(0, function() return exp(x) end)
-- CHECK: pipeline_split.lua:[[@LINE+1]]: error: weight w: tensor parallel in a model that places ops on ranks (on_rank, pipeline parallel): not supported
local w = weight("w", f32, { 64, 64 }, { split = 1 })
output("y", matmul(y, w))
