-- bench: norm_qkv_gemv as four kernels (the norm's result is an output too,
-- so no GEMV takes it in): rmsnorm, then the three GEMVs read its result.
local x = input("x", bf16, { 1, 4096 })
local h = rmsnorm(x, weight("g", bf16, { 4096 }), { eps = 1e-5 })
output("q", matmul(h, weight("wq", bf16, { 4096, 4096 })))
output("k", matmul(h, weight("wk", bf16, { 1024, 4096 })))
output("v", matmul(h, weight("wv", bf16, { 1024, 4096 })))
output("h", h)
