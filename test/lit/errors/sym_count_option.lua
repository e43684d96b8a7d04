-- sym's options: count alone, true or false.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
-- CHECK: sym_count_option.lua:[[@LINE+1]]: error: sym N: unknown option zero (count)
local N = sym("N", 64, { zero = true })
output("y", input("x", f16, { 8 }) * 2)
