-- The distribution model of sample_test.c (lua/ops/sample.lua): one small
-- vocabulary repeated over many rows, so one run gives 1000 draws per setting.
local s = input("seed", i32, { 2 })
local x = input("x", f32, { 1000, 64 })
output("plain", sample(x, s))
output("temp", sample(x, s, { temperature = 0.5 }))
output("topk", sample(x, s, { top_k = 10 }))
output("topp", sample(x, s, { top_p = 0.8 }))
output("minp", sample(x, s, { min_p = 0.05, temperature = 0.8 }))
output("mixed", sample(x, s, { top_k = 20, top_p = 0.9, min_p = 0.02 }))
