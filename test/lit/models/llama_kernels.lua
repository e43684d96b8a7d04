-- models.llama: a 5-layer model needs exactly the distinct kernels of its
-- 2-layer version (the layer of kv_append and attention is a kernel
-- argument, not part of the kernel), and every layer's steps run them; the
-- q, k and v projections are one GEMV at decode (three regions, RoPE and
-- the KV write its epilogue).
-- RUN: %kgen --arch gfx1100 --emit=table %s -o %t.5.c
-- RUN: %kgen --arch gfx1100 --emit=table %S/inputs/llama_2_layers.lua -o %t.2.c
-- RUN: grep 'kgrt_kernel_t kernels\[' %t.5.c > %t.5.k
-- RUN: grep 'kgrt_kernel_t kernels\[' %t.2.c > %t.2.k
-- RUN: diff %t.5.k %t.2.k
-- RUN: FileCheck %s < %t.5.c
-- CHECK: static const kgrt_kernel_t kernels[20] = {
-- CHECK: {"llama_kernels_rmsnorm_matmul3_rope_kv_append_gemv_
-- CHECK: {"llama_kernels_kv_append_[[KV:[0-9a-f]+]]"
-- CHECK: {"llama_kernels_attention_decode_[[DEC:[0-9a-f]+]]"
-- CHECK-NOT: {"llama_kernels_kv_append_
-- CHECK-NOT: {"llama_kernels_attention_decode_
-- CHECK: static const kgrt_step_t steps[
local llama = require "models.llama"
llama { hidden = 256, layers = 5, heads = 8, kv_heads = 2, ffn = 768, vocab = 1000,
  context = 64, max_tokens = 64 }
