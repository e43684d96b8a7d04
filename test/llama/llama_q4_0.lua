-- llama_q4_0.lua - the test Llama with every weight in Q4_0 (the embedding
-- table and the LM head too, as a Q4_0 GGUF stores them) over bf16
-- activations: one row of x takes the one-row Q4_0 GEMV (gemv_qr.hip on
-- sm_80/sm_90, with the norm, the Q, K and V regions, RoPE and the KV write
-- taken in), 2 to 8 rows the tensor cores' (gemv_qm.hip) (test_llama.c)
local llama = require "models.llama"
local tiny = require "tiny"
llama(tiny { dtype = bf16, weights = q4_0 })
