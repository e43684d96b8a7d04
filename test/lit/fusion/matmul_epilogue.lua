-- A map chain over a matmul's result becomes the matmul kernel's epilogue
-- (GEMV and GEMM alike): bias + silu, gelu + residual; two matmuls of the same
-- x and shape feeding one chain (SwiGLU: silu(x wg^T) * (x wu^T)) share one
-- kernel with two accumulators; a result used twice is not fused.
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s
-- RUN: %kgen --arch gfx942 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- CHECK-LABEL: matmul_epilogue_matmul_add_silu_gemv_{{[0-9a-f]+}}(KG_GLOBAL(const kg_bf16) x, KG_GLOBAL(const kg_bf16) w,
-- CHECK-NEXT: KG_GLOBAL(const kg_bf16) e2, KG_GLOBAL(kg_bf16) y, long M)
-- CHECK: const float a2 = kg_to_f32(kg_ld(e2, idx % 256L));
-- CHECK: kg_st(y, idx, kg_from_f32<kg_bf16>(
-- CHECK-SAME: acc0
-- CHECK-LABEL: matmul_epilogue_matmul_add_silu_gemm_{{[0-9a-f]+}}(
-- CHECK: const float a2 = kg_to_f32(kg_ld(e2, idx % 256L));
-- CHECK-LABEL: matmul_epilogue_matmul_silu_matmul_gemv_{{[0-9a-f]+}}(KG_GLOBAL(const kg_bf16) x, KG_GLOBAL(const kg_bf16) w, KG_GLOBAL(const kg_bf16) w1, KG_GLOBAL(kg_bf16) y, long M)
-- CHECK: float acc_up[2][8];
-- CHECK: = kg_wave_sum<32>(acc_up[c][m]);
-- CHECK: kg_st(y, idx, kg_from_f32<kg_bf16>({{.*}}acc0{{.*}}acc1{{.*}}));
-- CHECK-LABEL: matmul_epilogue_matmul_silu_matmul_gemm_{{[0-9a-f]+}}(KG_GLOBAL(const kg_bf16) x, KG_GLOBAL(const kg_bf16) w, KG_GLOBAL(const kg_bf16) w1, KG_GLOBAL(kg_bf16) y, long M)
-- CHECK: b_tile *const Bs1 = Bs + 2;
-- CHECK-LABEL: matmul_epilogue_matmul_gelu_add_gemm_{{[0-9a-f]+}}(
-- CHECK-NEXT: KG_GLOBAL(const float) e2, KG_GLOBAL(float) y, long M)
-- CHECK: const float a2 = kg_to_f32(kg_ld(e2, idx));
-- the matmul used twice stays a kernel of its own
-- CHECK-LABEL: matmul_epilogue_matmul_gemv_{{[0-9a-f]+}}(
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
local T = sym("T", 64)
local x = input("x", bf16, { T, 512 })
local w = weight("w", bf16, { 256, 512 })
local b = weight("b", bf16, { 256 })
output("y", silu(add(matmul(x, w), b)))
local wg = weight("wg", bf16, { 256, 512 })
local wu = weight("wu", bf16, { 256, 512 })
output("h", mul(silu(matmul(x, wg)), matmul(x, wu)))
local xf = input("xf", f32, { 32, 64 })
local wf = weight("wf", f32, { 48, 64 })
local r = input("r", f32, { 32, 48 })
output("g", add(gelu(matmul(xf, wf)), r))
local y2 = matmul(x, wu)
output("twice", add(y2, silu(y2)))
