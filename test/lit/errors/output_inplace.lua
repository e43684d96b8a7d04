-- an in-place result (kv_append's: the cache itself) cannot be an output:
-- the error names the model's line and the way out.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local T = sym("T", 16)
local k_cache = weight("k_cache", f16, { 1, 2, 64, 32 })
local k = input("k", f16, { T, 2, 32 })
local pos = input("pos", i32, { T })
local kc = kv_append(k_cache, k, pos, { layer = 0 })
-- CHECK: output_inplace.lua:[[@LINE+1]]: error: output k_all: is kv_append's in-place update of k_cache, not a new value (its memory is k_cache's own, which kgrt keeps); output a value computed from it instead
output("k_all", kc)
