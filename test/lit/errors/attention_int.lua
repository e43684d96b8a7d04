-- attention: the operands are floats.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local q = input("q", i32, { 4, 8, 64 })
local k = input("k", f16, { 16, 2, 64 })
local v = input("v", f16, { 16, 2, 64 })
-- CHECK: attention_int.lua:[[@LINE+1]]: error: attention: q must be f32, f16 or bf16, got i32
output("y", attention(q, k, v))
