-- bench: top-k 50 then top-p 0.9 sampling of one row of 128256 f32 logits
-- (a batch-1 decode step's sampling).
local x = input("x", f32, { 1, 128256 })
local seed = input("seed", i32, { 1 })
output("ids", sample(x, seed, { top_k = 50, top_p = 0.9 }))
