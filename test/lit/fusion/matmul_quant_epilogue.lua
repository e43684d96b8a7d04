-- A map chain over a matmul with a quantized w becomes its kernels'
-- epilogue too (gemv_q and gemm alike), but two quantized matmuls are not
-- paired (gemv_q has no second weight): in SwiGLU the up product is a kernel
-- of its own (run first), read by the gate product's epilogue as a2.
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s
-- CHECK-LABEL: matmul_quant_epilogue_matmul_gemv_q_{{[0-9a-f]+}}(KG_GLOBAL(const kg_f16) x, KG_GLOBAL(const unsigned short) w, KG_GLOBAL(kg_f16) y, long M)
-- CHECK: kg_st(y, idx, kg_from_f32<kg_f16>(acc0));
-- CHECK-LABEL: matmul_quant_epilogue_matmul_gemm_{{[0-9a-f]+}}(KG_GLOBAL(const kg_f16) x, KG_GLOBAL(const unsigned short) w, KG_GLOBAL(kg_f16) y, long M)
-- CHECK: return kg_from_f32<kg_f16>(acc0);
-- CHECK-LABEL: matmul_quant_epilogue_matmul_silu_mul_gemv_q_{{[0-9a-f]+}}(KG_GLOBAL(const kg_f16) x, KG_GLOBAL(const unsigned short) w,
-- CHECK-NEXT: KG_GLOBAL(const kg_f16) e2, KG_GLOBAL(kg_f16) y, long M)
-- CHECK: const float a2 = kg_to_f32(kg_ld(e2, idx));
-- CHECK: kg_st(y, idx, kg_from_f32<kg_f16>((kg_silu(acc0) * a2)));
-- CHECK-LABEL: matmul_quant_epilogue_matmul_silu_mul_gemm_{{[0-9a-f]+}}(KG_GLOBAL(const kg_f16) x, KG_GLOBAL(const unsigned short) w,
-- CHECK-NEXT: KG_GLOBAL(const kg_f16) e2, KG_GLOBAL(kg_f16) y, long M)
-- CHECK-NOT: b_tile *const Bs1
-- CHECK: return kg_from_f32<kg_f16>((kg_silu(acc0) * a2));
local T = sym("T", 64)
local x = input("x", f16, { T, 512 })
local wg = weight("wg", q4_k, { 256, 512 })
local wu = weight("wu", q4_k, { 256, 512 })
output("h", mul(silu(matmul(x, wg)), matmul(x, wu)))
