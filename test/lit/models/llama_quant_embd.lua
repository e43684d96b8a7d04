-- models.llama: a quantized embedding table is refused (not supported yet).
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local llama = require "models.llama"
-- CHECK: llama_quant_embd.lua:[[@LINE+1]]: error: llama: config weights.token_embd must be f32, f16 or bf16
llama { hidden = 256, layers = 2, heads = 8, ffn = 768, vocab = 1000, weights = q4_0 }
