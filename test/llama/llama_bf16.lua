-- llama_bf16.lua - the test Llama in bf16, with Llama 3.1's RoPE scaling
-- (its original context 64, so that the scaling moves most frequencies at
-- the positions the test reaches; test_llama.c)
local llama = require "models.llama"
local tiny = require "tiny"
llama(tiny { dtype = bf16, weights = bf16, rope_theta = 500000,
  rope_scaling = { factor = 8, low_freq_factor = 1, high_freq_factor = 4, original_context = 64 } })
