-- bench: greedy sampling of one row of 128256 f32 logits with the settings
-- read at run time (params: temperature 0), as a batch-1 Llama table
-- samples: the same split argmax as greedy_1's, beside it.
local x = input("x", f32, { 1, 128256 })
local seed = input("seed", i32, { 1 })
output("ids", sample(x, seed, input("params", f32, { 1, 4 }), seed))
