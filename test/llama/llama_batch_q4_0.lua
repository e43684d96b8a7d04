-- llama_batch_q4_0.lua - the Q4_0 test Llama (llama_q4_0.lua: bf16
-- activations) as a batched table (test_llama_batch.c): a step of 9 to 16
-- tokens (matmul's small_m, the table's 16 sequences) takes gemv_qm.hip's
-- wide variant on sm_80/sm_90, x staged whole at these K
local llama = require "models.llama"
local tiny = require "tiny"
llama(tiny { dtype = bf16, weights = q4_0,
  context = 384, batch = { sequences = 16, blocks = 96, block_size = 16 } })
