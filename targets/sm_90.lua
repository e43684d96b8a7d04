-- sm_90: NVIDIA Hopper (H100 SXM5). Data only.
return {
  name = "sm_90",
  description = "Hopper, H100 (warp 32, mma.sync; NVRTC, cubin)",
  platform = "cuda", -- prelude_cuda.hip, NVRTC in process, cuda device in kgrt
  triple = "nvptx64-nvidia-cuda",
  wave = 32, -- a warp
  max_block = 1024,
  cus = 132, -- SMs (the H100 SXM); sizes the GEMV's grid (lua/ops/matmul.lua)
  lds_bytes = 49152, -- static __shared__ per block; 227 KiB with the dynamic opt-in
  shared_optin_bytes = 232448,
  registers_per_thread = 255,
  -- programmatic dependent launch: a kernel whose template calls
  -- kg_dep_wait() is marked KGRT_KERNEL_EARLY_LAUNCH in the table, and kgrt's
  -- cuda device may start it while the kernel before it still runs
  early_launch = true,
  -- the quantized GEMV decodes Q8_0 and Q4_0 blocks from registers
  -- (templates/gemv_qr.hip) rather than staging them in LDS (gemv_q.hip)
  quant_gemv = "regs",
  mma = { -- warp-level tensor core shapes (mma.sync); wgmma needs sm_90a
    { op = "mma", m = 16, n = 8, k = 16, a = "f16", acc = "f32" },
    { op = "mma", m = 16, n = 8, k = 16, a = "bf16", acc = "f32" },
  },
  peak = { bandwidth_gbps = 3350, bf16_tflops = 989, f16_tflops = 989, f32_tflops = 67 },
  -- GEMM tiles per dtype (lua/kgen/gemm.lua; a model may override them):
  -- workgroup tile bm x bn, k tiles of bk through `stages` LDS buffers,
  -- waves_m x waves_n waves, each multiplying with the `mma` instruction
  gemm = {
    f16 = { mma = "mma", shape = { 16, 8, 16 }, bm = 128, bn = 256, bk = 64, waves_m = 2, waves_n = 4, stages = 3 },
    bf16 = { mma = "mma", shape = { 16, 8, 16 }, bm = 128, bn = 256, bk = 64, waves_m = 2, waves_n = 4, stages = 3 },
    f32 = { mma = "fma", bm = 64, bn = 64, bk = 16, waves_m = 2, waves_n = 2, stages = 2 },
  },
  -- attention (lua/ops/attention.lua): the fragment that multiplies each
  -- dtype (f32 takes FMA everywhere), the prefill tile (bm query rows, one
  -- or more fragments of them per wave; bn keys per K/V tile in `stages` LDS
  -- buffers) and the decode tile (bn keys split among `waves` waves; the
  -- context split over wg_per_cu workgroups per compute unit); a model may
  -- override both (attention's tile and decode attributes)
  attention = {
    f16 = { mma = "mma", shape = { 16, 8, 16 } },
    bf16 = { mma = "mma", shape = { 16, 8, 16 } },
    f32 = { mma = "fma" },
    prefill = { bm = 128, bn = 32, waves = 4, stages = 2 },
    decode = { bn = 64, waves = 4, stages = 3, wg_per_cu = 1 },
  },
  flags = {},
}
