-- bench: norm_swiglu_gemv as two kernels (the norm's result is an output
-- too): rmsnorm, then the gate/up pair with its SwiGLU epilogue.
local x = input("x", bf16, { 1, 4096 })
local h = rmsnorm(x, weight("g", bf16, { 4096 }), { eps = 1e-5 })
output("f", silu(matmul(h, weight("wg", bf16, { 14336, 4096 }))) *
  matmul(h, weight("wu", bf16, { 14336, 4096 })))
output("h", h)
