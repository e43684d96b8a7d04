-- llama_batch_q4_k.lua - the Q4_K test Llama (llama_q4_k.lua: f16, a Q6_K head,
-- layer 0's attn_v and ffn_down in Q6_K) as a batched table
-- (test_llama_batch.c)
local llama = require "models.llama"
local tiny = require "tiny"
llama(tiny { dtype = f16, weights = { default = q4_k, output = q6_k,
  layers = { [0] = { attn_v = q6_k, ffn_down = q6_k } } },
  context = 384, batch = { sequences = 16, blocks = 96, block_size = 16 } })
