-- bench: Llama-3-8B shapes in bf16 (random weights) as a batched table: up
-- to 128 sequences of up to 1024 tokens over a KV cache of 5632 blocks of 16
-- (128 x 704 tokens: a 512-token prompt and 128 generated, and the warm-up),
-- prefill chunks of up to 512 tokens (llama_batch.c).
local llama = require "models.llama"
llama { hidden = 4096, layers = 32, heads = 32, kv_heads = 8, ffn = 14336, vocab = 128256,
  rope_theta = 500000, dtype = bf16, weights = bf16, context = 1024, max_tokens = 512,
  batch = { sequences = 128, blocks = 5632, block_size = 16 } }
