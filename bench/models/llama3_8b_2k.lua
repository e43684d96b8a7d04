-- bench: Llama-3-8B shapes in bf16 (random weights), prefill up to 2048
-- tokens, context 2560: the whole model that llama_tp.c splits
-- (llama3_8b_2k_tp2.lua) and measures the split against.
local llama = require "models.llama"
llama { hidden = 4096, layers = 32, heads = 32, kv_heads = 8, ffn = 14336, vocab = 128256,
  rope_theta = 500000, dtype = bf16, weights = bf16, context = 2560, max_tokens = 2048 }
