-- operands in range whose result is not: [2^24, 2^24] f16 is 2^49 bytes.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f16, { 1 << 24, 1024 })
local w = weight("w", f16, { 1 << 24, 1024 })
-- CHECK: size_result.lua:[[@LINE+1]]: error: matmul: the result: f16[16777216, 16777216] is more than 2^48 bytes
output("y", matmul(x, w))
