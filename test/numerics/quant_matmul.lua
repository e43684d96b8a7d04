-- The model of quant_matmul_test.c: matmul(x, w) with w in each GGUF block
-- format (lua/ops/matmul.lua, templates/gemv_q.hip) and x f32, f16 or bf16 of
-- M rows (M bound at run time, at most 8: the GEMV path). Shapes [N, K]: one
-- column per workgroup (37), 8 per workgroup (256), a K that ends in a short
-- stage and an odd N (129 x 4352), and a real size (4096 x 4096).
local M = sym("M", 8)
local formats = { { "q8_0", q8_0 }, { "q4_0", q4_0 }, { "q4_k", q4_k }, { "q6_k", q6_k } }
local dtypes = { { "f32", f32 }, { "f16", f16 }, { "bf16", bf16 } }
local shapes = { { 37, 256 }, { 256, 512 }, { 129, 4352 }, { 4096, 4096 } }
local xs = {}
for _, d in ipairs(dtypes) do
  for _, s in ipairs(shapes) do
    local name = string.format("x_%s_%d", d[1], s[2])
    xs[name] = xs[name] or input(name, d[2], { M, s[2] })
  end
end
for _, f in ipairs(formats) do
  for _, s in ipairs(shapes) do
    local w = weight(string.format("w_%s_%dx%d", f[1], s[1], s[2]), f[2], s)
    for _, d in ipairs(dtypes) do
      local x = xs[string.format("x_%s_%d", d[1], s[2])]
      output(string.format("y_%s_%s_%dx%d", f[1], d[1], s[1], s[2]), matmul(x, w))
    end
  end
end
