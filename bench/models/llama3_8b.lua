-- bench: Llama-3-8B shapes in bf16 (random weights), context 2048, prefill
-- up to 512 tokens (llama_decode.c).
local llama = require "models.llama"
llama { hidden = 4096, layers = 32, heads = 32, kv_heads = 8, ffn = 14336, vocab = 128256,
  rope_theta = 500000, dtype = bf16, weights = bf16, context = 2048, max_tokens = 512 }
