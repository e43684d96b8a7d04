-- models.llama: a 5-layer model needs exactly the distinct kernels of its
-- 2-layer version (the layer of the KV write and attention is a kernel
-- argument, not part of the kernel), and every layer's steps run them; the
-- q, k and v projections are one kernel at decode (a GEMV) and at prefill (a
-- GEMM), three regions whose epilogue is RoPE and the KV write: neither has
-- a kernel of its own.
-- RUN: %kgen --arch gfx1100 --emit=table %s -o %t.5.c
-- RUN: %kgen --arch gfx1100 --emit=table %S/inputs/llama_2_layers.lua -o %t.2.c
-- RUN: grep 'kgrt_kernel_t kernels\[' %t.5.c > %t.5.k
-- RUN: grep 'kgrt_kernel_t kernels\[' %t.2.c > %t.2.k
-- RUN: diff %t.5.k %t.2.k
-- RUN: FileCheck %s < %t.5.c
-- CHECK: static const kgrt_kernel_t kernels[17] = {
-- CHECK-NOT: {"llama_kernels_kv_append_
-- CHECK-NOT: {"llama_kernels_rope_
-- CHECK: {"llama_kernels_rmsnorm_matmul3_rope_kv_append_gemv_
-- CHECK-NEXT: {"llama_kernels_matmul3_rope_kv_append_gemm_
-- CHECK-NEXT: {"llama_kernels_attention_prefill_
-- CHECK-NEXT: {"llama_kernels_attention_decode_
-- CHECK-NOT: {"llama_kernels_kv_append_
-- CHECK-NOT: {"llama_kernels_rope_
-- CHECK-NOT: {"llama_kernels_attention_decode_
-- CHECK: static const kgrt_step_t steps[
local llama = require "models.llama"
llama { hidden = 256, layers = 5, heads = 8, kv_heads = 2, ffn = 768, vocab = 1000,
  context = 64, max_tokens = 64 }
