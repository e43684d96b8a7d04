-- split's errors, each at the model's line: sizes that do not add up to the
-- dim, a bad dim, and a split only a copy could do (a computed value whose
-- dims before the split are not 1, not a matmul's last dim).
-- RUN: not %kgen --arch gfx1100 %s 2>&1 | FileCheck %s --check-prefix=COPY
-- RUN: sed 's/{ 64, 64 })$/{ 64, 60 })/' %s > %t.sum.lua
-- RUN: not %kgen --arch gfx1100 %t.sum.lua 2>&1 | FileCheck %s --check-prefix=SUM
-- RUN: sed 's/{ 64, 64 })$/{ 64, 64 }, { dim = 3 })/' %s > %t.dim.lua
-- RUN: not %kgen --arch gfx1100 %t.dim.lua 2>&1 | FileCheck %s --check-prefix=DIM
-- COPY: split.lua:18: error: split: cannot split dim 2 of [T, 128] without a copy: split a matmul's result along its last dim, or a tensor whose dims before the split are 1
-- SUM: split.lua.tmp.sum.lua:18: error: split: the sizes add up to 124, dim 2 of [T, 128] is 128
-- DIM: split.lua.tmp.dim.lua:18: error: split: dim must be an integer in 1..2 or -2..-1, got 3
local T = sym("T", 16)
local x = input("x", f16, { T, 128 })
local w = weight("w", f16, { 128, 128 })
local ok1, ok2 = split(matmul(x, w), { 32, 96 })
output("a", ok1 * 1.0)
output("b", ok2 * 1.0)
local a, b = split(x * 2.0, { 64, 64 })
output("c", a * 1.0)
output("d", b * 1.0)
