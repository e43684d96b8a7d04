-- tiny_llama.lua - the main job's model: a small Llama (2 layers, hidden 256,
-- 8 heads over 2 KV heads, vocab 1000) in bf16 with a 256-token context,
-- small enough to generate text on the sim device in seconds. Its random
-- weights and a tokenizer come from test/llama/make_tiny_llama.c. A real
-- model is the same call with its own sizes (see lua/models/llama.lua).
local llama = require "models.llama"
llama { hidden = 256, layers = 2, heads = 8, kv_heads = 2, head_dim = 64, ffn = 768, vocab = 1000,
  context = 256, max_tokens = 64, dtype = bf16, weights = bf16, rope_theta = 10000 }
