-- fill takes float dtypes only.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local T = sym("T", 8)
-- CHECK: fill_attrs.lua:[[@LINE+1]]: error: fill: attribute dtype must be f32, f16 or bf16, got i32
output("f", fill { shape = { T, 4 }, dtype = i32 })
