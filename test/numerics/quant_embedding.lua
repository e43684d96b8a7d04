-- The model of quant_embedding_test.c: embedding over a table in each GGUF
-- block format (lua/ops/index.lua, templates/embedding_q.hip), rows given in
-- f32, f16 and bf16, for T ids (at most 64, bound at run time). Tables of
-- 37 rows: D = 768 (24 groups of 32: fewer than a workgroup's threads) and
-- D = 8448 (264 groups: the threads take a second pass).
local T = sym("T", 64)
local ids = input("ids", i32, { T })
local formats = { { "q8_0", q8_0 }, { "q4_0", q4_0 }, { "q4_k", q4_k }, { "q6_k", q6_k } }
local dtypes = { { "f32", f32 }, { "f16", f16 }, { "bf16", bf16 } }
for _, f in ipairs(formats) do
  for _, d in ipairs({ 768, 8448 }) do
    local tab = weight(("tab_%s_%d"):format(f[1], d), f[2], { 37, d })
    for _, t in ipairs(dtypes) do
      output(("y_%s_%d_%s"):format(f[1], d, t[1]), embedding(tab, ids, { dtype = t[2] }))
    end
  end
end
