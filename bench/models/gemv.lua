-- bench: GEMV batch 1, x [1, 4096] . W[14336, 4096]^T, bf16 (the GEMV path of matmul).
local x = input("x", bf16, { 1, 4096 })
local w = input("w", bf16, { 14336, 4096 })
output("y", matmul(x, w))
