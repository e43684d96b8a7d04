-- srht: out has no default.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f32, { 2, 64 })
-- CHECK: srht_no_out.lua:[[@LINE+1]]: error: srht: attribute out is required
output("y", srht(x))
