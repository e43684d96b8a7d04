-- The small model of quant_matmul_test.c: matmul(x, w) with w in each GGUF
-- block format (lua/ops/matmul.lua; templates/gemv_q.hip for M <= 8,
-- gemm.hip with QUANT above) and x f32, f16 or bf16 of M rows (M bound at
-- run time, at most 257). Cases [N, K]: one column per GEMV workgroup and N
-- below a GEMM tile (37 x 256); whole tiles (256 x 512); a K that ends in a
-- short GEMV stage and N one past a tile (129 x 2304); K not a multiple of
-- the GEMM's k tile (tile attribute: bk 64 over K = 96 for the 32-weight
-- blocks; bk 96 over K = 1280 for the k-quants, whose k tiles then straddle
-- super-blocks; bk 64 for f32 there, as 32 x 32 x 96 f32 tiles do not fit
-- sm_90's 48 KiB); silu(x w^T + b), the bias and silu fused into both
-- kernels as their epilogue; and 17 chunks of 256 weights per row (24 x
-- 4352), which the waves of gemv_qm.hip split in two steps, one wave idle
-- in the second; and silu(x w^T) * (x w2^T), a gate/up pair in one kernel
-- (37 x 256: an odd N, one column a wave in gemv_q.hip, a part of a task in
-- gemv_qm.hip); and x w^T, x w2^T, two outputs of one x that kgen computes
-- as two regions of one kernel (48 x 768; no epilogue, so Q8_0 takes one
-- row a task in gemv_qr.hip); and 129 x 2304 again with matmul's small_m =
-- 64: at 9 to 64 rows a GEMM of its own, whose K (36 k tiles of 64) sm_90a
-- splits 6 ways (kpart, kcnt; lua/ops/matmul.lua gemm_splits); and the
-- regions again at 129 x 2048 with small_m = 64, which sm_90a splits 4
-- ways (the first product's parts, planned for its 129 columns, hold 4
-- splits of the regions' 258), the last split of each tile storing both.
local M = sym("M", 257)
local formats = { { "q8_0", q8_0, 32 }, { "q4_0", q4_0, 32 }, { "q4_k", q4_k, 256 },
  { "q6_k", q6_k, 256 } }
local dtypes = { { "f32", f32 }, { "f16", f16 }, { "bf16", bf16 } }
-- name, N, K for 32-weight blocks, K for 256-weight blocks, tile(block, dtype)
local koff = function(block, dt)
  if block == 32 then return { bm = 32, bn = 32, bk = 64, waves_m = 1, waves_n = 1 } end
  return { bm = 32, bn = 32, bk = dt == "f32" and 64 or 96, waves_m = 1, waves_n = 1 }
end
local cases = {
  { "n37", 37, 256, 256 },
  { "n256", 256, 512, 512 },
  { "n129", 129, 2304, 2304 },
  { "koff", 40, 96, 1280, koff },
  { "bias_silu", 72, 256, 256 },
  { "k17", 24, 4352, 4352 },
  { "swiglu", 37, 256, 256 },
  { "regions", 48, 768, 768 },
  { "small_m", 129, 2304, 2304 },
  { "small_regions", 129, 2048, 2048 },
}
local xs = {}
for _, d in ipairs(dtypes) do
  for _, c in ipairs(cases) do
    for _, k in ipairs({ c[3], c[4] }) do
      local name = string.format("x_%s_%d", d[1], k)
      xs[name] = xs[name] or input(name, d[2], { M, k })
    end
  end
end
for _, f in ipairs(formats) do
  for _, c in ipairs(cases) do
    local k = f[3] == 32 and c[3] or c[4]
    local w = weight(string.format("w_%s_%s", f[1], c[1]), f[2], { c[2], k })
    local regions = c[1] == "regions" or c[1] == "small_regions"
    local w2 = (c[1] == "swiglu" or regions)
      and weight(string.format("w2_%s_%s", f[1], c[1]), f[2], { c[2], k })
    for _, d in ipairs(dtypes) do
      local x = xs[string.format("x_%s_%d", d[1], k)]
      local y
      if regions then
        local a = { small_m = c[1] == "small_regions" and 64 or nil }
        y = matmul(x, w, a)
        output(string.format("y2_%s_%s_%s", f[1], d[1], c[1]), matmul(x, w2, a))
      elseif w2 then
        y = silu(matmul(x, w)) * matmul(x, w2)
      elseif c[1] == "bias_silu" then
        local b = weight(string.format("b_%s_%s_%s", f[1], d[1], c[1]), d[2], { c[2] })
        y = silu(matmul(x, w) + b)
      elseif c[1] == "small_m" then
        y = matmul(x, w, { small_m = 64 })
      else
        y = matmul(x, w, { tile = c[5] and c[5](f[3], d[1]) or nil })
      end
      output(string.format("y_%s_%s_%s", f[1], d[1], c[1]), y)
    end
  end
end
