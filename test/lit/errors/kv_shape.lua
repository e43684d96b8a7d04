-- kv_append: new must be [T, KVH, D] of the cache.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local T = sym("T", 8)
local c = weight("c", f16, { 2, 4, 128, 64 })
local k = input("k", f16, { T, 8, 64 })
local p = input("p", i32, { T })
-- CHECK: kv_shape.lua:[[@LINE+1]]: error: kv_append: new shape [T, 8, 64] does not match the cache [2, 4, 128, 64] (want [T, 4, 64])
output("y", cast(kv_append(c, k, p), f32))
