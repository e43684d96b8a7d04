-- gfx1100: RDNA3 (Radeon RX 7900 XTX / XT, Radeon PRO W7900). Data only.
return {
  name = "gfx1100",
  description = "RDNA3, Radeon RX 7900 XTX (wave32, WMMA)",
  platform = "amdgcn", -- prelude_amdgcn.hip, comgr or clang+lld
  triple = "amdgcn-amd-amdhsa",
  wave = 32,
  max_block = 1024,
  cus = 96, -- compute units (the RX 7900 XTX); sizes the GEMV's grid (lua/ops/matmul.lua)
  lds_bytes = 65536,
  vgprs_per_lane = 256, -- per wave32 lane in wave32 mode (1536 per SIMD lane budget shared)
  sgprs = 106,
  mma = {
    { op = "wmma", m = 16, n = 16, k = 16, a = "f16", acc = "f32" },
    { op = "wmma", m = 16, n = 16, k = 16, a = "bf16", acc = "f32" },
  },
  peak = { bandwidth_gbps = 960, f16_tflops = 123, f32_tflops = 61 },
  -- GEMM tiles per dtype (lua/kgen/gemm.lua; a model may override them):
  -- workgroup tile bm x bn, k tiles of bk through `stages` LDS buffers,
  -- waves_m x waves_n waves, each multiplying with the `mma` instruction
  gemm = {
    f16 = { mma = "wmma", shape = { 16, 16, 16 }, bm = 128, bn = 128, bk = 32, waves_m = 4, waves_n = 2, stages = 2 },
    bf16 = { mma = "wmma", shape = { 16, 16, 16 }, bm = 128, bn = 128, bk = 32, waves_m = 4, waves_n = 2, stages = 2 },
    f32 = { mma = "fma", bm = 64, bn = 64, bk = 16, waves_m = 2, waves_n = 2, stages = 2 },
  },
  -- attention (lua/ops/attention.lua): the fragment that multiplies each
  -- dtype (f32 takes FMA everywhere), the prefill tile (bm query rows, one
  -- or more fragments of them per wave; bn keys per K/V tile in `stages` LDS
  -- buffers) and the decode tile (bn keys split among `waves` waves; the
  -- context split over wg_per_cu workgroups per compute unit); a model may
  -- override both (attention's tile and decode attributes)
  attention = {
    f16 = { mma = "wmma", shape = { 16, 16, 16 } },
    bf16 = { mma = "wmma", shape = { 16, 16, 16 } },
    f32 = { mma = "fma" },
    prefill = { bm = 64, bn = 32, waves = 4, stages = 1 },
    decode = { bn = 64, waves = 4, stages = 1, wg_per_cu = 2 },
  },
  flags = {},
}
