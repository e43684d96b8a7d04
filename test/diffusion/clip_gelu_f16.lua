-- test: a tiny CLIP text encoder (models/clip.lua) in f16 with SD 2.x's
-- OpenCLIP options (GELU, the last layer left out), against test_clip.c's
-- float64 reference
require "models.clip" { vocab = 97, hidden = 64, layers = 2, heads = 4, ffn = 256,
  positions = 16, dtype = f16, act = "gelu", skip = 1 }
