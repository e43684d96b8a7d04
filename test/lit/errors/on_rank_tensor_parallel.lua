-- A tensor-parallel model (here an all_reduce) places no op on one rank:
-- both in one model are not built.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
ranks(2)
local x = input("x", f32, { 4, 64 })
local s = all_reduce(x)
-- CHECK: on_rank_tensor_parallel.lua:[[@LINE+1]]: error: on_rank: the model is tensor parallel (a split weight, all_reduce or all_gather); placing ops on ranks in it is not supported
local y = on_rank(1, function() return exp(s) end)
output("y", y)
