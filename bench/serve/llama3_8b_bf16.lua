-- bench/serve: kgen-serve's Llama-3-8B table in bf16 (bench/serve/run.sh; the
-- weights from make_llama3_gguf): up to 128 sequences of up to 1024 tokens
-- over a KV cache of 5632 blocks of 16 (128 x 704 tokens: a 512-token prompt,
-- 128 generated and room to spare), steps of up to 512 tokens. The shapes of
-- bench/models/llama3_8b_batch.lua (the batched decode's bench).
local llama = require "models.llama"
llama { hidden = 4096, layers = 32, heads = 32, kv_heads = 8, ffn = 14336, vocab = 128256,
  rope_theta = 500000, dtype = bf16, weights = bf16, context = 1024, max_tokens = 512,
  batch = { sequences = 128, blocks = 5632, block_size = 16 } }
