-- bench: GEMM bf16 4096 x 4096 x 4096, y = x . w^T (the GEMM path of matmul;
-- on sm_90 mma.sync m16n8k16 tiles), against cuBLAS (A @ B) in the same call.
local x = input("x", bf16, { 4096, 4096 })
local w = input("w", bf16, { 4096, 4096 })
output("y", matmul(x, w))
