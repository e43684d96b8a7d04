-- llama_q4_k.lua - the test Llama with Q4_K projections and embedding table
-- and a Q6_K LM head over f16 activations, layer 0's attn_v and ffn_down in
-- Q6_K: formats that change by layer, as a Q4_K_M GGUF stores them
-- (test_llama.c)
local llama = require "models.llama"
local tiny = require "tiny"
llama(tiny { dtype = f16, weights = { default = q4_k, output = q6_k,
  layers = { [0] = { attn_v = q6_k, ffn_down = q6_k } } } })
