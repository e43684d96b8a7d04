-- llama_batch_bf16.lua - the bf16 test Llama (llama_bf16.lua) as a batched
-- table: up to 16 sequences of up to 384 tokens a step of up to 64 tokens,
-- over a KV cache of 96 blocks of 16 (test_llama_batch.c)
local llama = require "models.llama"
local tiny = require "tiny"
llama(tiny { dtype = bf16, weights = bf16, rope_theta = 500000,
  rope_scaling = { factor = 8, low_freq_factor = 1, high_freq_factor = 4, original_context = 64 },
  context = 384, batch = { sequences = 16, blocks = 96, block_size = 16 } })
