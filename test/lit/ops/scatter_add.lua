-- scatter_add: deterministic, no atomics: one workgroup per line along dim,
-- f32 sums in LDS tiles (slot s owned by thread s % BLOCK), entries staged
-- through LDS and walked in order; no scratch.
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s --check-prefixes=CHECK,W32
-- RUN: %kgen --arch gfx942 --emit=hip %s -o - | FileCheck %s --check-prefixes=CHECK,W64
-- RUN: %kgen --arch gfx1100 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- RUN: %kgen --arch gfx942 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- CHECK-LABEL: scatter_add_scatter_add_{{[0-9a-f]+}}(KG_GLOBAL(const float) x, KG_GLOBAL(const int) idx, KG_GLOBAL(const float) src, KG_GLOBAL(float) y, long count, long stride)
-- CHECK: __shared__ float acc[4096];
-- CHECK: __shared__ int slot_s[256];
-- CHECK: for (int t0 = 0; t0 < 10000; t0 += 4096)
-- CHECK: if (s >= 0 && s % 256 == tid)
-- CHECK-NOT: atomic
-- CHECK-LABEL: scatter_add_scatter_add_{{[0-9a-f]+}}(KG_GLOBAL(const kg_bf16) x
-- CHECK: __shared__ float acc[100];
-- W32: __shared__ int slot_s[128];
-- W64: __shared__ int slot_s[128];
-- META: .name: scatter_add_scatter_add_{{[0-9a-f]+}}
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
local T = sym("T", 64)
local x = input("x", f32, { T, 10000 })
local idx = input("idx", i32, { T, 40 })
local src = input("src", f32, { T, 40 })
output("y", scatter_add(x, idx, src))
local V = 100
local grad = input("grad", bf16, { V, 64 })
local ids = input("ids", i32, { T, 64 })
local g = input("g", bf16, { T, 64 })
output("y0", scatter_add(grad, ids, g, { dim = 0 }))
