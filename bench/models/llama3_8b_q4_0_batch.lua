-- bench: Llama-3-8B shapes with Q4_0 projections and LM head over bf16
-- activations (random weights) as a batched table, as llama3_8b_batch.lua
-- (llama_batch.c).
local llama = require "models.llama"
llama { hidden = 4096, layers = 32, heads = 32, kv_heads = 8, ffn = 14336, vocab = 128256,
  rope_theta = 500000, dtype = bf16, weights = { default = q4_0, token_embd = bf16 },
  context = 1024, max_tokens = 512, batch = { sequences = 128, blocks = 5632, block_size = 16 } }
