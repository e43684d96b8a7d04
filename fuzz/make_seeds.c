/* make_seeds.c - writes the fuzz targets' seed corpus with the tests' writer
 * (test/unit/weights_writer.c), so no binary is committed: small valid GGUF
 * files (v2, v3, every dtype, every metadata value type, alignments 32 and
 * 64, 1 to 4 dims) into DIR/gguf and safetensors files (every dtype,
 * metadata, escapes, 0 to 8 dims) into DIR/safetensors.
 *
 * Usage: make_seeds DIR (DIR/gguf and DIR/safetensors must exist). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kgrt_weights.h"
#include "weights_writer.h"

static const char *g_dir;
static int g_failed;

/* Writes a seed and checks that kgrt accepts it: a seed is a valid file. */
static void save(const char *kind, const char *name, ww_buf_t *b) {
  char path[1024];
  kgrt_weights_t *w = NULL;
  kgrt_error_t err;
  snprintf(path, sizeof path, "%s/%s/%s", g_dir, kind, name);
  if (b->oom || ww_write_file(path, b->p, b->len) != 0) {
    fprintf(stderr, "make_seeds: cannot write %s\n", path);
    g_failed = 1;
  } else if (kgrt_weights_open(path, NULL, &w, &err) != KGRT_STATUS_OK) {
    fprintf(stderr, "make_seeds: %s\n", err.message);
    g_failed = 1;
  }
  kgrt_weights_close(w);
  ww_free(b);
}

/* A tensor of `type` with ne[], from deterministic values, added to g; the
 * data is kept in *keep until the file is written. */
static void add(ww_gguf_t *g, const char *name, uint32_t type, uint32_t n_dims,
                const uint64_t *ne, void **keep) {
  size_t n = 1, bytes;
  for (uint32_t d = 0; d < n_dims; ++d)
    n *= (size_t)ne[d];
  float *x = malloc(n * sizeof *x);
  ww_fill(x, n, (uint32_t)n + type);
  *keep = ww_encode(type, x, n, &bytes);
  free(x);
  ww_gguf_tensor(g, name, type, n_dims, ne, *keep, bytes);
}

static void gguf_seeds(void) {
  static const uint32_t types[] = {WW_GGML_F32,  WW_GGML_F16,  WW_GGML_BF16,
                                   WW_GGML_I32,  WW_GGML_Q8_0, WW_GGML_Q4_0,
                                   WW_GGML_Q4_K, WW_GGML_Q6_K};
  static const char *const tokens[] = {"<s>", "</s>", "a", "\xc3\xa9"};
  for (int v = 2; v <= 3; ++v) {
    ww_gguf_t g;
    ww_buf_t b = {0};
    void *keep[8];
    ww_gguf_init(&g, (uint32_t)v, v == 2 ? 64 : 32);
    ww_gguf_kv_str(&g, "general.architecture", "llama");
    ww_gguf_kv_u32(&g, "llama.embedding_length", 256);
    ww_gguf_kv_strs(&g, "tokenizer.ggml.tokens", tokens, 4);
    static const char *const names[8] = {"token_embd.weight",     "blk.0.attn_q.weight",
                                         "blk.0.attn_k.weight",   "blk.0.attn_v.weight",
                                         "blk.0.ffn_gate.weight", "blk.0.ffn_up.weight",
                                         "blk.0.ffn_down.weight", "output.weight"};
    for (int i = 0; i < 8; ++i) {
      const uint64_t ne[2] = {256, 1};
      add(&g, names[i], types[i], 2, ne, &keep[i]);
    }
    ww_gguf_finish(&g, &b, NULL);
    save("gguf", v == 2 ? "v2_dtypes.gguf" : "v3_dtypes.gguf", &b);
    for (int i = 0; i < 8; ++i)
      free(keep[i]);
    ww_gguf_free(&g);
  }
  /* every metadata value type, no tensors */
  ww_gguf_t g;
  ww_buf_t b = {0};
  ww_gguf_init(&g, 3, 32);
  const unsigned char raw[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  static const unsigned sizes[] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};
  for (uint32_t t = 0; t <= 12; ++t) {
    char key[32];
    snprintf(key, sizeof key, "seed.type%u", t);
    if (t == WW_STRING)
      ww_gguf_kv_str(&g, key, "value");
    else if (t == WW_ARRAY)
      ww_gguf_kv_i32s(&g, key, (const int32_t *)(const void *)"\1\0\0\0\2\0\0\0", 2);
    else if (t == WW_BOOL)
      ww_gguf_kv_bool(&g, key, 1);
    else
      ww_gguf_kv_raw(&g, key, t, raw, sizes[t]);
  }
  ww_gguf_finish(&g, &b, NULL);
  save("gguf", "v3_metadata.gguf", &b);
  ww_gguf_free(&g);
  /* one tensor of each rank */
  ww_gguf_init(&g, 3, 32);
  void *keep[4];
  const uint64_t ne[4] = {32, 2, 2, 2};
  static const char *const ranks[4] = {"rank1", "rank2", "rank3", "rank4"};
  for (uint32_t d = 1; d <= 4; ++d)
    add(&g, ranks[d - 1], d % 2 ? WW_GGML_Q8_0 : WW_GGML_F16, d, ne, &keep[d - 1]);
  ww_gguf_finish(&g, &b, NULL);
  save("gguf", "v3_ranks.gguf", &b);
  for (int i = 0; i < 4; ++i)
    free(keep[i]);
  ww_gguf_free(&g);
}

static void st_seeds(void) {
  float x[48];
  ww_fill(x, 48, 7);
  ww_st_tensor_t t[] = {
      {"model.embed_tokens.weight", "F16", 2, {4, 6}, x, 48},
      {"model.layers.0.self_attn.q_proj.weight", "BF16", 2, {2, 6}, x, 24},
      {"model.norm.weight", "F32", 1, {6}, x, 24},
      {"ids", "I32", 1, {3}, x, 12},
      {"scalar", "F32", 0, {0}, x, 4},
      {"deep", "F16", 8, {1, 1, 1, 1, 1, 1, 2, 2}, x, 8},
  };
  static const char *const meta[] = {"format", "pt", "note", "a \"quoted\" value"};
  ww_buf_t b = {0};
  ww_safetensors(&b, t, 6, meta, 2);
  save("safetensors", "dtypes.safetensors", &b);
  ww_safetensors(&b, t, 1, NULL, 0);
  save("safetensors", "one.safetensors", &b);
  ww_safetensors_raw(
      &b,
      "{\"\\u00e9\\ud83d\\ude00\\/\":{\"dtype\":\"F32\",\"shape\":[1],"
      "\"data_offsets\":[0,4]},\"__metadata__\":{\"k\":\"\\\"\\\\\\/\\n\\t\"}} ",
      x, 4);
  save("safetensors", "escapes.safetensors", &b);
  ww_safetensors_raw(&b, "{}", NULL, 0);
  save("safetensors", "empty.safetensors", &b);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: make_seeds DIR\n");
    return 2;
  }
  g_dir = argv[1];
  gguf_seeds();
  st_seeds();
  return g_failed;
}
