-- ranks(n) takes a count from 1 to 64.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
-- CHECK: ranks_count.lua:[[@LINE+1]]: error: ranks: n must be an integer from 1 to 64, got 0
ranks(0)
