-- kv_append: writes new [T, KVH, D] into the cache weight in place (no result
-- buffer, the cache parameter is writable), one workgroup per (token, head);
-- K and V are two calls; 128-bit accesses; no scratch.
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s --check-prefixes=CHECK,W32
-- RUN: %kgen --arch gfx942 --emit=hip %s -o - | FileCheck %s --check-prefixes=CHECK,W64
-- RUN: %kgen --arch gfx1100 --emit=asm %s -o - | FileCheck %s --check-prefix=ASM32
-- RUN: %kgen --arch gfx942 --emit=asm %s -o - | FileCheck %s --check-prefix=ASM64
-- RUN: %kgen --arch gfx1100 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- RUN: %kgen --arch gfx942 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- CHECK-LABEL: kv_append_kv_append_{{[0-9a-f]+}}(KG_GLOBAL(kg_f16) cache, KG_GLOBAL(const kg_f16) nw, KG_GLOBAL(const int) positions, long tokens, long layer)
-- CHECK: const long t = row / 8;
-- CHECK: if (pos < 0 || pos >= 1024)
-- W32: kg_block_max<32, 32>(later)
-- W64: kg_block_max<64, 64>(later)
-- CHECK: const long dst = ((layer * 8 + h) * 1024 + pos) * 128;
-- CHECK: kg_stv<8>(cache, dst + c, r);
-- CHECK-LABEL: kv_append_kv_append_{{[0-9a-f]+}}(KG_GLOBAL(kg_f16) cache, KG_GLOBAL(const float) nw
-- CHECK: kg_ldv<4>(nw, src + c);
-- ASM32-LABEL: kv_append_kv_append_{{[0-9a-f]+}}:
-- ASM32: global_load_b128
-- ASM32: global_store_b128
-- ASM64-LABEL: kv_append_kv_append_{{[0-9a-f]+}}:
-- ASM64: global_load_dwordx4
-- ASM64: global_store_dwordx4
-- META: .name: kv_append_kv_append_{{[0-9a-f]+}}
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
local T = sym("T", 256)
local k_cache = weight("k_cache", f16, { 4, 8, 1024, 128 })
local v_cache = weight("v_cache", f16, { 4, 8, 1024, 128 })
local k = input("k", f16, { T, 8, 128 })
local v = input("v", f32, { T, 8, 128 })
local pos = input("pos", i32, { T })
local kc = kv_append(k_cache, k, pos, { layer = 3 })
local vc = kv_append(v_cache, v, pos, { layer = 3 })
output("k_all", cast(kc, f32))
output("v_all", cast(vc, f32))
