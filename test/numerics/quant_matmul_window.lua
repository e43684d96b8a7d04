-- The window model of quant_matmul_test.c (tensor-core targets only):
-- matmul(x, w) with w [2128, 8192] in Q4_0 and x f32, f16 or bf16, each
-- product with its own rows M_q4_0_<dtype>_window (at most 257; the test
-- runs M <= 8). At 8 rows of 16-bit x, x does not fit the LDS of
-- templates/gemv_qm.hip whole, so it lives in two windows of a step (XW,
-- as at a down projection's K = 14336), and 2128 rows are 133 tasks of 16:
-- most workgroups take two, each task its own accumulators. f32 x takes
-- gemv_q.hip, with x staged a step at a time.
local w = weight("w_q4_0_window", q4_0, { 2128, 8192 })
for _, d in ipairs({ { "f32", f32 }, { "f16", f16 }, { "bf16", bf16 } }) do
  local M = sym(string.format("M_q4_0_%s_window", d[1]), 257)
  local x = input(string.format("x_q4_0_%s_window", d[1]), d[2], { M, 8192 })
  output(string.format("y_q4_0_%s_window", d[1]), matmul(x, w))
end
