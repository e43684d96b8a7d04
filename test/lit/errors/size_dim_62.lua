-- a single dim of 2^62 elements (2^64 bytes of f32: 0 after wrapping).
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
-- CHECK: size_dim_62.lua:[[@LINE+1]]: error: weight w: dim 1 is 4611686018427387904, more than 2^31 - 1
local w = weight("w", f32, { 1 << 62 })
output("y", w * 2.0)
