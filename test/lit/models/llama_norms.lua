-- models.llama: norms = bf16 (Hugging Face files store norm weights and
-- biases in the model's dtype), else f32 as in GGUF files; weight names are
-- GGUF's with '.' read as '_'.
-- RUN: rm -rf %t && %kgen --arch gfx1100 --no-sim %s -o %t
-- RUN: FileCheck %s < %t/llama_norms.c
-- CHECK: {"token_embd_weight", KGRT_DTYPE_BF16, 2,
-- CHECK: {"blk_0_attn_norm_weight", KGRT_DTYPE_BF16, 1,
-- CHECK: {"blk_0_attn_q_weight", KGRT_DTYPE_BF16, 2,
-- CHECK: {"blk_0_attn_q_bias", KGRT_DTYPE_BF16, 1,
-- CHECK: {"blk_0_ffn_norm_weight", KGRT_DTYPE_BF16, 1,
-- CHECK: {"output_norm_weight", KGRT_DTYPE_BF16, 1,
-- CHECK-NOT: output_weight
local llama = require "models.llama"
llama { hidden = 256, layers = 1, heads = 4, kv_heads = 2, head_dim = 128, ffn = 512,
  vocab = 1000, context = 64, max_tokens = 16, norms = bf16, qkv_bias = true,
  tied_embeddings = true }
