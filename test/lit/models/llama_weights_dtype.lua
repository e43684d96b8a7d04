-- models.llama: float weights in another dtype than the activations' (a
-- file's bf16 weights under dtype = f16) are refused at the config, by
-- kind, not at the first matmul; quantized weights take any dtype.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local llama = require "models.llama"
-- CHECK: llama_weights_dtype.lua:[[@LINE+1]]: error: llama: config weights: output is bf16 but dtype is f16: float weights must be in the activations' dtype (quantized ones may differ)
llama { hidden = 256, layers = 2, heads = 8, ffn = 768, vocab = 1000, dtype = f16, weights = { default = q8_0, output = bf16 } }
