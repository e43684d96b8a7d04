-- The real-size model of quant_matmul_test.c: matmul(x, w) with w [4096,
-- 4096] in each GGUF block format and x f32, f16 or bf16. Each of the 12
-- products has its own rows M_<format>_<dtype> (at most 257: the GEMV for
-- M <= 8, the GEMM above), so that one can run at a large M while the others
-- run at one row (the GEMM over 4096 x 4096 takes seconds on the sim).
local formats = { { "q8_0", q8_0 }, { "q4_0", q4_0 }, { "q4_k", q4_k }, { "q6_k", q6_k } }
local dtypes = { { "f32", f32 }, { "f16", f16 }, { "bf16", bf16 } }
for _, f in ipairs(formats) do
  local w = weight("w_" .. f[1] .. "_real", f[2], { 4096, 4096 })
  for _, d in ipairs(dtypes) do
    local M = sym(string.format("M_%s_%s_real", f[1], d[1]), 257)
    local x = input(string.format("x_%s_%s_real", f[1], d[1]), d[2], { M, 4096 })
    output(string.format("y_%s_%s_real", f[1], d[1]), matmul(x, w))
  end
end
