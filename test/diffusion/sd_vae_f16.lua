-- test: a tiny SD VAE decoder (models/sd_vae.lua) in f16, against
-- test_sd_vae.c's float64 reference
require "models.sd_vae" { blocks = { 16, 32 }, layers = 1, groups = 4, height = 4, width = 6,
  dtype = f16 }
