-- A value read after an op updated its memory in place (kv_append's cache)
-- would hold what that op wrote: refused at the reading op's line, naming
-- the op and the way out.
-- RUN: not %kgen --arch gfx1100 %s 2>&1 | FileCheck %s
-- CHECK: inplace_stale.lua:12: error: scale: operand 1 was updated in place by kv_append since it was made; use that op's result instead
local T = sym("T", 16)
local cache = input("cache", f16, { 1, 2, 64, 8 })
local k = input("k", f16, { T, 2, 8 })
local pos = input("pos", i32, { T })
local updated = kv_append(cache, k, pos)
output("u", updated * 1.0)
output("y", cache * 1.0)
