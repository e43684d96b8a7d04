-- bench: one token's MLP input at Llama-3-8B shapes: rmsnorm, then the
-- SwiGLU gate/up pair (2 x 14336 x 4096, bf16) with the norm as its
-- prologue and silu(g) * u as its epilogue: one kernel.
local x = input("x", bf16, { 1, 4096 })
local h = rmsnorm(x, weight("g", bf16, { 4096 }), { eps = 1e-5 })
output("f", silu(matmul(h, weight("wg", bf16, { 14336, 4096 }))) *
  matmul(h, weight("wu", bf16, { 14336, 4096 })))
