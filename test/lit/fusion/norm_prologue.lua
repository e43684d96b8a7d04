-- An RMS norm read by matmuls is their GEMV's prologue: the GEMV sums the
-- squares of x as it reads it, scales x by the norm's weight and its sums by
-- the row's rsqrt(mean + eps): at decode (T <= 8) no kernel computes the
-- norm. The GEMM variant (T > 8) reads the norm's result, so the norm's own
-- kernel runs only there (its step's select is the GEMM's: 9 .. max); both
-- norms share that kernel (the same code). The q and k projections (two
-- consumers of one norm, no epilogue) are one kernel of two regions of N, a
-- GEMV that takes the norm in once and a GEMM (640 columns in 5 tiles of
-- 128); the gate/up pair takes the other norm in with its SwiGLU epilogue.
-- RUN: %kgen --arch gfx1100 --emit=table %s -o - | FileCheck %s --check-prefix=TABLE
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s
-- TABLE-LABEL: static const kgrt_kernel_t kernels[5] = {
-- TABLE-NEXT: {"norm_prologue_rmsnorm_{{[0-9a-f]+}}"
-- TABLE-NEXT: {"norm_prologue_rmsnorm_matmul2_gemv_{{[0-9a-f]+}}"
-- TABLE-NEXT: {"norm_prologue_matmul2_gemm_{{[0-9a-f]+}}"
-- TABLE-NEXT: {"norm_prologue_rmsnorm_matmul_silu_gemv_{{[0-9a-f]+}}"
-- TABLE-NEXT: {"norm_prologue_matmul_silu_matmul_gemm_{{[0-9a-f]+}}"
-- the regions GEMV covers 512 + 128 columns: 640 units of 8
-- TABLE-LABEL: static const kgrt_step_t steps[6] = {
-- TABLE-NEXT: {0, {{.*}}, 9LL, 9223372036854775807LL, s0_args, 0, 0, -1},
-- TABLE-NEXT: {1, {640, {{.*}}, 0LL, 8LL, s1_args, 0, 0, -1},
-- TABLE-NEXT: {2, {1, {0, -1, -1, -1}}, 128, 5, {{.*}}, 9LL, 9223372036854775807LL, s2_args, 0, 0, -1},
-- TABLE-NEXT: {0, {{.*}}, 9LL, 9223372036854775807LL, s3_args, 0, 0, -1},
-- TABLE-NEXT: {3, {{.*}}, 0LL, 8LL, s4_args, 0, 0, -1},
-- TABLE-NEXT: {4, {{.*}}, 9LL, 9223372036854775807LL, s5_args, 0, 0, -1},
-- CHECK-LABEL: norm_prologue_rmsnorm_matmul2_gemv_{{[0-9a-f]+}}(KG_GLOBAL(const kg_bf16) x, KG_GLOBAL(const kg_bf16) w, KG_GLOBAL(const kg_bf16) wr1, KG_GLOBAL(const kg_bf16) ng, KG_GLOBAL(kg_bf16) y, KG_GLOBAL(kg_bf16) yr1, long M)
-- CHECK: rg[c] = n < 512L ? 0 : 1;
-- CHECK: wv[c][u] = kg_ldv<8>(kg_pick(rg[c], w, wr1), wrow[c]
-- CHECK: ss[m] += xs[e] * xs[e];
-- CHECK-NEXT: xs[e] *= kg_to_f32(gv[u].v[e]);
-- CHECK: kg_st(y, m * 512L + n, r);
-- CHECK: kg_st(yr1, m * (640L - 512L) + n - 512L, r);
-- the regions GEMM: each B row from its region's weight, each element to
-- its region's result
-- CHECK-LABEL: norm_prologue_matmul2_gemm_{{[0-9a-f]+}}(KG_GLOBAL(const kg_bf16) x, KG_GLOBAL(const kg_bf16) w, KG_GLOBAL(const kg_bf16) wr1, KG_GLOBAL(kg_bf16) y, KG_GLOBAL(kg_bf16) yr1, long M)
-- CHECK: kg_tile_copy<8>(&Bs[s][F::at(r, c)], wsel, wrow * 256L + k0 + c, ok);
-- CHECK: kg_st(yr1, m * (640L - 512L) + n - 512L, r);
-- CHECK-LABEL: norm_prologue_rmsnorm_matmul_silu_gemv_{{[0-9a-f]+}}(KG_GLOBAL(const kg_bf16) x, KG_GLOBAL(const kg_bf16) w, KG_GLOBAL(const kg_bf16) w1, KG_GLOBAL(const kg_bf16) ng, KG_GLOBAL(kg_bf16) y, long M)
-- CHECK: const float acc1 = kg_wave_sum<32>(acc_up[c][m]) * rstd;
local T = sym("T", 64)
local x = input("x", bf16, { T, 256 })
local h = rmsnorm(x, weight("g", bf16, { 256 }), { eps = 1e-5 })
output("q", matmul(h, weight("wq", bf16, { 512, 256 })))
output("k", matmul(h, weight("wk", bf16, { 128, 256 })))
local h2 = rmsnorm(x, weight("g2", bf16, { 256 }), { eps = 1e-5 })
output("f", silu(matmul(h2, weight("wg", bf16, { 384, 256 }))) * matmul(h2, weight("wu", bf16, { 384, 256 })))
