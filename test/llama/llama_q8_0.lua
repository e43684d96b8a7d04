-- llama_q8_0.lua - the test Llama with every weight in Q8_0 (the embedding
-- table too, as a Q8_0 GGUF stores it) over f16 activations, Mistral-style:
-- a sliding window of 16 (test_llama.c)
local llama = require "models.llama"
local tiny = require "tiny"
llama(tiny { dtype = f16, weights = q8_0, sliding_window = 16 })
