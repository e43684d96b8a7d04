-- models.llama: a quantized embedding table (as a Q4_0 GGUF stores it) is
-- decoded by the embedding straight into the activations' dtype, with no
-- cast kernel after it, and the tied LM head reads the same blocks.
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s
-- CHECK: llama_quant_embd_embedding_{{[0-9a-f]+}}(KG_GLOBAL(const unsigned short) table, KG_GLOBAL(const int) ids, KG_GLOBAL(kg_bf16) y, long vocab, long base)
-- CHECK: kg_q4_0_gl32(table, id * 144L, g, q, sc, &mn);
-- CHECK-NOT: _cast_{{[0-9a-f]+}}(KG_GLOBAL(const kg_bf16)
local llama = require "models.llama"
llama { hidden = 256, layers = 2, heads = 8, ffn = 768, vocab = 1000, weights = q4_0,
  dtype = bf16 }
