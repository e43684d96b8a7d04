-- llama_pp2.lua - the bf16 test Llama (llama_bf16.lua's config) as a
-- pipeline over 2 ranks: a layer on each, the residual and the logits
-- handed on by broadcasts through a communicator (test_llama_tp.c)
local llama = require "models.llama"
local tiny = require "tiny"
llama(tiny { dtype = bf16, weights = bf16, rope_theta = 500000, pp = 2,
  rope_scaling = { factor = 8, low_freq_factor = 1, high_freq_factor = 4, original_context = 64 } })
