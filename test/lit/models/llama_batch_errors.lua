-- models.llama: a bad batch config is one line at the model's line.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local llama = require "models.llama"
-- CHECK: llama_batch_errors.lua:[[@LINE+1]]: error: llama: config context 100 is not whole blocks of batch.block_size 16
llama { hidden = 256, layers = 2, heads = 8, kv_heads = 2, ffn = 768, vocab = 1000, context = 100,
  max_tokens = 64, batch = { sequences = 8, blocks = 64 } }
