-- models.llama: a weight kind the model does not have is refused by name.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local llama = require "models.llama"
-- CHECK: llama_weights_error.lua:[[@LINE+1]]: error: llama: config weights.attn_qkv is not a weight kind
llama { hidden = 256, layers = 2, heads = 8, ffn = 768, vocab = 1000, weights = { attn_qkv = q8_0 } }
