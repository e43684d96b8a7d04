-- bench: Llama-3-8B shapes with Q4_0 projections and LM head over bf16
-- activations (random weights), context 2048, prefill up to 512 tokens.
local llama = require "models.llama"
llama { hidden = 4096, layers = 32, heads = 32, kv_heads = 8, ffn = 14336, vocab = 128256,
  rope_theta = 500000, dtype = bf16, weights = { default = q4_0, token_embd = bf16 },
  context = 2048, max_tokens = 512 }
