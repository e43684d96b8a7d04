-- llama_q8_0.lua - the test Llama with Q8_0 projections over f16
-- activations, Mistral-style: a sliding window of 16 (test_llama.c)
local llama = require "models.llama"
local tiny = require "tiny"
llama(tiny { dtype = f16, weights = { default = q8_0, token_embd = f16 }, sliding_window = 16 })
