-- An RMS norm between two quantized GEMVs of one row is split around them
-- by default (gemv_q declares split_default): at T = 1 the producer (the
-- residual add of x w_o^T) also writes z = h times the norm's weight, and
-- nothing more (gemv_q declares row_sums: no sums of squares, no counts);
-- the gate/up pair stages z as x, loads h itself right after the
-- early-launch wait (coherent loads: the read-only path's may be scheduled
-- above it), adds its squares per wave into the LDS before the barrier
-- that follows x's staging, and scales each row's sums by the norm's rsqrt.
-- No norm kernel runs at T = 1; at T >= 2 (gemv_qm and the GEMM, which do
-- not split by default) the norm's kernel runs, its step selected 2 .. max.
-- The same on gfx1100 (gemv_q.hip, its own barrier) and sm_90a
-- (gemv_qr.hip).
-- RUN: %kgen --arch gfx1100 --emit=table %s -o - | FileCheck %s --check-prefix=TABLE
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s
-- RUN: %kgen --arch sm_90a --emit=hip %s -o - | FileCheck %s
-- TABLE-LABEL: static const kgrt_kernel_t kernels[7] = {
-- TABLE-NEXT: {"norm_split_gemv_matmul_add_gemv_q_{{[0-9a-f]+}}", 128, {{[0-9]+}}, 7, k0_args,
-- TABLE: {"norm_split_gemv_rmsnorm_{{[0-9a-f]+}}"
-- TABLE-NEXT: {"norm_split_gemv_matmul_silu_matmul_gemv_q_{{[0-9a-f]+}}", 128, {{[0-9]+}}, 6, k4_args,
-- the producer's arguments: x, w, the norm's weight, the residual, y, z, M
-- TABLE: static const kgrt_step_arg_t s0_args[7] = {
-- TABLE-LABEL: static const kgrt_step_t steps[7] = {
-- TABLE-NEXT: {0, {{.*}}, 0LL, 1LL, s0_args,
-- TABLE-NEXT: {1, {{.*}}, 2LL, 8LL, s1_args,
-- TABLE-NEXT: {2, {{.*}}, 9LL, 9223372036854775807LL, s2_args,
-- TABLE-NEXT: {3, {{.*}}, 2LL, 9223372036854775807LL, s3_args,
-- TABLE-NEXT: {4, {{.*}}, 0LL, 1LL, s4_args,
-- CHECK-LABEL: norm_split_gemv_matmul_add_gemv_q_{{[0-9a-f]+}}(KG_GLOBAL(const kg_bf16) x, KG_GLOBAL(const unsigned short) w, KG_GLOBAL(const float) nog,
-- CHECK-NEXT: KG_GLOBAL(const kg_bf16) e3, KG_GLOBAL(kg_bf16) y, KG_GLOBAL(kg_bf16) z, long M) {
-- CHECK: kg_st(y, idx, v);
-- CHECK-NEXT: const float f = kg_to_f32(v);
-- CHECK-NEXT: kg_st(z, idx, kg_from_f32<kg_bf16>(f * kg_to_f32(kg_ld(nog, n0 + c))));
-- CHECK-NOT: kg_atomic
-- CHECK-LABEL: norm_split_gemv_matmul_silu_matmul_gemv_q_{{[0-9a-f]+}}(KG_GLOBAL(const kg_bf16) x, KG_GLOBAL(const unsigned short) w, KG_GLOBAL(const unsigned short) w1, KG_GLOBAL(const kg_bf16) rsum, KG_GLOBAL(kg_bf16) y, long M) {
-- CHECK: KG_SHARED_BUFFER(lds, [[LDS:[0-9]+]]);
-- CHECK: float *const rss = (float *)(lds + [[LDS]] - 1 * WAVES * 4);
-- CHECK: kg_dep_wait();
-- CHECK-NEXT: constexpr int RSV = 16 / (int)sizeof(kg_bf16);
-- CHECK: rsv[m][i] = kg_ldv_coherent<RSV>(rsum, m * 256L + e);
-- CHECK: s = kg_wave_sum<32>(s);
-- CHECK: rss[m * WAVES + (int)threadIdx.x / 32] = s;
-- CHECK: __syncthreads();
-- CHECK: s += rss[m * WAVES + w];
-- CHECK-NEXT: rsc[m] = kg_rsqrt(s * (1.0f / 256) + 1e-05f);
-- CHECK: sum[r] = kg_wave_sum<32>(acc[r][m]) * rsc[m];
-- CHECK-NOT: kg_atomic
local T = sym("T", 64)
local x = input("x", bf16, { T, 256 })
local wo = weight("wo", q4_0, { 256, 256 })
local g = weight("g", f32, { 256 })
local wg = weight("wg", q4_0, { 512, 256 })
local wu = weight("wu", q4_0, { 512, 256 })
local z = rmsnorm(x + matmul(x, wo), g, { eps = 1e-5 })
output("y", mul(silu(matmul(z, wg)), matmul(z, wu)))
