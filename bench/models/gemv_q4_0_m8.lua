-- bench: GEMV with GGUF q4_0 weights for a batch of 8 rows (matmul's
-- quantized GEMV path at its largest M, as for 8 sequences decoded together):
-- x [8, 4096] bf16 . W[14336, 4096]^T, twice per run, as a gate and an up
-- projection, so that the weights of one run (2 x 33 MB in q4_0) never fit
-- the H100's 50 MB L2 and every run streams from HBM.
local x = input("x", bf16, { 8, 4096 })
output("gate", matmul(x, weight("w_gate", q4_0, { 14336, 4096 })))
output("up", matmul(x, weight("w_up", q4_0, { 14336, 4096 })))
