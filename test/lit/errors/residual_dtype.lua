-- layernorm_residual: x and r of different dtypes.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f16, { 2, 64 })
local r = input("r", bf16, { 2, 64 })
-- CHECK: residual_dtype.lua:[[@LINE+1]]: error: layernorm_residual: dtype mismatch: f16 vs bf16
local y, h = layernorm_residual(x, r)
output("y", y)
