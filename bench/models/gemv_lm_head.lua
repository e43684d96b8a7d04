-- bench: GEMV batch 1 at an LM head's shape, x [1, 4096] . W[128256, 4096]^T, bf16 (1 GB).
local x = input("x", bf16, { 1, 4096 })
local w = input("w", bf16, { 128256, 4096 })
output("y", matmul(x, w))
