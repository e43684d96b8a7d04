-- test: a tiny CLIP text encoder (models/clip.lua) in f32, against
-- test_clip.c's float64 reference
require "models.clip" { vocab = 97, hidden = 64, layers = 2, heads = 4, ffn = 256,
  positions = 16, dtype = f32 }
