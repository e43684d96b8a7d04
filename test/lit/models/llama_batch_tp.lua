-- models.llama: a batched table takes neither tp nor pp.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local llama = require "models.llama"
-- CHECK: llama_batch_tp.lua:[[@LINE+1]]: error: llama: config batch: a batched table takes neither tp nor pp
llama { hidden = 256, layers = 2, heads = 8, kv_heads = 2, ffn = 768, vocab = 1000, context = 128,
  max_tokens = 64, tp = 2, batch = { sequences = 8, blocks = 64 } }
