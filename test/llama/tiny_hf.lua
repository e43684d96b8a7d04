-- tiny_hf.lua - examples/llm/tiny_llama.lua's model as a Hugging Face
-- checkpoint holds it (make_tiny_llama --hf): q and k not permuted (RoPE
-- "half"), norms in the file's f32, spelled out for llm/config_from_hf,
-- which builds the same table from the checkpoint's config.json and
-- safetensors header (examples/llm/from_hf.lua).
local llama = require "models.llama"
llama { hidden = 256, layers = 2, heads = 8, kv_heads = 2, head_dim = 64, ffn = 768, vocab = 1000,
  context = 256, max_tokens = 64, dtype = bf16, weights = bf16, norms = f32, rope_theta = 10000,
  rope_layout = "half" }
