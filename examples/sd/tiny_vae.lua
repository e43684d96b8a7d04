-- sd's tiny VAE decoder (models/sd_vae.lua), for the sim: 8 x 8 latents to a
-- 16 x 16 image
require "models.sd_vae" { blocks = { 16, 32 }, layers = 1, groups = 4, height = 8, width = 8,
  dtype = f32 }
