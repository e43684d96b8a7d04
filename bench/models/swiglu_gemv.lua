-- bench: the SwiGLU projections of one token, silu(x . Wg^T) * (x . Wu^T) with
-- Wg, Wu [14336, 4096] bf16, fused into one GEMV kernel (two accumulators).
local x = input("x", bf16, { 1, 4096 })
local wg = input("wg", bf16, { 14336, 4096 })
local wu = input("wu", bf16, { 14336, 4096 })
output("h", silu(matmul(x, wg)) * matmul(x, wu))
