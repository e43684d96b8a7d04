-- sym: the name `rank` is kgen's (a split model's rank, KGRT_SYM_RANK).
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
-- CHECK: sym_rank.lua:[[@LINE+1]]: error: sym rank: the name is kgen's (a split model's rank)
local r = sym("rank", 4)
