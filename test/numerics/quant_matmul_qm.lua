-- The qm model of quant_matmul_test.c (tensor-core targets only): matmuls
-- of f16 or bf16 x with Q4_0 w and small_m = 64, so that 9 to 64 rows take
-- templates/gemv_qm.hip's wide variant (2 to 8 its 8-row one; the GEMM
-- above 64), each product with its own rows M_q4_0_<dtype>_<case>. At 64
-- rows x does not fit the LDS whole at any of these K, so it lives in
-- windows of a step (XW). Cases [N, K]: 133 tasks of 16 rows at K = 4096
-- (2128 x 4096), two tasks for most workgroups (each its accumulators,
-- JTMAX 2); a gate/up pair, silu(x w^T) * (x w2^T), of 2048 columns,
-- whose tasks are two groups of 16 rows (RG 2: the workgroup's waves split
-- its rows); and a down projection's K = 14336 with N off the tasks and a
-- bias (silu(x w^T + b), 40 x 14336).
local cases = {
  { "qm4096", 2128, 4096 },
  { "qm_pair", 2048, 4096, pair = true },
  { "qm14336", 40, 14336, bias = true },
}
for _, c in ipairs(cases) do
  local w = weight(string.format("w_q4_0_%s", c[1]), q4_0, { c[2], c[3] })
  local w2 = c.pair and weight(string.format("w2_q4_0_%s", c[1]), q4_0, { c[2], c[3] })
  for _, d in ipairs({ { "f16", f16 }, { "bf16", bf16 } }) do
    local M = sym(string.format("M_q4_0_%s_%s", d[1], c[1]), 128)
    local x = input(string.format("x_q4_0_%s_%s", d[1], c[1]), d[2], { M, c[3] })
    local y
    if c.pair then
      y = silu(matmul(x, w, { small_m = 64 })) * matmul(x, w2, { small_m = 64 })
    elseif c.bias then
      local b = weight(string.format("b_q4_0_%s_%s", d[1], c[1]), d[2], { c[2] })
      y = silu(matmul(x, w, { small_m = 64 }) + b)
    else
      y = matmul(x, w, { small_m = 64 })
    end
    output(string.format("y_q4_0_%s_%s", d[1], c[1]), y)
  end
end
