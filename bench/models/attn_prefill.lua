-- bench: attention prefill, one sequence of 4096 tokens, 32 query heads over
-- 8 KV heads, D 128, bf16, causal (the attention issue's shape; peers: SDPA's
-- flash and cuDNN backends with enable_gqa).
local q = input("q", bf16, { 4096, 32, 128 })
local k = input("k", bf16, { 4096, 8, 128 })
local v = input("v", bf16, { 4096, 8, 128 })
output("y", attention(q, k, v, { causal = true }))
