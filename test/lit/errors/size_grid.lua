-- 2^40 elements (2^42 bytes) fit, but a map kernel over them needs more than
-- 2^32 - 1 threads in one launch, which kgrt would refuse: kgen says so, at
-- the line of the op.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
-- CHECK: size_grid.lua:9: error: gfx1100: kernel {{.*}} (scale) needs more than 2^32 - 1 threads in one launch with every sym at its max
local x = input("x", f32, { 1 << 20, 1 << 20 })
output("y", x * 2.0)
