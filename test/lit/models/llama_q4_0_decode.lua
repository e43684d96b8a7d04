-- models.llama with Q4_0 weights over bf16 activations: a decode step (T = 1)
-- runs the q, k and v projections as regions of one one-row quantized GEMV
-- with RoPE and the KV write in its epilogue, and the residual adds and
-- SwiGLU in the GEMVs' epilogues, the gate and up projections as one pair:
-- 7 kernels a layer (the bf16 model's 5, with the two norms still kernels
-- of their own).
-- inputs/decode_steps.py lists the steps whose select range holds T = 1.
-- RUN: %kgen --arch gfx1100 --emit=table %s -o %t.c
-- RUN: python3 %S/inputs/decode_steps.py %t.c | FileCheck %s
-- CHECK: {{^}}llama_q4_0_decode_embedding_{{[0-9a-f]+$}}
-- CHECK-COUNT-2: {{^}}llama_q4_0_decode_rmsnorm_{{[0-9a-f]+}}{{[[:space:]]+}}llama_q4_0_decode_matmul3_rope_kv_append_gemv_q_{{[0-9a-f]+}}{{[[:space:]]+}}llama_q4_0_decode_attention_decode_{{[0-9a-f]+}}{{[[:space:]]+}}llama_q4_0_decode_matmul_add_gemv_q_{{[0-9a-f]+}}{{[[:space:]]+}}llama_q4_0_decode_rmsnorm_{{[0-9a-f]+}}{{[[:space:]]+}}llama_q4_0_decode_matmul_silu_matmul_gemv_q_{{[0-9a-f]+}}{{[[:space:]]+}}llama_q4_0_decode_matmul_add_gemv_q_{{[0-9a-f]+}}{{$}}
-- CHECK-NEXT: {{^}}llama_q4_0_decode_embedding_{{[0-9a-f]+$}}
-- CHECK-NEXT: {{^}}llama_q4_0_decode_rmsnorm_{{[0-9a-f]+$}}
-- CHECK-NEXT: {{^}}llama_q4_0_decode_matmul_cast_gemv_q_{{[0-9a-f]+$}}
-- CHECK-NEXT: {{^}}llama_q4_0_decode_sample_{{[0-9a-f]+$}}
-- CHECK-NOT: {{_rope_[0-9a-f]|_kv_append_[0-9a-f]}}
local llama = require "models.llama"
llama { hidden = 256, layers = 2, heads = 8, kv_heads = 2, ffn = 768, vocab = 1000,
  context = 64, max_tokens = 64, dtype = bf16, weights = q4_0 }
