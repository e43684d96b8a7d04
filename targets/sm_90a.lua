-- sm_90a: NVIDIA Hopper (H100 SXM5) with its architecture-specific features
-- (wgmma). Data only. The cubin runs on compute capability 9.0 alone; kgrt's
-- cuda device takes an "sm_90a" table before an "sm_90" one there.
return {
  name = "sm_90a",
  description = "Hopper, H100 (warp 32, wgmma and mma.sync; NVRTC, cubin)",
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
  mma = {
    -- warpgroup (4 warps) shapes, operands read from shared memory (wgmma)
    { op = "wgmma", m = 64, n = 256, k = 16, a = "f16", acc = "f32" },
    { op = "wgmma", m = 64, n = 256, k = 16, a = "bf16", acc = "f32" },
    { op = "wgmma", m = 64, n = 128, k = 16, a = "f16", acc = "f32" },
    { op = "wgmma", m = 64, n = 128, k = 16, a = "bf16", acc = "f32" },
    -- warp-level shapes (mma.sync)
    { op = "mma", m = 16, n = 8, k = 16, a = "f16", acc = "f32" },
    { op = "mma", m = 16, n = 8, k = 16, a = "bf16", acc = "f32" },
  },
  peak = { bandwidth_gbps = 3350, bf16_tflops = 989, f16_tflops = 989, f32_tflops = 67 },
  -- GEMM tiles per dtype (lua/kgen/gemm.lua; a model may override them):
  -- workgroup tile bm x bn, k tiles of bk through `stages` LDS buffers,
  -- waves_m x waves_n units, each multiplying with the `mma` instruction: a
  -- unit is a wave, or for wgmma a warpgroup of 4 waves that owns one 64 x
  -- (bn / waves_n) fragment (bk: 128 bytes of k)
  gemm = {
    f16 = { mma = "wgmma", bm = 128, bn = 256, bk = 64, waves_m = 2, waves_n = 1, stages = 4 },
    bf16 = { mma = "wgmma", bm = 128, bn = 256, bk = 64, waves_m = 2, waves_n = 1, stages = 4 },
    f32 = { mma = "fma", bm = 64, bn = 64, bk = 16, waves_m = 2, waves_n = 2, stages = 2 },
  },
  -- tiles for small grids (lua/kgen/gemm.lua grid_tile): 128 x 128, each
  -- in about 0.65 of a 128 x 256 tile's time (0.58-0.73 measured at M = 512
  -- over K = 4096 and 14336), where twice the workgroups take fewer waves;
  -- 64 x 128 (one warpgroup), about 0.6, where even 128 x 128 leaves SMs
  -- idle (H200, Llama-3.2-1B prefill of 512: the O and down GEMMs, N = 2048,
  -- 64 -> 128 workgroups, 24.8 -> 22.6 and 67.3 -> 64.7 us; 3657 -> 3595 us)
  -- 64 x 32 on mma.sync (4 warps of 32 x 16), where a few rows leave most
  -- SMs idle even at 64 x 128 (a decode step of up to 64 sequences: the
  -- matmul's small_m GEMM where its kernel cannot split K, as the Q, K and V
  -- regions: N = 6144 is 48 workgroups at 64 x 128 and 192 at 64 x 32; on
  -- the H100 at 64 sequences, 54 us a layer at 64 x 32 against 62 at 64 x
  -- 128 and 65 at 64 x 64)
  -- 64 x 256 (one warpgroup; a gate/up pair's 64 x 128 of each weight, the
  -- pair's only tile of half the rows: 128 x 128 halves to fragments of 64
  -- columns), costed above 128 x 128 so that it takes only a grid that
  -- would leave SMs idle (a pair at 65 to 128 rows: 56 -> 112 workgroups)
  gemm_grid = {
    f16 = { { bn = 128, cost = 0.65 }, { bm = 64, bn = 128, waves_m = 1, cost = 0.6 },
      { bm = 64, waves_m = 1, cost = 0.66 },
      { mma = "mma", shape = { 16, 8, 16 }, bm = 64, bn = 32, waves_m = 2, waves_n = 2,
        cost = 0.25 } },
    bf16 = { { bn = 128, cost = 0.65 }, { bm = 64, bn = 128, waves_m = 1, cost = 0.6 },
      { bm = 64, waves_m = 1, cost = 0.66 },
      { mma = "mma", shape = { 16, 8, 16 }, bm = 64, bn = 32, waves_m = 2, waves_n = 2,
        cost = 0.25 } },
  },
  -- the small-M GEMM's tile where its kernel can split K (lua/kgen/gemm.lua
  -- gemm_params), in place of gemm_grid's choice, and the splits
  -- (gemm_splits): enough for wg_per_cu workgroups a compute unit, each
  -- split at least min_tiles k tiles. A decode step of up to 64 rows is
  -- bound by the weights' bytes, and a tile N columns wide reads BM / N
  -- bytes of x (from L2) per byte of w, so 64 x 32 tiles read twice the
  -- weights' bytes again and 64 x 128 half; each split writes and reads
  -- its M x N floats once more, so fewer is better once every SM has a
  -- workgroup. Llama-3-8B bf16 at 64 sequences on the H100 (bench/results/
  -- batch_decode.md, 2026-12-07), step 12.01 ms on 64 x 32 tiles (K split
  -- 4 ways: 512 workgroups for N = 4096), 10.84 ms on 64 x 128 split 4 ways
  -- (128), 12.05 ms split 8 ways, 12.92 ms on 64 x 256 split 8 ways: O and
  -- down from 38 and 91 us a layer to 31 and 62
  gemm_split = { wg_per_cu = 1, min_tiles = 4 },
  gemm_small = {
    f16 = { bm = 64, bn = 128, waves_m = 1 },
    bf16 = { bm = 64, bn = 128, waves_m = 1 },
  },
  -- warp-level tiles (mma.sync): conv2d's, and a matmul tile override that
  -- leaves no warpgroup tile (lua/kgen/gemm.lua gemm_tile)
  gemm_warp = {
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
    -- one tile of 128 keys a split, 8 waves along it (with the model's
    -- appended keys copied before the wait): H200, Llama decode at context
    -- 520-1024 against 64 keys, 4 waves and at least 2 tiles a split, +1.9%
    -- (8B Q4_0), +2.6% (8B bf16), +0.7% (1B bf16); 128 keys in 4 waves, or
    -- 64 in 8, were slower (bench/results/h100_llama.md)
    decode = { bn = 128, waves = 8, stages = 2, wg_per_cu = 1, min_tiles = 1 },
  },
  flags = {},
}
