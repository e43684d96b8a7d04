-- A view made before an in-place update is as stale as its source, and so
-- is an output of the old value.
-- RUN: not %kgen --arch gfx1100 %s 2>&1 | FileCheck %s
-- CHECK: inplace_stale_view.lua:12: error: reshape: operand 1 was updated in place by kv_append since it was made; use that op's result instead
-- RUN: sed 's/^local v = reshape(cache, { 2, 64, 8 })$/local v = updated/; s/^output("y", v \* 1.0)$/output("y", cache)/' %s > %t.lua
-- RUN: not %kgen --arch gfx1100 %t.lua 2>&1 | FileCheck %s --check-prefix=OUT
-- OUT: error: output y: the tensor was updated in place by kv_append since it was made; output a value computed from that op's result
local T = sym("T", 16)
local cache = input("cache", f16, { 1, 2, 64, 8 })
local updated = kv_append(cache, input("k", f16, { T, 2, 8 }), input("pos", i32, { T }))
output("u", updated * 1.0)
local v = reshape(cache, { 2, 64, 8 })
output("y", v * 1.0)
