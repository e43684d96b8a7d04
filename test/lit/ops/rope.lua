-- rope: one workgroup per token; cos/sin of the HALF angles go to LDS once
-- (angle reduced exactly in revolutions, kg_rope_angle), then every head is
-- rotated with 128-bit accesses; H is a run-time size; no scratch.
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s --check-prefixes=CHECK,W32
-- RUN: %kgen --arch gfx942 --emit=hip %s -o - | FileCheck %s --check-prefixes=CHECK,W64
-- RUN: %kgen --arch gfx1100 --emit=asm %s -o - | FileCheck %s --check-prefix=ASM32
-- RUN: %kgen --arch gfx942 --emit=asm %s -o - | FileCheck %s --check-prefix=ASM64
-- RUN: %kgen --arch gfx1100 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- RUN: %kgen --arch gfx942 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- CHECK: KG_INLINE float kg_rope_angle(int pos, float f1, float f2, float f3)
-- CHECK: __device__ static const float rope_rope_{{[0-9a-f]+}}_rev[64 * 3] = {
-- CHECK-NEXT: 0x1.46p-3f, -0x1.9f2p-16f, -0x1.1b2p-30f,
-- CHECK-LABEL: rope_rope_{{[0-9a-f]+}}(KG_GLOBAL(const kg_f16) x, KG_GLOBAL(const int) positions, KG_GLOBAL(kg_f16) y, long heads)
-- CHECK: __shared__ float cos_s[64];
-- W32: for (int i = threadIdx.x; i < 64; i += 256)
-- W64: for (int i = threadIdx.x; i < 64; i += 256)
-- CHECK: const long base = t * heads * 128;
-- CHECK: kg_ldv<8>(x, row + 64 + j);
-- CHECK-NOT: kg_stv<8>(y, i, kg_ldv<8>(x, i));
-- CHECK: __device__ static const float rope_rope_{{[0-9a-f]+}}_rev[16 * 3] = {
-- CHECK-LABEL: rope_rope_{{[0-9a-f]+}}(KG_GLOBAL(const float) x
-- CHECK: kg_ldv<4>(x, row + j);
-- CHECK: r.v[k + 1] = kg_from_f32<float>(b * c + a * s);
-- CHECK: kg_stv<4>(y, i, kg_ldv<4>(x, i));
-- ASM32-LABEL: rope_rope_{{[0-9a-f]+}}:
-- ASM32: global_load_b128
-- ASM32: global_store_b128
-- ASM64-LABEL: rope_rope_{{[0-9a-f]+}}:
-- ASM64: global_load_dwordx4
-- ASM64: global_store_dwordx4
-- META: .name: rope_rope_{{[0-9a-f]+}}
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
local T = sym("T", 64)
local q = input("q", f16, { T, 32, 128 })
local pos = input("pos", i32, { T })
output("q_rot", rope(q, pos))
local KVH = sym("KVH", 8)
local k = input("k", f32, { T, KVH, 64 })
output("k_rot", rope(k, pos, { layout = "interleaved", rotary_dim = 32, theta = 500000 }))
