-- replay_160.lua - a plan of 160 small kernels for bench/replay_bench.c: 160
-- RMSNorms in a chain over one row of 256 f32 (a row op does not fuse into
-- the next), each a launch of one workgroup that runs for a few microseconds,
-- so the host's launch costs dominate a run launched kernel by kernel.
local T = sym("T", 16)
local h = input("x", f32, { T, 256 })
for _ = 1, 160 do
  h = rmsnorm(h, { eps = 1e-6 })
end
output("y", h)
