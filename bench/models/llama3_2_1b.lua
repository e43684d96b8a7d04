-- bench: Llama-3.2-1B shapes in bf16 (random weights; the LM head tied to the
-- embedding, Llama 3.1's RoPE scaling), context 2048, prefill up to 512.
local llama = require "models.llama"
llama { hidden = 2048, layers = 16, heads = 32, kv_heads = 8, head_dim = 64, ffn = 8192,
  vocab = 128256, rope_theta = 500000, tied_embeddings = true,
  rope_scaling = { factor = 32, low_freq_factor = 1, high_freq_factor = 4, original_context = 8192 },
  dtype = bf16, weights = bf16, context = 2048, max_tokens = 512 }
