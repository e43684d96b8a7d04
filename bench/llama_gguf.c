/* llama_gguf.c - writes a GGUF file of random weights at Llama-3-8B shapes
 * for the peers (llama.cpp's llama-batched-bench, llama-bench): the metadata
 * and tokenizer kgen's test writer gives (llm_model_gguf_meta), every
 * weight's bytes random in the scale llama_decode.c uses (bf16 of magnitude
 * 2^-7, Q4_0 blocks of scale 2^-7, norms near 1). Every tensor of a type
 * holds the same bytes (one buffer of the largest): speed, not numbers.
 *   llama_gguf bf16|q4_0 OUT.gguf
 * bf16: every weight bf16 (the norms f32); q4_0: the projections and the LM
 * head Q4_0, the embedding table bf16, as models/llama3_8b_q4_0*.lua. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llm_model.h"
#include "weights_writer.h"

enum { E = 4096, L = 32, H = 32, KVH = 8, HD = 128, F = 14336, V = 128256 };

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

/* Bytes of n weights of a GGUF type. */
static size_t type_bytes(uint32_t type, uint64_t n) {
  return type == WW_GGML_F32 ? 4 * n : type == WW_GGML_Q4_0 ? n / 32 * 18 : 2 * n;
}

/* A buffer of `bytes` random weight bytes of `type`. */
static unsigned char *random_bytes(uint32_t type, size_t bytes) {
  unsigned char *p = malloc(bytes);
  if (p == NULL)
    return NULL;
  for (size_t i = 0; i < bytes; i += 8) {
    uint64_t r = next();
    memcpy(p + i, &r, bytes - i < 8 ? bytes - i : 8);
  }
  if (type == WW_GGML_F32) {
    for (size_t i = 0; i + 4 <= bytes; i += 4) {
      uint32_t u = 0x3F800000u | (uint32_t)(next() & 0x7FFF);
      memcpy(p + i, &u, 4);
    }
  } else if (type == WW_GGML_BF16) {
    for (size_t i = 0; i + 2 <= bytes; i += 2) {
      uint16_t h;
      memcpy(&h, p + i, 2);
      h = (uint16_t)(0x3C00 | (h & 0x807F));
      memcpy(p + i, &h, 2);
    }
  } else if (type == WW_GGML_Q4_0) {
    const uint16_t d = 0x2000; /* f16 2^-7 */
    for (size_t i = 0; i + 18 <= bytes; i += 18)
      memcpy(p + i, &d, 2);
  }
  return p;
}

int main(int argc, char **argv) {
  if (argc != 3 || (strcmp(argv[1], "bf16") != 0 && strcmp(argv[1], "q4_0") != 0)) {
    fprintf(stderr, "usage: llama_gguf bf16|q4_0 OUT.gguf\n");
    return 2;
  }
  const uint32_t proj = strcmp(argv[1], "q4_0") == 0 ? WW_GGML_Q4_0 : WW_GGML_BF16;
  llm_model_t m;
  memset(&m, 0, sizeof m);
  m.c = (llm_config_t){.hidden = E,
                       .layers = L,
                       .heads = H,
                       .kv_heads = KVH,
                       .head_dim = HD,
                       .ffn = F,
                       .vocab = V,
                       .context = 131072,
                       .rope_theta = 500000};
  ww_gguf_t g;
  ww_gguf_init(&g, 3, 32);
  if (llm_model_gguf_meta(&g, &m) != 0) {
    fprintf(stderr, "llama_gguf: out of memory for the metadata\n");
    return 1;
  }
  /* one random buffer per type, as large as its largest tensor */
  unsigned char *f32 = random_bytes(WW_GGML_F32, type_bytes(WW_GGML_F32, F));
  unsigned char *bf16 =
      random_bytes(WW_GGML_BF16, type_bytes(WW_GGML_BF16, (uint64_t)V * E));
  unsigned char *pj =
      proj == WW_GGML_BF16 ? bf16 : random_bytes(proj, type_bytes(proj, (uint64_t)V * E));
  if (f32 == NULL || bf16 == NULL || pj == NULL) {
    fprintf(stderr, "llama_gguf: out of host memory\n");
    return 1;
  }
  static char names[L * 9 + 3][48];
  int n = 0;
#define TENSOR(type, data, rows, cols, ...)                                              \
  do {                                                                                   \
    snprintf(names[n], sizeof names[n], __VA_ARGS__);                                    \
    const uint64_t ne[2] = {(uint64_t)(cols), (uint64_t)(rows)};                         \
    ww_gguf_tensor(&g, names[n], type, (rows) == 1 ? 1 : 2, ne, data,                    \
                   type_bytes(type, (uint64_t)(rows) * (cols)));                         \
    n++;                                                                                 \
  } while (0)
  TENSOR(WW_GGML_BF16, bf16, V, E, "token_embd.weight");
  for (int l = 0; l < L; ++l) {
    TENSOR(WW_GGML_F32, f32, 1, E, "blk.%d.attn_norm.weight", l);
    TENSOR(proj, pj, H * HD, E, "blk.%d.attn_q.weight", l);
    TENSOR(proj, pj, KVH * HD, E, "blk.%d.attn_k.weight", l);
    TENSOR(proj, pj, KVH * HD, E, "blk.%d.attn_v.weight", l);
    TENSOR(proj, pj, E, H * HD, "blk.%d.attn_output.weight", l);
    TENSOR(WW_GGML_F32, f32, 1, E, "blk.%d.ffn_norm.weight", l);
    TENSOR(proj, pj, F, E, "blk.%d.ffn_gate.weight", l);
    TENSOR(proj, pj, F, E, "blk.%d.ffn_up.weight", l);
    TENSOR(proj, pj, E, F, "blk.%d.ffn_down.weight", l);
  }
  TENSOR(WW_GGML_F32, f32, 1, E, "output_norm.weight");
  TENSOR(proj, pj, V, E, "output.weight");
#undef TENSOR
  ww_buf_t out = {0};
  int rc = ww_gguf_finish(&g, &out, NULL);
  if (rc == 0)
    rc = ww_write_file(argv[2], out.p, out.len);
  if (rc != 0)
    fprintf(stderr, "llama_gguf: cannot write %s\n", argv[2]);
  else
    printf("llama_gguf: %s, %d tensors, %.2f GB\n", argv[2], n, (double)out.len / 1e9);
  ww_free(&out);
  ww_gguf_free(&g);
  if (pj != bf16)
    free(pj);
  free(bf16);
  free(f32);
  return rc == 0 ? 0 : 1;
}
