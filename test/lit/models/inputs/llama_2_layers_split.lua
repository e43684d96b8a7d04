-- 2 layers of the model in ../llama_split_norms.lua
local llama = require "models.llama"
llama { hidden = 256, layers = 2, heads = 8, kv_heads = 2, ffn = 768, vocab = 1000,
  context = 64, max_tokens = 64, split_norms = true }
