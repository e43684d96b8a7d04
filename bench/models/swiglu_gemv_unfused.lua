-- bench: swiglu_gemv as three kernels (the two GEMVs are outputs too, so
-- nothing fuses): GEMV, GEMV, then the elementwise silu(g) * u.
local x = input("x", bf16, { 1, 4096 })
local wg = input("wg", bf16, { 14336, 4096 })
local wu = input("wu", bf16, { 14336, 4096 })
local g, u = matmul(x, wg), matmul(x, wu)
output("g", g)
output("u", u)
output("h", silu(g) * u)
