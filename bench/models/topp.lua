-- bench: top-p 0.9 (nucleus) sampling over 32 rows of 128256 f32 logits.
local x = input("x", f32, { 32, 128256 })
local seed = input("seed", i32, { 1 })
output("ids", sample(x, seed, { top_p = 0.9 }))
