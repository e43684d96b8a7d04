-- sd's tiny UNet (models/sd_unet.lua), for the sim: 8 x 8 latents, the
-- text encoder's 8 x 32 states
require "models.sd_unet" { blocks = { 16, 32 }, attention = { true, false }, layers = 1,
  groups = 4, heads = 2, context = 32, tokens = 8, height = 8, width = 8, dtype = f32 }
