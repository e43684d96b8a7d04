-- tiny_llama_tp2.lua - tiny_llama.lua split over 2 ranks (tensor parallel):
-- `llm --tp 2` runs it on two GPUs (or two sim devices), binding each rank's
-- part of the same weight file.
local llama = require "models.llama"
llama { hidden = 256, layers = 2, heads = 8, kv_heads = 2, head_dim = 64, ffn = 768, vocab = 1000,
  context = 256, max_tokens = 64, dtype = bf16, weights = bf16, rope_theta = 10000, tp = 2 }
