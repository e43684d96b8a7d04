-- bench: top-k 50 then top-p 0.9 sampling of 32 rows of 128256 f32 logits.
local x = input("x", f32, { 32, 128256 })
local seed = input("seed", i32, { 1 })
output("ids", sample(x, seed, { top_k = 50, top_p = 0.9 }))
