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
  -- GEMM tiles per dtype (lua/ops/matmul.lua): no matrix cores, FMA for all
  gemm = {
    f16 = { mma = "fma", bm = 64, bn = 64, bk = 16, waves_m = 2, waves_n = 2, stages = 2 },
    bf16 = { mma = "fma", bm = 64, bn = 64, bk = 16, waves_m = 2, waves_n = 2, stages = 2 },
    f32 = { mma = "fma", bm = 64, bn = 64, bk = 16, waves_m = 2, waves_n = 2, stages = 2 },
  },
  flags = {},
}
