-- bench: attention decode, one query token over a context of 32768 keys in a
-- KV cache [1, 8, 32768, 128], 32 query heads over 8 KV heads, bf16 (the
-- attention issue's shape; 128 MiB of K and V per token).
local q = input("q", bf16, { 1, 32, 128 })
local kc = input("kc", bf16, { 1, 8, 32768, 128 })
local vc = input("vc", bf16, { 1, 8, 32768, 128 })
output("y", attention(q, kc, vc, { causal = true, context = 32768 }))
