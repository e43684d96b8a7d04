-- test: a tiny SD UNet (models/sd_unet.lua) in f16 with SD 2.x's options
-- (heads of a fixed width, linear projections in and out), attention at
-- both levels, against test_sd_unet.c's float64 reference
require "models.sd_unet" { blocks = { 16, 32 }, attention = { true, true }, layers = 1,
  groups = 4, head_dim = 8, linear_proj = true, context = 24, tokens = 5, height = 8,
  width = 8, dtype = f16 }
