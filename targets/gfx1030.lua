-- gfx1030: RDNA2 (Radeon RX 6800 / 6900, Radeon PRO W6800). Data only.
return {
  name = "gfx1030",
  description = "RDNA2, Radeon RX 6900 XT (wave32, no matrix cores)",
  platform = "amdgcn",
  triple = "amdgcn-amd-amdhsa",
  wave = 32,
  max_block = 1024,
  cus = 80, -- compute units (the RX 6900 XT); sizes the GEMV's grid (lua/ops/matmul.lua)
  lds_bytes = 65536,
  vgprs_per_lane = 256,
  sgprs = 106,
  mma = {},
  peak = { bandwidth_gbps = 512, f16_tflops = 46, f32_tflops = 23 },
  -- GEMM tiles per dtype (lua/kgen/gemm.lua): no matrix cores, FMA for all
  gemm = {
    f16 = { mma = "fma", bm = 64, bn = 64, bk = 16, waves_m = 2, waves_n = 2, stages = 2 },
    bf16 = { mma = "fma", bm = 64, bn = 64, bk = 16, waves_m = 2, waves_n = 2, stages = 2 },
    f32 = { mma = "fma", bm = 64, bn = 64, bk = 16, waves_m = 2, waves_n = 2, stages = 2 },
  },
  -- attention (lua/ops/attention.lua): the fragment that multiplies each
  -- dtype (f32 takes FMA everywhere), the prefill tile (bm query rows, one
  -- or more fragments of them per wave; bn keys per K/V tile in `stages` LDS
  -- buffers) and the decode tile (bn keys split among `waves` waves; the
  -- context split over wg_per_cu workgroups per compute unit); a model may
  -- override both (attention's tile and decode attributes)
  attention = {
    f16 = { mma = "fma" },
    bf16 = { mma = "fma" },
    f32 = { mma = "fma" },
    prefill = { bm = 64, bn = 64, waves = 4, stages = 1 },
    decode = { bn = 64, waves = 2, stages = 1, wg_per_cu = 2 },
  },
  flags = {},
}
