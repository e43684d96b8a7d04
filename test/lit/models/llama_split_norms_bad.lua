-- models.llama: split_norms takes "none", "attn", "all", true or false; any
-- other value is one line at the model's line naming the key and the values.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local llama = require "models.llama"
-- CHECK: llama_split_norms_bad.lua:[[@LINE+1]]: error: llama: config split_norms must be "none", "attn", "all", true or false, got ffn
llama { hidden = 256, layers = 2, heads = 8, kv_heads = 2, ffn = 768, vocab = 1000, split_norms = "ffn" }
