-- bench: GEMM bf16 x [512, 4096] . W[14336, 4096]^T: the shape of gemm_q4_0 and
-- gemm_q8_0 on plain bf16 weights.
local x = input("x", bf16, { 512, 4096 })
local w = input("w", bf16, { 14336, 4096 })
output("y", matmul(x, w))
