-- tiny_q4_k_m.lua - examples/llm/tiny_llama.lua's model with its weights as
-- a Q4_K_M GGUF file mixes them (make_tiny_llama --q4_k_m): Q4_K, the LM
-- head in Q6_K, and layer 0's attn_v and ffn_down in Q6_K. llm/config_q4_k_m
-- reads the same config from that file's header (examples/llm/from_gguf.lua)
-- and compares the two tables byte for byte.
local llama = require "models.llama"
llama { hidden = 256, layers = 2, heads = 8, kv_heads = 2, head_dim = 64, ffn = 768, vocab = 1000,
  context = 256, max_tokens = 64, dtype = bf16, rope_theta = 10000,
  weights = { default = q4_k, output = q6_k, layers = { [0] = { attn_v = q6_k, ffn_down = q6_k } } } }
