-- tiny_llama_pp2.lua - tiny_llama.lua as a pipeline over 2 ranks (a layer on each):
-- `llm --pp 2` runs it on two GPUs (or two sim devices), each rank binding
-- its own layers' weights from the same file.
local llama = require "models.llama"
llama { hidden = 256, layers = 2, heads = 8, kv_heads = 2, head_dim = 64, ffn = 768, vocab = 1000,
  context = 256, max_tokens = 64, dtype = bf16, weights = bf16, rope_theta = 10000, pp = 2 }
