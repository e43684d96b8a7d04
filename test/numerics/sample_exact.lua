-- The exact model of sample_test.c (lua/ops/sample.lua): greedy, top-k = 1 and
-- a tiny top-p on rows with many ties, top-k (split over parts) on them, and
-- Llama-3-sized vocabularies in bf16 and f32.
local s1 = input("seed1", i32, { 1 })
local s = input("seed", i32, { 2 })
local e = input("e", f16, { 64, 64 })
output("greedy", sample(e, s1, { temperature = 0 }))
output("top1", sample(e, s1, { top_k = 1 }))
output("tinyp", sample(e, s1, { top_p = 1e-6 }))
output("tie_k", sample(e, s1, { top_k = 5 }))
output("tie_kpm", sample(e, s1, { top_k = 9, top_p = 0.6, min_p = 0.1, temperature = 0.7 }))
local big = input("big", bf16, { 3, 128256 })
output("big_k", sample(big, s, { top_k = 50 }))
output("big_p", sample(big, s, { top_p = 0.9, temperature = 0.8 }))
output("big_kp", sample(big, s, { top_k = 40, top_p = 0.5, temperature = 1.3 }))
output("big_greedy", sample(big, s1, { temperature = 0 }))
local bigf = input("bigf", f32, { 3, 128256 })
output("bigf_kp", sample(bigf, s, { top_k = 50, top_p = 0.9 }))
output("bigf_k200", sample(bigf, s, { top_k = 200, temperature = 1.1 }))
-- 2 parts of 2048 and one of 16, fewer than k: its slots are padded
local odd = input("odd", f32, { 3, 4112 })
output("odd_k", sample(odd, s, { top_k = 50, top_p = 0.95 }))
-- settings read at run time, row by row (params: temperature, top_k, top_p,
-- min_p), each row its own Philox key and counter
output("rt_bigf", sample(bigf, input("rt_seed", i32, { 3 }), input("rt_params", f32, { 3, 4 }),
  input("rt_counter", i32, { 3 })))
output("rt_tie", sample(e, input("rt_tie_seed", i32, { 64 }),
  input("rt_tie_params", f32, { 64, 4 }), input("rt_tie_counter", i32, { 64 })))
