-- gfx1100: RDNA3 (Radeon RX 7900 XTX / XT, Radeon PRO W7900). Data only.
return {
  name = "gfx1100",
  description = "RDNA3, Radeon RX 7900 XTX (wave32, WMMA)",
  platform = "amdgcn", -- prelude_amdgcn.hip, comgr or clang+lld
  triple = "amdgcn-amd-amdhsa",
  wave = 32,
  max_block = 1024,
  lds_bytes = 65536,
  vgprs_per_lane = 256, -- per wave32 lane in wave32 mode (1536 per SIMD lane budget shared)
  sgprs = 106,
  mma = {
    { op = "wmma", m = 16, n = 16, k = 16, a = "f16", acc = "f32" },
    { op = "wmma", m = 16, n = 16, k = 16, a = "bf16", acc = "f32" },
  },
  peak = { bandwidth_gbps = 960, f16_tflops = 123, f32_tflops = 61 },
  flags = {},
}
