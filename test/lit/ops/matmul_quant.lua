-- matmul with GGUF quantized weights, the GEMV path (templates/gemv_q.hip):
-- w arrives as 16-bit units; each wave copies stages of 2048 weights of its
-- rows into LDS with 128-bit loads (the next stage in flight while one is
-- computed), decodes groups of 32 from there (lib_quant.hip) and sums q x per
-- 16 in f32; no scratch. q8_0 (4 waves of 2 columns), q4_k with a shorter
-- last stage and a min per sub-block (sum of x), q6_k rows of 210 bytes
-- (2-byte pieces).
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s --check-prefixes=CHECK,W32
-- RUN: %kgen --arch gfx942 --emit=hip %s -o - | FileCheck %s --check-prefixes=CHECK,W64
-- RUN: %kgen --arch gfx1100 --emit=asm %s -o - | FileCheck %s --check-prefix=A32
-- RUN: %kgen --arch gfx942 --emit=asm %s -o - | FileCheck %s --check-prefix=A64
-- RUN: %kgen --arch gfx1100 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- RUN: %kgen --arch gfx942 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- W32: __launch_bounds__(128)
-- W64: __launch_bounds__(256)
-- CHECK-LABEL: matmul_quant_0_matmul(KG_GLOBAL(const kg_bf16) x, KG_GLOBAL(const unsigned short) w, KG_GLOBAL(kg_bf16) y, long M)
-- CHECK: constexpr int NST = 2 + (0 > 0 ? 1 : 0);
-- CHECK: constexpr int MAXB = 2 > 0 ? 2176 : 0;
-- CHECK: const long n0 = (long)blockIdx.x * 8 + (long)(threadIdx.x / {{32|64}}) * 2;
-- CHECK: wrow[c] = (n0 + c < 14336 ? n0 + c : 14336 - 1) * 4352L;
-- CHECK: float acc[2][8];
-- CHECK: const long at = wrow[c] + (long)s * 2176;
-- CHECK: kg_q_ld_words<16>(w, at + off, at + sb, piece[c][p]);
-- CHECK: __syncthreads();
-- CHECK: kg_q8_0_lds32(stage + slice + c * SW, g, q[c], sc[c], &mn[c]);
-- CHECK-NOT: xsum
-- CHECK: acc[c][m] += sc[c][0] * p0 + sc[c][1] * p1;
-- W32: kg_wave_sum<32>(acc[c][m]);
-- W64: kg_wave_sum<64>(acc[c][m]);
-- CHECK: const long idx = m * 14336L + n0 + c;
-- CHECK: kg_st(y, idx, kg_from_f32<kg_bf16>(acc0));
-- q4_k, K = 4352: two stages of 1152 bytes and one of 144; N = 129: one column
-- CHECK-LABEL: matmul_quant_1_matmul(KG_GLOBAL(const float) x, KG_GLOBAL(const unsigned short) w, KG_GLOBAL(float) y, long M)
-- CHECK: constexpr int NST = 2 + (256 > 0 ? 1 : 0);
-- CHECK: float acc[1][1];
-- CHECK: const long at = wrow[c] + (long)s * 1152;
-- CHECK: kg_q_ld_words<16>(w, at + off, at + sb, piece[c][p]);
-- CHECK: kg_q4k_lds32(stage + slice + c * SW, g, q[c], sc[c], &mn[c]);
-- CHECK: xsum += xf[e];
-- CHECK: acc[c][m] += sc[c][0] * p0 + sc[c][1] * p1 - mn[c] * xsum;
-- q6_k, K = 256: rows of 210 bytes, read 2 bytes at a time
-- CHECK-LABEL: matmul_quant_2_matmul(KG_GLOBAL(const kg_f16) x, KG_GLOBAL(const unsigned short) w, KG_GLOBAL(kg_f16) y, long M)
-- CHECK: kg_q_ld_words<2>(w, at + off, at + sb, piece[c][p]);
-- CHECK: kg_q6k_lds32(
-- A32-LABEL: matmul_quant_0_matmul:
-- A32-COUNT-4: global_load_b128
-- A32: ds_store_b128
-- A32: s_barrier
-- A32: ds_load
-- A32-LABEL: matmul_quant_1_matmul:
-- A32: global_load_b128
-- A32: ds_store_b128
-- A64-LABEL: matmul_quant_0_matmul:
-- A64-COUNT-3: global_load_dwordx4
-- A64: ds_write_b128
-- A64: s_barrier
-- A64: ds_read
-- A64-LABEL: matmul_quant_1_matmul:
-- A64: global_load_dwordx4
-- A64: ds_write_b128
-- META: .name: matmul_quant_0_matmul
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
-- META: .name: matmul_quant_1_matmul
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
-- META: .name: matmul_quant_2_matmul
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
local T = sym("T", 8)
local x = input("x", bf16, { T, 4096 })
local w = weight("w", q8_0, { 14336, 4096 })
output("y", matmul(x, w))
local v = input("v", f32, { 1, 4352 })
local u = weight("u", q4_k, { 129, 4352 })
output("z", matmul(v, u))
local a = input("a", f16, { 3, 256 })
local b = weight("b", q6_k, { 37, 256 })
output("c", matmul(a, b))
