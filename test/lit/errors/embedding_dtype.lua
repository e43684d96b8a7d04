-- embedding: dtype is for a quantized table; a float table gives its own.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local t = weight("t", f16, { 100, 64 })
local ids = input("ids", i32, { 4 })
-- CHECK: embedding_dtype.lua:[[@LINE+1]]: error: embedding: dtype is for a quantized table; a f16 table gives f16 rows (cast them)
output("y", embedding(t, ids, { dtype = bf16 }))
