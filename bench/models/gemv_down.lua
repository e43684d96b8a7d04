-- bench: GEMV batch 1 at a down projection's shape, x [1, 14336] . W[4096, 14336]^T, bf16
-- (N = 4096 leaves too few whole columns for the machine: the split-K GEMV).
local x = input("x", bf16, { 1, 14336 })
local w = input("w", bf16, { 4096, 14336 })
output("y", matmul(x, w))
