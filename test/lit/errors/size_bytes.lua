-- dims in range, but 2^60 elements of f32 (2^62 bytes): more than 2^48.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local T = sym("T", 1 << 30)
-- CHECK: size_bytes.lua:[[@LINE+1]]: error: input x: f32[T, 1073741824] is more than 2^48 bytes or elements with every sym at its max
local x = input("x", f32, { T, 1 << 30 })
output("y", x * 2.0)
