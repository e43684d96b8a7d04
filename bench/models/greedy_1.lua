-- bench: greedy sampling (argmax) of one row of 128256 f32 logits: the
-- floor of a split sampling kernel (the same parts, the least work).
local x = input("x", f32, { 1, 128256 })
local seed = input("seed", i32, { 1 })
output("ids", sample(x, seed, { temperature = 0 }))
