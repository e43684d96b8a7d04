-- reshape's errors, each at the model's line.
-- RUN: not %kgen --arch gfx1100 %s 2>&1 | FileCheck %s --check-prefix=COUNT
-- RUN: sed 's/{ T, 3, -1 }/{ T, 64, 32 }/' %s > %t.size.lua
-- RUN: not %kgen --arch gfx1100 %t.size.lua 2>&1 | FileCheck %s --check-prefix=SIZE
-- RUN: sed 's/{ T, 3, -1 }/{ 4, 256 }/' %s > %t.syms.lua
-- RUN: not %kgen --arch gfx1100 %t.syms.lua 2>&1 | FileCheck %s --check-prefix=SYMS
-- RUN: sed 's/{ T, 3, -1 }/{ T, -1, -1 }/' %s > %t.two.lua
-- RUN: not %kgen --arch gfx1100 %t.two.lua 2>&1 | FileCheck %s --check-prefix=TWO
-- RUN: sed 's/{ T, 3, -1 }/{ T, 0, 256 }/' %s > %t.zero.lua
-- RUN: not %kgen --arch gfx1100 %t.zero.lua 2>&1 | FileCheck %s --check-prefix=ZERO
-- RUN: sed 's/^local y = reshape(x, { T, 3, -1 })$/local y = reshape(x * 2.0, { T, 16, 16 })/; s/^output("y", y \* 1.0)$/output("y", y)/' %s > %t.out.lua
-- RUN: not %kgen --arch gfx1100 %t.out.lua 2>&1 | FileCheck %s --check-prefix=OUT
-- COUNT: reshape.lua:21: error: reshape: [T, 256] has 256 constant elements, not a multiple of 3
-- SIZE: reshape.lua.tmp.size.lua:21: error: reshape: [T, 256] cannot be viewed as [T, 64, 32]: 256 elements vs 2048 (times the syms)
-- SYMS: reshape.lua.tmp.syms.lua:21: error: reshape: [T, 256] cannot be viewed as [4, 256]: the syms differ
-- TWO: reshape.lua.tmp.two.lua:21: error: reshape: only one dim may be -1
-- ZERO: reshape.lua.tmp.zero.lua:21: error: reshape: dim 2 must be a positive integer, a sym or -1, got 0
-- OUT: reshape.lua.tmp.out.lua:22: error: output y: is a view (reshape, split) of another value; outputs must be values a kernel computes (output the value itself)
local T = sym("T", 16)
local x = input("x", f16, { T, 256 })
local y = reshape(x, { T, 3, -1 })
output("y", y * 1.0)
