-- models.llama: `sampling` is no config key: a table samples with its params
-- input (temperature, top_k, top_p, min_p), set at run time.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local llama = require "models.llama"
-- CHECK: llama_sampling_config.lua:[[@LINE+1]]: error: llama: config sampling: a table samples with its params input, set at run time
llama { hidden = 256, layers = 2, heads = 8, kv_heads = 2, ffn = 768, vocab = 1000,
  sampling = { temperature = 0.7 } }
