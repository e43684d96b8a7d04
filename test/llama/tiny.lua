-- tiny.lua - the sizes every test Llama shares (test_llama.c's configs
-- repeat them): 2 layers, hidden 256, 8 heads over 2 KV heads of 64, FFN
-- 768, vocab 1000, a 64-slot KV cache. Each llama_*.lua adds its own keys.
return function(extra)
  local cfg = { hidden = 256, layers = 2, heads = 8, kv_heads = 2, head_dim = 64, ffn = 768,
    vocab = 1000, context = 64, max_tokens = 64 }
  for k, v in pairs(extra) do cfg[k] = v end
  return cfg
end
