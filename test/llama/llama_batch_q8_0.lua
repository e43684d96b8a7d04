-- llama_batch_q8_0.lua - the Q8_0 test Llama (llama_q8_0.lua: f16
-- activations, a sliding window of 16) as a batched table
-- (test_llama_batch.c)
local llama = require "models.llama"
local tiny = require "tiny"
llama(tiny { dtype = f16, weights = q8_0, sliding_window = 16,
  context = 384, batch = { sequences = 16, blocks = 96, block_size = 16 } })
