-- bench/serve: kgen-serve's Llama-3-8B table with Q4_0 projections and LM head
-- over bf16 activations (the embedding bf16), as llama3_8b_bf16.lua
-- otherwise; make_llama3_gguf's q4_0 file fits it.
local llama = require "models.llama"
llama { hidden = 4096, layers = 32, heads = 32, kv_heads = 8, ffn = 14336, vocab = 128256,
  rope_theta = 500000, dtype = bf16, weights = { default = q4_0, token_embd = bf16 },
  context = 1024, max_tokens = 512, batch = { sequences = 128, blocks = 5632, block_size = 16 } }
