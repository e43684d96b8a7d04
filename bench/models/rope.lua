-- bench: RoPE (half-split, Llama) on q [4096 tokens, 32 heads, 128] bf16.
local q = input("q", bf16, { 4096, 32, 128 })
local pos = input("pos", i32, { 4096 })
output("y", rope(q, pos))
