-- operands of different dtypes.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local a = input("a", f16, { 64 })
local b = input("b", bf16, { 64 })
-- CHECK: dtype_mismatch.lua:[[@LINE+1]]: error: add: dtype mismatch: f16 vs bf16
output("y", a + b)
