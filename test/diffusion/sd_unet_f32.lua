-- test: a tiny SD UNet (models/sd_unet.lua) in f32 with SD 1.x's options,
-- against test_sd_unet.c's float64 reference
require "models.sd_unet" { blocks = { 16, 32 }, attention = { true, false }, layers = 1,
  groups = 4, heads = 2, context = 24, tokens = 5, height = 8, width = 8, dtype = f32 }
