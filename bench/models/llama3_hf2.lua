-- bench: a 2-layer model at Llama-3-8B shapes as Hugging Face transformers
-- writes it (bf16 norms, half-split RoPE: q and k are not permuted as in
-- GGUF files), for llama_hf.c's comparison with HF's own logits.
local llama = require "models.llama"
llama { hidden = 4096, layers = 2, heads = 32, kv_heads = 8, ffn = 14336, vocab = 128256,
  rope_theta = 500000, rope_layout = "half", norms = bf16, dtype = bf16, weights = bf16,
  context = 128, max_tokens = 64 }
