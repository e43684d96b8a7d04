-- bench: SwiGLU, silu(gate) * up fused into one kernel, 4096 x 14336 bf16.
local g = input("g", bf16, { 4096, 14336 })
local u = input("u", bf16, { 4096, 14336 })
output("y", silu(g) * u)
