-- a dim past 2^31 - 1: kernels index within a dim with 32-bit ints (the
-- element count, 2^80, would also overflow 64 bits).
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
-- CHECK: size_dim.lua:[[@LINE+1]]: error: input z: dim 1 is 1099511627776, more than 2^31 - 1 (kernels index within a dim with 32-bit ints)
local z = input("z", f32, { 1 << 40, 1 << 40 })
output("y", z * 2.0)
