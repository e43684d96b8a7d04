-- bench: one token's attention projections at Llama-3-8B shapes: rmsnorm,
-- then q, k and v (4096, 1024 and 1024 x 4096, bf16); each GEMV takes the
-- norm in as its prologue: three kernels, no norm kernel.
local x = input("x", bf16, { 1, 4096 })
local h = rmsnorm(x, weight("g", bf16, { 4096 }), { eps = 1e-5 })
output("q", matmul(h, weight("wq", bf16, { 4096, 4096 })))
output("k", matmul(h, weight("wk", bf16, { 1024, 4096 })))
output("v", matmul(h, weight("wv", bf16, { 1024, 4096 })))
