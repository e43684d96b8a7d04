-- bench: GEMM with GGUF q4_0 weights (matmul's quantized GEMM path, the prefill
-- of a 512-token prompt through an up projection): x [512, 4096] bf16 .
-- W[14336, 4096]^T; against the same GEMM on bf16 weights (gemm_512).
local x = input("x", bf16, { 512, 4096 })
output("y", matmul(x, weight("w", q4_0, { 14336, 4096 })))
