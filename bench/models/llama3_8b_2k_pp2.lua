-- bench: llama3_8b_2k.lua as a pipeline over 2 ranks, 16 layers each (llama_tp.c).
local llama = require "models.llama"
llama { hidden = 4096, layers = 32, heads = 32, kv_heads = 8, ffn = 14336, vocab = 128256,
  rope_theta = 500000, dtype = bf16, weights = bf16, context = 2560, max_tokens = 2048, pp = 2 }
