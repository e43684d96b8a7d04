-- gfx90a: CDNA2 (Instinct MI210 / MI250 / MI250X). Data only.
return {
  name = "gfx90a",
  description = "CDNA2, Instinct MI250X (wave64, MFMA)",
  platform = "amdgcn",
  triple = "amdgcn-amd-amdhsa",
  wave = 64,
  max_block = 1024,
  cus = 110, -- compute units per GCD (one device); sizes the GEMV's grid (lua/ops/matmul.lua)
  lds_bytes = 65536,
  vgprs_per_lane = 512,
  sgprs = 102,
  mma = {
    { op = "mfma", m = 32, n = 32, k = 8, a = "f16", acc = "f32" },
    { op = "mfma", m = 16, n = 16, k = 16, a = "f16", acc = "f32" },
    { op = "mfma", m = 32, n = 32, k = 8, a = "bf16", acc = "f32" },
  },
  peak = { bandwidth_gbps = 1638, f16_tflops = 191, f32_tflops = 48 },
  -- GEMM tiles per dtype (lua/kgen/gemm.lua; a model may override them):
  -- workgroup tile bm x bn, k tiles of bk through `stages` LDS buffers,
  -- waves_m x waves_n waves, each multiplying with the `mma` instruction
  gemm = {
    f16 = { mma = "mfma", shape = { 32, 32, 8 }, bm = 128, bn = 128, bk = 32, waves_m = 2, waves_n = 2, stages = 2 },
    bf16 = { mma = "mfma", shape = { 32, 32, 8 }, bm = 128, bn = 128, bk = 32, waves_m = 2, waves_n = 2, stages = 2 },
    f32 = { mma = "fma", bm = 64, bn = 64, bk = 16, waves_m = 2, waves_n = 2, stages = 2 },
  },
  -- attention (lua/ops/attention.lua): the fragment that multiplies each
  -- dtype (f32 takes FMA everywhere), the prefill tile (bm query rows, one
  -- or more fragments of them per wave; bn keys per K/V tile in `stages` LDS
  -- buffers) and the decode tile (bn keys split among `waves` waves; the
  -- context split over wg_per_cu workgroups per compute unit); a model may
  -- override both (attention's tile and decode attributes)
  attention = {
    f16 = { mma = "mfma", shape = { 16, 16, 16 } },
    bf16 = { mma = "mfma", shape = { 32, 32, 8 } },
    f32 = { mma = "fma" },
    prefill = { bm = 64, bn = 64, waves = 4, stages = 1 },
    decode = { bn = 64, waves = 4, stages = 1, wg_per_cu = 2 },
  },
  flags = {},
}
