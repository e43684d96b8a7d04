-- exhaustion: each distinct kernel costs compile time; past 1024 per target
-- kgen says so before compiling any (2,000 outputs once took 508 s). The
-- op harness's numerics model needs 274, so the cap leaves room.
-- RUN: rm -rf %t; timeout 6 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
-- CHECK: many_kernels.lua: error: gfx1100: the model needs 1100 distinct kernels, more than 1024 (the most kgen compiles for one target)
local x = input("x", f32, { 4 })
for i = 1, 1100 do output("y" .. i, x * (i + 0.5)) end
