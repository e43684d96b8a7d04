-- matmul with GGUF quantized weights, the GEMV path (templates/gemv_q.hip):
-- a resident grid of workgroups takes tasks of NB rows in turn; w arrives as
-- 16-bit units; each wave copies stages of 2048 weights of its rows into its
-- LDS slots with 128-bit copies (on AMD one slot, copied at once), x is
-- staged in LDS for the workgroup where it fits (all of K once, with the sums
-- of each half group), groups of 32 are decoded from LDS (lib_quant.hip) and
-- q x summed per 16 in f32; no scratch. q8_0 with 8 rows of x (4 waves of 2
-- columns; x too large for LDS: read from global memory, and the waves,
-- whose slots are their own, never wait for each other), q4_k with a shorter
-- last stage and a min per sub-block (x staged as f32), q6_k rows of 210
-- bytes (2-byte pieces), and 3 rows of f16 x staged as f16.
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s --check-prefixes=CHECK,W32
-- RUN: %kgen --arch gfx942 --emit=hip %s -o - | FileCheck %s --check-prefixes=CHECK,W64
-- RUN: %kgen --arch gfx1100 --emit=asm %s -o - | FileCheck %s --check-prefix=A32
-- RUN: %kgen --arch gfx942 --emit=asm %s -o - | FileCheck %s --check-prefix=A64
-- RUN: %kgen --arch gfx1100 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- RUN: %kgen --arch gfx942 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- W32: __launch_bounds__(128)
-- W64: __launch_bounds__(256)
-- CHECK-LABEL: matmul_quant_matmul_{{[0-9a-f]+}}(KG_GLOBAL(const kg_bf16) x, KG_GLOBAL(const unsigned short) w, KG_GLOBAL(kg_bf16) y, long M)
-- CHECK: constexpr int NST = 2 + (0 > 0 ? 1 : 0);
-- CHECK: constexpr int MAXB = 2 > 0 ? 2176 : 0;
-- CHECK: constexpr int SLOTS = 1;
-- CHECK: constexpr long TASKS = (14336 + 8 - 1) / 8;
-- W32: const int J = (int)((TASKS - 1 - task0) / 256 + 1) * NST;
-- W64: const int J = (int)((TASKS - 1 - task0) / 896 + 1) * NST;
-- W32: KG_SHARED_BUFFER(lds, 17552);
-- W64: KG_SHARED_BUFFER(lds, 17552);
-- CHECK-NOT: xs =
-- CHECK: constexpr bool WAVE_SYNC = true;
-- CHECK: float acc[RW][8];
-- CHECK: const long n0 = (task0 + (long)(j / NST) * {{[0-9]+}}) * 8 + wave * 2;
-- CHECK: const long n = n0 + c / PR < 14336 ? n0 + c / PR : 14336 - 1;
-- CHECK-NEXT: const long wrow = n;
-- CHECK-NEXT: const auto wsel = w;
-- CHECK-NEXT: const long row = wrow * 4352L + (long)s * 2176;
-- CHECK: kg_q_copy<16>(slot + c * SW * 2 + off / 2, wsel, (row + off) / 2);
-- CHECK: kg_dep_wait();
-- CHECK: kg_async_wait<SLOTS - 1>();
-- CHECK-NEXT: sync();
-- CHECK: kg_q8_0_lds32(slot + c * SW, g, q, sc, &mn);
-- CHECK: kg_ldv<XV>(x, m * 4096L + k0 + g * 32 + v * XV);
-- CHECK-NOT: {{QB|128.5f}}
-- CHECK: acc[c][m] += sc[0] * p0 + sc[1] * p1;
-- CHECK: issue(j + SLOTS);
-- CHECK: if (s == NST - 1) {
-- W32: kg_wave_sum<32>(acc[r][m]);
-- W64: kg_wave_sum<64>(acc[r][m]);
-- CHECK: const long idx = m * 14336L + n0 + c;
-- CHECK: kg_st(y, idx, kg_from_f32<kg_bf16>(acc0));
-- q4_k, K = 4352: two stages of 1152 bytes and one of 144, x all of K as f32
-- with the sums of each half group; N = 129: one column
-- CHECK-LABEL: matmul_quant_matmul_{{[0-9a-f]+}}(KG_GLOBAL(const float) x, KG_GLOBAL(const unsigned short) w, KG_GLOBAL(float) y, long M)
-- CHECK: constexpr int NST = 2 + (256 > 0 ? 1 : 0);
-- CHECK: KG_SHARED_BUFFER(lds, 20756);
-- CHECK: float *xs = (float *)(ring + RING);
-- CHECK: constexpr bool WAVE_SYNC = 4352 == 4352;
-- CHECK: float acc[RW][1];
-- CHECK: kg_q_copy<16>(slot + c * SW * 2 + off / 2, wsel, (row + off) / 2);
-- CHECK: kg_ldv<XV>(x, m * 4352L + k0 + e);
-- CHECK: d[i] = kg_to_f32(v.v[i]);
-- CHECK: sums[0] = h0;
-- CHECK: kg_dep_wait();
-- CHECK: stage_x(0, 4352);
-- CHECK: kg_q4k_lds32(slot + c * SW, g, q, sc, &mn);
-- CHECK: *(const kg_vec<float, N16> *)(xr + v * N16);
-- CHECK: x0 = ((const float *)(xr + 32))[0];
-- CHECK: acc[c][m] += sc[0] * p0 + sc[1] * p1 - mn * (x0 + x1);
-- q6_k, K = 256: rows of 210 bytes, copied 2 bytes at a time
-- CHECK-LABEL: matmul_quant_matmul_{{[0-9a-f]+}}(KG_GLOBAL(const kg_f16) x, KG_GLOBAL(const unsigned short) w, KG_GLOBAL(kg_f16) y, long M)
-- CHECK: float *xs = (float *)(ring + RING);
-- CHECK: kg_q_copy<2>(slot + c * SW * 2 + off / 2, wsel, (row + off) / 2);
-- CHECK: kg_q6k_lds32(
-- q6_k, K = 2048, 3 rows of f16 x: all of K fits in LDS as f16, not as f32
-- CHECK-LABEL: matmul_quant_matmul_{{[0-9a-f]+}}(KG_GLOBAL(const kg_f16) x, KG_GLOBAL(const unsigned short) w, KG_GLOBAL(kg_f16) y, long M)
-- CHECK: constexpr int XGS = 2048 / 32;
-- CHECK: kg_f16 *xs = (kg_f16 *)(ring + RING);
-- CHECK: constexpr bool WAVE_SYNC = 2048 == 2048;
-- CHECK: d[i] = (v.v[i]);
-- CHECK: h0 += kg_to_f32(d[e]);
-- CHECK: kg_q6k_lds32(
-- CHECK: xf[v * N16 + e] = kg_to_f32(xv.v[e]);
-- A32-LABEL: matmul_quant_matmul_{{[0-9a-f]+}}:
-- A32-COUNT-4: global_load_b128
-- A32: ds_store_b128
-- A32-NOT: s_barrier
-- A32: ds_load
-- A32-LABEL: matmul_quant_matmul_{{[0-9a-f]+}}:
-- A32: global_load_b128
-- A32: ds_store_b128
-- A64-LABEL: matmul_quant_matmul_{{[0-9a-f]+}}:
-- A64-COUNT-3: global_load_dwordx4
-- A64: ds_write_b128
-- A64-NOT: s_barrier
-- A64: ds_read
-- A64-LABEL: matmul_quant_matmul_{{[0-9a-f]+}}:
-- A64: global_load_dwordx4
-- A64: ds_write_b128
-- META: .name: matmul_quant_matmul_{{[0-9a-f]+}}
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
-- META: .name: matmul_quant_matmul_{{[0-9a-f]+}}
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
-- META: .name: matmul_quant_matmul_{{[0-9a-f]+}}
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
-- META: .name: matmul_quant_matmul_{{[0-9a-f]+}}
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
local e = input("e", f16, { 3, 2048 })
local f = weight("f", q6_k, { 37, 2048 })
output("g", matmul(e, f))
