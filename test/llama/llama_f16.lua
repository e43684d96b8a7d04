-- llama_f16.lua - the test Llama in f16, Qwen2-style: q, k, v biases,
-- half-split RoPE, the LM head tied to the embedding, heads x head_dim =
-- hidden (4 heads over 2 KV heads, llm_model.h's LLM_TINY_SIZES_QWEN2;
-- test_llama.c)
local llama = require "models.llama"
local tiny = require "tiny"
llama(tiny { heads = 4, dtype = f16, weights = f16, rope_theta = 1000000, rope_layout = "half",
  qkv_bias = true, tied_embeddings = true, norm_eps = 1e-6 })
