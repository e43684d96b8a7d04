-- sd's tiny text encoder (models/clip.lua), for the sim: 8 tokens of 32
require "models.clip" { vocab = 97, hidden = 32, layers = 1, heads = 2, ffn = 64, positions = 8,
  dtype = f32 }
