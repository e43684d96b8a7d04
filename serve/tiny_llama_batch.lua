-- tiny_llama_batch.lua - kgen-serve's table for the tests: the main job's
-- small Llama (examples/llm/tiny_llama.lua: 2 layers, hidden 256, vocab
-- 1000, bf16, a 256-token context; make_tiny_llama writes its weights and
-- tokenizer) as a batched table: up to 8 sequences, a step of up to 64
-- tokens, a KV cache of 64 blocks of 16 tokens shared by all of them.
local llama = require "models.llama"
llama { hidden = 256, layers = 2, heads = 8, kv_heads = 2, head_dim = 64, ffn = 768, vocab = 1000,
  context = 256, max_tokens = 64, dtype = bf16, weights = bf16, rope_theta = 10000,
  batch = { sequences = 8, blocks = 64, block_size = 16 } }
