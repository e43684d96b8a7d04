-- The exact model of sample_test.c (lua/ops/sample.lua): greedy, top-k = 1 and
-- a tiny top-p on rows with many ties, and a Llama-3-sized vocabulary.
local s1 = input("seed1", i32, { 1 })
local s = input("seed", i32, { 2 })
local e = input("e", f16, { 64, 64 })
output("greedy", sample(e, s1, { temperature = 0 }))
output("top1", sample(e, s1, { top_k = 1 }))
output("tinyp", sample(e, s1, { top_p = 1e-6 }))
local big = input("big", bf16, { 3, 128256 })
output("big_k", sample(big, s, { top_k = 50 }))
output("big_p", sample(big, s, { top_p = 0.9, temperature = 0.8 }))
output("big_kp", sample(big, s, { top_k = 40, top_p = 0.5, temperature = 1.3 }))
output("big_greedy", sample(big, s1, { temperature = 0 }))
