-- a sym needs a max (the plan reserves memory for it).
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
-- CHECK: sym_max.lua:[[@LINE+1]]: error: sym T: max must be a positive integer
local T = sym("T")
