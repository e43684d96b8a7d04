-- models.llama: per-layer formats name a layer of the model and a layer
-- weight kind.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local llama = require "models.llama"
-- CHECK: llama_layer_formats_bad.lua:[[@LINE+1]]: error: llama: config weights.layers: 2 is not a layer (0 .. 1)
llama { hidden = 256, layers = 2, heads = 8, ffn = 768, vocab = 1000, weights = { default = q4_k, layers = { [2] = { attn_v = q6_k } } } }
