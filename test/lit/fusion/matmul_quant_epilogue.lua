-- A map chain over a matmul with a quantized w becomes its kernels'
-- epilogue too (gemv_q and gemm alike), and two quantized matmuls of one x
-- are a gate/up pair: in SwiGLU one kernel reads both weights (w, w1), each
-- column a row of each (gemv_q.hip) or each tile decoded into B and B1
-- (gemm.hip), and its epilogue takes both sums.
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s
-- CHECK-NOT: matmul_quant_epilogue_matmul_gemv_q_
-- CHECK-LABEL: matmul_quant_epilogue_matmul_silu_matmul_gemv_q_{{[0-9a-f]+}}(KG_GLOBAL(const kg_f16) x, KG_GLOBAL(const unsigned short) w, KG_GLOBAL(const unsigned short) w1, KG_GLOBAL(kg_f16) y, long M)
-- CHECK: constexpr int PR = 2;
-- CHECK: const auto wsel = c % 2 ? w1 : w;
-- CHECK: const float acc0 = sum[c * PR];
-- CHECK-NEXT: const float acc1 = sum[c * PR + 1];
-- CHECK: kg_st(y, idx, kg_from_f32<kg_f16>((kg_silu(acc0) * acc1)));
-- CHECK-LABEL: matmul_quant_epilogue_matmul_silu_matmul_gemm_{{[0-9a-f]+}}(KG_GLOBAL(const kg_f16) x, KG_GLOBAL(const unsigned short) w, KG_GLOBAL(const unsigned short) w1, KG_GLOBAL(kg_f16) y, long M)
-- CHECK: b_tile *const Bs1 = Bs + 2;
-- CHECK: const auto wsel = wt ? w1 : w;
-- CHECK: Bs[s + wt * 2][F::at(r, c + e)] = kg_from_f32<kg_f16>(ok ? sc[e >> 4] * q[e] - mn : 0.0f);
-- CHECK: return kg_from_f32<kg_f16>((kg_silu(acc0) * acc1));
-- CHECK-NOT: matmul_quant_epilogue_matmul_gemm_
local T = sym("T", 64)
local x = input("x", f16, { T, 512 })
local wg = weight("wg", q4_k, { 256, 512 })
local wu = weight("wu", q4_k, { 256, 512 })
output("h", mul(silu(matmul(x, wg)), matmul(x, wu)))
