-- models.llama: a bad config is one line at the model's line naming the key.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local llama = require "models.llama"
-- CHECK: llama_errors.lua:[[@LINE+1]]: error: llama: config heads 8 must be a multiple of kv_heads 3
llama { hidden = 256, layers = 2, heads = 8, kv_heads = 3, ffn = 768, vocab = 1000 }
