-- The seed model of fuzz/fuzz_codeobj.c: a few kernels of different
-- arguments and resources (a map, a row op with LDS, a quantized GEMV with a
-- dynamic LDS ring), so the seeds' metadata has several kernels each.
local T = sym("T", 64)
local x = input("x", f16, { T, 256 })
local h = rmsnorm(x, weight("n", f16, { 256 }))
output("y", softmax(h * 0.5))
output("z", matmul(h, weight("w", q4_0, { 64, 256 })))
