/* test_weights.c - weight files (runtime/kgrt_weights.h) written by
 * weights_writer.c and read back: GGUF v2 and v3 at two alignments and
 * safetensors with every dtype, byte-exact data, shapes both ways, metadata,
 * the name map, vocabulary inference, an index of shards, allocation
 * failures, and kgrt_model_bind_weights on the sim device with the weights
 * read back through a copy kernel.
 *
 * Usage: test_weights WORK_DIR SIM_SO (SIM_SO: weights_kernel.hip as a sim
 * image; without it the binding tests are skipped). Files go to WORK_DIR. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kgrt.h"
#include "kgrt_hash.h"
#include "kgrt_weights.h"
#include "test.h"
#include "weights_writer.h"

static const char *g_dir;
static const unsigned char *g_sim;
static size_t g_sim_size;
static const unsigned char *g_hsaco; /* the same kernel for gfx1100 */
static size_t g_hsaco_size;

static const char *path_in(const char *name) {
  static char buf[4][1024];
  static int slot;
  slot = (slot + 1) % 4;
  snprintf(buf[slot], sizeof buf[slot], "%s/%s", g_dir, name);
  return buf[slot];
}

/* ---- a counting allocator that can be told to fail ------------------------ */

typedef struct counting {
  long live, calls, fail_at;
} counting_t;

static void *counting_alloc(void *user, size_t size) {
  counting_t *c = user;
  if (++c->calls == c->fail_at)
    return NULL;
  void *p = malloc(size);
  if (p != NULL)
    c->live++;
  return p;
}

static void counting_free(void *user, void *ptr) {
  counting_t *c = user;
  c->live--;
  free(ptr);
}

/* ---- the GGUF test file --------------------------------------------------- */

typedef struct tensor_case {
  const char *name;
  uint32_t type;
  uint32_t n_dims;
  uint64_t ne[4]; /* GGUF order */
  kgrt_dtype_t dtype;
} tensor_case_t;

static const tensor_case_t gguf_cases[] = {
    {"token_embd.weight", WW_GGML_Q8_0, 2, {64, 16}, KGRT_DTYPE_Q8_0},
    {"blk.0.attn_q.weight", WW_GGML_F16, 2, {64, 8}, KGRT_DTYPE_F16},
    {"blk.0.attn_k.weight", WW_GGML_BF16, 2, {64, 4}, KGRT_DTYPE_BF16},
    {"blk.0.ffn_gate.weight", WW_GGML_Q4_0, 2, {64, 2}, KGRT_DTYPE_Q4_0},
    {"blk.0.ffn_down.weight", WW_GGML_Q4_K, 2, {256, 2}, KGRT_DTYPE_Q4_K},
    {"blk.0.ffn_up.weight", WW_GGML_Q6_K, 2, {256, 2}, KGRT_DTYPE_Q6_K},
    {"output_norm.weight", WW_GGML_F32, 1, {64}, KGRT_DTYPE_F32},
    {"rope.table", WW_GGML_I32, 4, {3, 2, 2, 2}, KGRT_DTYPE_I32},
};
enum { NUM_GGUF_CASES = sizeof gguf_cases / sizeof gguf_cases[0] };

static const char *const tokens[] = {"<s>", "</s>", "hello", "w\xc3\xb6rld", ""};

typedef struct gguf_file {
  ww_buf_t bytes;
  ww_gguf_layout_t layout;
  void *data[NUM_GGUF_CASES];
  size_t size[NUM_GGUF_CASES];
} gguf_file_t;

static uint64_t numel_of(const tensor_case_t *c) {
  uint64_t n = 1;
  for (uint32_t d = 0; d < c->n_dims; ++d)
    n *= c->ne[d];
  return n;
}

/* Every case's data, encoded from deterministic floats. */
static void make_gguf(gguf_file_t *f, uint32_t version, uint32_t alignment,
                      int with_vocab_key) {
  memset(f, 0, sizeof *f);
  ww_gguf_t g;
  ww_gguf_init(&g, version, alignment);
  ww_gguf_kv_str(&g, "general.architecture", "llama");
  ww_gguf_kv_u32(&g, "llama.embedding_length", 64);
  ww_gguf_kv_f32(&g, "llama.rope.freq_base", 10000.5f);
  ww_gguf_kv_u64(&g, "general.file_size_hint", 1ull << 40);
  ww_gguf_kv_bool(&g, "general.quantized", 1);
  ww_gguf_kv_i32(&g, "general.offset", -7);
  ww_gguf_kv_strs(&g, "tokenizer.ggml.tokens", tokens, 5);
  const int32_t ids[] = {3, -1, 40000};
  ww_gguf_kv_i32s(&g, "tokenizer.ggml.token_type", ids, 3);
  if (with_vocab_key)
    ww_gguf_kv_u32(&g, "llama.vocab_size", 32000);
  for (int i = 0; i < NUM_GGUF_CASES; ++i) {
    const tensor_case_t *c = &gguf_cases[i];
    const size_t n = (size_t)numel_of(c);
    float *x = malloc(n * sizeof *x);
    ww_fill(x, n, (uint32_t)i + 1);
    f->data[i] = ww_encode(c->type, x, n, &f->size[i]);
    free(x);
    ww_gguf_tensor(&g, c->name, c->type, c->n_dims, c->ne, f->data[i], f->size[i]);
  }
  CHECK_EQ(ww_gguf_finish(&g, &f->bytes, &f->layout), 0);
  ww_gguf_free(&g);
}

static void free_gguf(gguf_file_t *f) {
  for (int i = 0; i < NUM_GGUF_CASES; ++i)
    free(f->data[i]);
  ww_free(&f->bytes);
}

static void check_gguf_tensors(const kgrt_weights_t *w, const gguf_file_t *f,
                               uint32_t alignment) {
  CHECK_EQ(kgrt_weights_count(w), NUM_GGUF_CASES);
  for (int i = 0; i < NUM_GGUF_CASES; ++i) {
    const tensor_case_t *c = &gguf_cases[i];
    const kgrt_weight_info_t *t = kgrt_weights_find(w, c->name);
    CHECK(t != NULL);
    if (t == NULL)
      continue;
    CHECK(t == kgrt_weights_at(w, (uint32_t)i)); /* file order */
    CHECK_STR(t->name, c->name);
    CHECK_EQ(t->dtype, c->dtype);
    CHECK_EQ(t->ndim, c->n_dims);
    for (uint32_t d = 0; d < c->n_dims; ++d) {
      CHECK_EQ(t->file_dims[d], c->ne[d]);
      CHECK_EQ(t->shape[c->n_dims - 1 - d], c->ne[d]); /* row-major */
    }
    CHECK_EQ(t->numel, numel_of(c));
    CHECK_EQ(t->bytes, f->size[i]);
    CHECK(memcmp(t->data, f->data[i], f->size[i]) == 0);
    CHECK_EQ(t->offset, f->layout.data_start + f->layout.tensor_offset[i]);
    CHECK_EQ(t->offset % alignment, 0);
    CHECK_EQ(t->file, 0);
  }
  CHECK(kgrt_weights_find(w, "nope.weight") == NULL);
  CHECK(kgrt_weights_at(w, NUM_GGUF_CASES) == NULL);
}

static void check_gguf_meta(const kgrt_weights_t *w) {
  kgrt_error_t err;
  const char *s;
  size_t len;
  int64_t i;
  double f;
  CHECK_EQ(kgrt_weights_meta_string(w, "general.architecture", &s, &len, &err),
           KGRT_STATUS_OK);
  CHECK(len == 5 && memcmp(s, "llama", 5) == 0);
  CHECK_EQ(kgrt_weights_meta_int(w, "llama.embedding_length", &i, &err), KGRT_STATUS_OK);
  CHECK_EQ(i, 64);
  CHECK_EQ(kgrt_weights_meta_int(w, "general.offset", &i, &err), KGRT_STATUS_OK);
  CHECK_EQ(i, -7);
  CHECK_EQ(kgrt_weights_meta_int(w, "general.quantized", &i, &err), KGRT_STATUS_OK);
  CHECK_EQ(i, 1);
  CHECK_EQ(kgrt_weights_meta_int(w, "general.file_size_hint", &i, &err), KGRT_STATUS_OK);
  CHECK_EQ(i, 1ll << 40);
  CHECK_EQ(kgrt_weights_meta_float(w, "llama.rope.freq_base", &f, &err), KGRT_STATUS_OK);
  CHECK(f == 10000.5);
  CHECK_EQ(kgrt_weights_meta_float(w, "llama.embedding_length", &f, &err),
           KGRT_STATUS_OK);
  CHECK(f == 64.0);
  /* wrong kind and missing */
  CHECK_EQ(kgrt_weights_meta_int(w, "general.architecture", &i, &err),
           KGRT_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "general.architecture") != NULL);
  CHECK_EQ(kgrt_weights_meta_string(w, "llama.embedding_length", &s, &len, &err),
           KGRT_STATUS_INVALID_ARGUMENT);
  CHECK_EQ(kgrt_weights_meta_int(w, "llama.block_count", &i, &err),
           KGRT_STATUS_NOT_FOUND);
  CHECK(strstr(err.message, "llama.block_count") != NULL);
  /* arrays */
  kgrt_meta_array_t a;
  CHECK_EQ(kgrt_weights_meta_array(w, "tokenizer.ggml.tokens", &a, &err), KGRT_STATUS_OK);
  CHECK_EQ(a.type, KGRT_META_STRING);
  CHECK_EQ(a.count, 5);
  int n = 0;
  while (kgrt_meta_array_next_string(&a, &s, &len)) {
    CHECK(n < 5 && len == strlen(tokens[n]) && memcmp(s, tokens[n], len) == 0);
    n++;
  }
  CHECK_EQ(n, 5);
  CHECK_EQ(kgrt_weights_meta_array(w, "tokenizer.ggml.token_type", &a, &err),
           KGRT_STATUS_OK);
  CHECK_EQ(a.type, KGRT_META_I32);
  CHECK(kgrt_meta_array_int(&a, 0, &i) == 0 && i == 3);
  CHECK(kgrt_meta_array_int(&a, 1, &i) == 0 && i == -1);
  CHECK(kgrt_meta_array_float(&a, 2, &f) == 0 && f == 40000.0);
  CHECK(kgrt_meta_array_int(&a, 3, &i) == -1);
  CHECK(!kgrt_meta_array_next_string(&a, &s, &len));
  /* keys in file order */
  kgrt_meta_type_t type;
  CHECK(kgrt_weights_meta_count(w) >= 8);
  int found_tokens = 0;
  for (uint64_t k = 0; k < kgrt_weights_meta_count(w); ++k) {
    const char *key = kgrt_weights_meta_key(w, k, &type);
    if (strcmp(key, "tokenizer.ggml.tokens") == 0)
      found_tokens = type == KGRT_META_ARRAY;
  }
  CHECK(found_tokens);
  CHECK(kgrt_weights_meta_key(w, kgrt_weights_meta_count(w), &type) == NULL);
}

static void test_gguf_round_trip(uint32_t version, uint32_t alignment) {
  gguf_file_t f;
  make_gguf(&f, version, alignment, 1);
  kgrt_error_t err;
  kgrt_weights_t *w = NULL;
  /* from memory */
  CHECK_EQ(kgrt_weights_open_memory(f.bytes.p, f.bytes.len, KGRT_WEIGHTS_FORMAT_AUTO,
                                    "mem.gguf", NULL, &w, &err),
           KGRT_STATUS_OK);
  if (w != NULL) {
    CHECK_EQ(kgrt_weights_format(w), KGRT_WEIGHTS_FORMAT_GGUF);
    CHECK_EQ(kgrt_weights_version(w), version);
    check_gguf_tensors(w, &f, alignment);
    check_gguf_meta(w);
    for (int i = 0; i < NUM_GGUF_CASES; ++i) {
      const kgrt_weight_info_t *t = kgrt_weights_at(w, (uint32_t)i);
      CHECK(t != NULL && (const unsigned char *)t->data - f.bytes.p == (long)t->offset);
    }
    kgrt_weights_close(w);
  }
  /* from a file, with a counting allocator: everything freed */
  const char *path = path_in(version == 2 ? "v2.gguf" : "v3.gguf");
  CHECK_EQ(ww_write_file(path, f.bytes.p, f.bytes.len), 0);
  counting_t c = {0, 0, 0};
  kgrt_allocator_t alloc = {counting_alloc, counting_free, &c};
  w = NULL;
  CHECK_EQ(kgrt_weights_open(path, &alloc, &w, &err), KGRT_STATUS_OK);
  if (w != NULL) {
    check_gguf_tensors(w, &f, alignment);
    check_gguf_meta(w);
    kgrt_weights_close(w);
  }
  CHECK_EQ(c.live, 0);
  /* every allocation failing in turn: OUT_OF_MEMORY, nothing left */
  const long calls = c.calls;
  CHECK(calls > 3);
  for (long k = 1; k <= calls; ++k) {
    counting_t d = {0, 0, k};
    kgrt_allocator_t a = {counting_alloc, counting_free, &d};
    w = NULL;
    kgrt_status_t st = kgrt_weights_open(path, &a, &w, &err);
    CHECK_EQ(st, KGRT_STATUS_OUT_OF_MEMORY);
    CHECK(w == NULL);
    kgrt_weights_close(w);
    CHECK_EQ(d.live, 0);
  }
  free_gguf(&f);
}

/* ---- names and vocabulary ------------------------------------------------- */

static void test_name_map(void) {
  static const char *const pairs[][2] = {
      {"token_embd.weight", "model.embed_tokens.weight"},
      {"output_norm.weight", "model.norm.weight"},
      {"output.weight", "lm_head.weight"},
      {"blk.0.attn_norm.weight", "model.layers.0.input_layernorm.weight"},
      {"blk.12.ffn_norm.weight", "model.layers.12.post_attention_layernorm.weight"},
      {"blk.3.attn_q.weight", "model.layers.3.self_attn.q_proj.weight"},
      {"blk.3.attn_k.weight", "model.layers.3.self_attn.k_proj.weight"},
      {"blk.3.attn_v.weight", "model.layers.3.self_attn.v_proj.weight"},
      {"blk.31.attn_output.weight", "model.layers.31.self_attn.o_proj.weight"},
      {"blk.7.ffn_gate.weight", "model.layers.7.mlp.gate_proj.weight"},
      {"blk.7.ffn_up.weight", "model.layers.7.mlp.up_proj.weight"},
      {"blk.7.ffn_down.weight", "model.layers.7.mlp.down_proj.weight"},
      {"blk.0.attn_q.bias", "model.layers.0.self_attn.q_proj.bias"},
  };
  char out[128];
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; ++i) {
    CHECK_EQ(kgrt_weights_map_name(pairs[i][0], out, sizeof out), 1);
    CHECK_STR(out, pairs[i][1]);
    CHECK_EQ(kgrt_weights_map_name(pairs[i][1], out, sizeof out), 1);
    CHECK_STR(out, pairs[i][0]);
  }
  static const char *const none[] = {"blk.0.attn_q",
                                     "blk.01.attn_q.weight",
                                     "blk.x.attn_q.weight",
                                     "blk.0.foo.weight",
                                     "model.layers.0.mlp.weight",
                                     "token_embd.scale",
                                     "blk.1234567.attn_q.weight",
                                     "",
                                     "model.layers..self_attn.q_proj.weight"};
  for (size_t i = 0; i < sizeof none / sizeof none[0]; ++i) {
    CHECK_EQ(kgrt_weights_map_name(none[i], out, sizeof out), 0);
    CHECK_STR(out, "");
  }
  CHECK_EQ(kgrt_weights_map_name("blk.3.attn_q.weight", out, 10), -1);
  CHECK_EQ(kgrt_weights_map_name("blk.3.attn_q.weight", NULL, 0), -1);
}

static void test_lookup_and_vocab(void) {
  gguf_file_t f;
  kgrt_error_t err;
  kgrt_weights_t *w = NULL;
  int64_t vocab = 0;
  make_gguf(&f, 3, 32, 1);
  CHECK_EQ(kgrt_weights_open_memory(f.bytes.p, f.bytes.len, KGRT_WEIGHTS_FORMAT_GGUF,
                                    NULL, NULL, &w, &err),
           KGRT_STATUS_OK);
  /* the HF name finds the GGUF tensor, and aliases are filled */
  const kgrt_weight_info_t *t = kgrt_weights_find(w, "model.embed_tokens.weight");
  CHECK(t != NULL && strcmp(t->name, "token_embd.weight") == 0);
  CHECK(t != NULL && t->alias != NULL &&
        strcmp(t->alias, "model.embed_tokens.weight") == 0);
  t = kgrt_weights_find(w, "model.layers.0.self_attn.q_proj.weight");
  CHECK(t != NULL && strcmp(t->name, "blk.0.attn_q.weight") == 0);
  t = kgrt_weights_find(w, "rope.table");
  CHECK(t != NULL && t->alias == NULL);
  CHECK(kgrt_weights_find(w, "model.layers.1.self_attn.q_proj.weight") == NULL);
  CHECK_EQ(kgrt_weights_vocab_size(w, &vocab, &err), KGRT_STATUS_OK);
  CHECK_EQ(vocab, 32000); /* the key wins */
  kgrt_weights_close(w);
  free_gguf(&f);

  make_gguf(&f, 3, 32, 0);
  CHECK_EQ(kgrt_weights_open_memory(f.bytes.p, f.bytes.len, KGRT_WEIGHTS_FORMAT_AUTO,
                                    NULL, NULL, &w, &err),
           KGRT_STATUS_OK);
  CHECK_EQ(kgrt_weights_vocab_size(w, &vocab, &err), KGRT_STATUS_OK);
  CHECK_EQ(vocab, (int64_t)gguf_cases[0].ne[1]); /* token_embd rows: ne[1] */
  kgrt_weights_close(w);
  free_gguf(&f);

  /* output.weight alone; then only the tokens; then nothing */
  ww_gguf_t g;
  ww_buf_t b = {0};
  float x[64 * 5];
  ww_fill(x, 64 * 5, 9);
  const uint64_t ne[2] = {64, 5};
  ww_gguf_init(&g, 3, 32);
  ww_gguf_tensor(&g, "output.weight", WW_GGML_F32, 2, ne, x, sizeof x);
  CHECK_EQ(ww_gguf_finish(&g, &b, NULL), 0);
  CHECK_EQ(kgrt_weights_open_memory(b.p, b.len, 0, NULL, NULL, &w, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_weights_vocab_size(w, &vocab, &err), KGRT_STATUS_OK);
  CHECK_EQ(vocab, 5);
  CHECK(kgrt_weights_find(w, "lm_head.weight") != NULL);
  kgrt_weights_close(w);
  ww_gguf_free(&g);
  ww_free(&b);

  ww_gguf_init(&g, 2, 32);
  ww_gguf_kv_strs(&g, "tokenizer.ggml.tokens", tokens, 5);
  CHECK_EQ(ww_gguf_finish(&g, &b, NULL), 0);
  CHECK_EQ(kgrt_weights_open_memory(b.p, b.len, 0, NULL, NULL, &w, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_weights_vocab_size(w, &vocab, &err), KGRT_STATUS_OK);
  CHECK_EQ(vocab, 5);
  CHECK_EQ(kgrt_weights_count(w), 0);
  kgrt_weights_close(w);
  ww_gguf_free(&g);
  ww_free(&b);

  ww_gguf_init(&g, 3, 32);
  CHECK_EQ(ww_gguf_finish(&g, &b, NULL), 0);
  CHECK_EQ(kgrt_weights_open_memory(b.p, b.len, 0, NULL, NULL, &w, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_weights_vocab_size(w, &vocab, &err), KGRT_STATUS_NOT_FOUND);
  CHECK(strstr(err.message, "vocab") != NULL);
  kgrt_weights_close(w);
  ww_gguf_free(&g);
  ww_free(&b);
}

/* ---- safetensors ---------------------------------------------------------- */

typedef struct st_case {
  const char *name, *dtype;
  uint32_t ggml; /* how the writer encodes it */
  uint32_t ndim;
  int64_t shape[8];
  kgrt_dtype_t kg;
} st_case_t;

static const st_case_t st_cases[] = {
    {"model.embed_tokens.weight", "F16", WW_GGML_F16, 2, {10, 6}, KGRT_DTYPE_F16},
    {"model.layers.0.self_attn.q_proj.weight",
     "BF16",
     WW_GGML_BF16,
     2,
     {6, 6},
     KGRT_DTYPE_BF16},
    {"model.norm.weight", "F32", WW_GGML_F32, 1, {6}, KGRT_DTYPE_F32},
    {"position_ids", "I32", WW_GGML_I32, 3, {1, 1, 3}, KGRT_DTYPE_I32},
    {"scalar", "F32", WW_GGML_F32, 0, {0}, KGRT_DTYPE_F32},
    {"deep", "F16", WW_GGML_F16, 8, {1, 2, 1, 2, 1, 2, 1, 3}, KGRT_DTYPE_F16},
    {"w\xc3\xa9ight \"q\"", "F16", WW_GGML_F16, 1, {5}, KGRT_DTYPE_F16},
};
enum { NUM_ST_CASES = sizeof st_cases / sizeof st_cases[0] };

typedef struct st_file {
  ww_st_tensor_t t[NUM_ST_CASES];
  void *data[NUM_ST_CASES];
} st_file_t;

static void make_st(st_file_t *f, int first, int n, ww_buf_t *out) {
  static const char *const meta[] = {"format", "pt", "note", "caf\xc3\xa9 \"1\"\n"};
  for (int i = 0; i < n; ++i) {
    const st_case_t *c = &st_cases[first + i];
    size_t numel = 1;
    for (uint32_t d = 0; d < c->ndim; ++d)
      numel *= (size_t)c->shape[d];
    float *x = malloc(numel * sizeof *x);
    ww_fill(x, numel, 100 + (uint32_t)(first + i));
    ww_st_tensor_t *t = &f->t[i];
    memset(t, 0, sizeof *t);
    t->name = c->name;
    t->dtype = c->dtype;
    t->ndim = c->ndim;
    memcpy(t->shape, c->shape, sizeof t->shape);
    f->data[i] = ww_encode(c->ggml, x, numel, &t->bytes);
    t->data = f->data[i];
    free(x);
  }
  CHECK_EQ(ww_safetensors(out, f->t, n, meta, 2), 0);
}

static void check_st(const kgrt_weights_t *w, const st_file_t *f, int first, int n,
                     uint32_t file) {
  for (int i = 0; i < n; ++i) {
    const st_case_t *c = &st_cases[first + i];
    const kgrt_weight_info_t *t = kgrt_weights_find(w, c->name);
    CHECK(t != NULL);
    if (t == NULL)
      continue;
    CHECK_EQ(t->dtype, c->kg);
    CHECK_EQ(t->ndim, c->ndim);
    for (uint32_t d = 0; d < c->ndim; ++d)
      CHECK(t->shape[d] == c->shape[d] && t->file_dims[d] == c->shape[d]);
    CHECK_EQ(t->bytes, f->t[i].bytes);
    CHECK(memcmp(t->data, f->data[i], t->bytes) == 0);
    CHECK_EQ(t->file, file);
  }
}

static void free_st(st_file_t *f, int n) {
  for (int i = 0; i < n; ++i)
    free(f->data[i]);
}

static void test_safetensors(void) {
  st_file_t f;
  ww_buf_t b = {0};
  kgrt_error_t err;
  kgrt_weights_t *w = NULL;
  make_st(&f, 0, NUM_ST_CASES, &b);
  const char *path = path_in("one.safetensors");
  CHECK_EQ(ww_write_file(path, b.p, b.len), 0);
  CHECK_EQ(kgrt_weights_open(path, NULL, &w, &err), KGRT_STATUS_OK);
  if (w != NULL) {
    CHECK_EQ(kgrt_weights_format(w), KGRT_WEIGHTS_FORMAT_SAFETENSORS);
    CHECK_EQ(kgrt_weights_version(w), 0);
    CHECK_EQ(kgrt_weights_count(w), NUM_ST_CASES);
    check_st(w, &f, 0, NUM_ST_CASES, 0);
    const char *s;
    size_t len;
    CHECK_EQ(kgrt_weights_meta_string(w, "note", &s, &len, &err), KGRT_STATUS_OK);
    CHECK(len == strlen("caf\xc3\xa9 \"1\"\n") &&
          memcmp(s, "caf\xc3\xa9 \"1\"\n", len) == 0);
    CHECK_EQ(kgrt_weights_meta_string(w, "format", &s, &len, &err), KGRT_STATUS_OK);
    CHECK(len == 2 && memcmp(s, "pt", 2) == 0);
    /* the GGUF name finds the HF tensor */
    const kgrt_weight_info_t *t = kgrt_weights_find(w, "blk.0.attn_q.weight");
    CHECK(t != NULL && strcmp(t->name, st_cases[1].name) == 0);
    int64_t vocab;
    CHECK_EQ(kgrt_weights_vocab_size(w, &vocab, &err), KGRT_STATUS_OK);
    CHECK_EQ(vocab, 10);
    kgrt_weights_close(w);
  }
  /* allocation failures */
  counting_t c = {0, 0, 0};
  kgrt_allocator_t alloc = {counting_alloc, counting_free, &c};
  CHECK_EQ(kgrt_weights_open(path, &alloc, &w, &err), KGRT_STATUS_OK);
  kgrt_weights_close(w);
  CHECK_EQ(c.live, 0);
  for (long k = 1; k <= c.calls; ++k) {
    counting_t d = {0, 0, k};
    kgrt_allocator_t a = {counting_alloc, counting_free, &d};
    CHECK_EQ(kgrt_weights_open(path, &a, &w, &err), KGRT_STATUS_OUT_OF_MEMORY);
    CHECK_EQ(d.live, 0);
  }
  ww_free(&b);
  free_st(&f, NUM_ST_CASES);
}

/* Two shards and an index; then an index that disagrees with its shards. */
static void test_index(void) {
  st_file_t f0, f1;
  ww_buf_t b0 = {0}, b1 = {0}, idx = {0};
  kgrt_error_t err;
  kgrt_weights_t *w = NULL;
  make_st(&f0, 0, 3, &b0);
  make_st(&f1, 3, NUM_ST_CASES - 3, &b1);
  CHECK_EQ(ww_write_file(path_in("model-00001-of-00002.safetensors"), b0.p, b0.len), 0);
  CHECK_EQ(ww_write_file(path_in("model-00002-of-00002.safetensors"), b1.p, b1.len), 0);
  const char *names[NUM_ST_CASES], *shards[NUM_ST_CASES];
  for (int i = 0; i < NUM_ST_CASES; ++i) {
    names[i] = st_cases[i].name;
    shards[i] =
        i < 3 ? "model-00001-of-00002.safetensors" : "model-00002-of-00002.safetensors";
  }
  CHECK_EQ(ww_index(&idx, names, shards, NUM_ST_CASES), 0);
  CHECK_EQ(ww_write_file(path_in("model.safetensors.index.json"), idx.p, idx.len), 0);
  CHECK_EQ(kgrt_weights_open(path_in("model.safetensors.index.json"), NULL, &w, &err),
           KGRT_STATUS_OK);
  if (w != NULL) {
    CHECK_EQ(kgrt_weights_count(w), NUM_ST_CASES);
    check_st(w, &f0, 0, 3, 0);
    check_st(w, &f1, 3, NUM_ST_CASES - 3, 1);
    kgrt_weights_close(w);
  } else {
    fprintf(stderr, "index: %s\n", err.message);
  }
  /* a name the shard does not have, a tensor the map puts elsewhere, a path */
  struct {
    const char *name, *shard;
    const char *want;
    kgrt_status_t status;
  } bad[] = {
      {"extra.weight", "model-00001-of-00002.safetensors", "weight_map names 8", 0},
      {NULL, "model-00001-of-00002.safetensors", "another", 0},
      {"x", "../model-00001-of-00002.safetensors", "not a file name", 0},
      {"x", "missing.safetensors", "cannot open", KGRT_STATUS_NOT_FOUND},
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
    const char *n2[NUM_ST_CASES + 1], *s2[NUM_ST_CASES + 1];
    int n = 0;
    for (int i = 0; i < NUM_ST_CASES; ++i, ++n) {
      n2[n] = names[i];
      s2[n] = shards[i];
    }
    if (bad[k].name != NULL) {
      n2[n] = bad[k].name;
      s2[n++] = bad[k].shard;
    } else {
      s2[4] = bad[k].shard; /* tensor 4 lives in shard 2 */
    }
    ww_buf_t j = {0};
    CHECK_EQ(ww_index(&j, n2, s2, n), 0);
    CHECK_EQ(ww_write_file(path_in("bad.index.json"), j.p, j.len), 0);
    w = NULL;
    kgrt_status_t st = kgrt_weights_open(path_in("bad.index.json"), NULL, &w, &err);
    CHECK_EQ(st, bad[k].status ? bad[k].status : KGRT_STATUS_INVALID_ARGUMENT);
    CHECK(w == NULL);
    if (strstr(err.message, bad[k].want) == NULL)
      fprintf(stderr, "index case %zu: %s\n", k, err.message);
    CHECK(strstr(err.message, bad[k].want) != NULL);
    CHECK(strstr(err.message, "bad.index.json") != NULL);
    ww_free(&j);
  }
  ww_free(&b0);
  ww_free(&b1);
  ww_free(&idx);
  free_st(&f0, 3);
  free_st(&f1, NUM_ST_CASES - 3);
}

/* ---- binding on the sim device -------------------------------------------- */

/* A model whose weights are the GGUF cases (minus rope.table) under
 * C-identifier names, each copied by one step into an output of its bytes. */
enum { NUM_BIND = 7 };
static const char *const bind_names[NUM_BIND] = {
    "model_embed_tokens_weight", /* token_embd.weight through its alias */
    "blk_0_attn_q_weight",       "blk_0_attn_k_weight", "blk_0_ffn_gate_weight",
    "blk_0_ffn_down_weight",     "blk_0_ffn_up_weight", "output_norm_weight"};

typedef struct bind_model {
  kgrt_tensor_info_t weights[NUM_BIND], outputs[NUM_BIND];
  char out_names[NUM_BIND][16];
  kgrt_kernel_arg_t args[3];
  kgrt_kernel_t kernel;
  kgrt_step_arg_t step_args[NUM_BIND][3];
  kgrt_step_t steps[NUM_BIND];
  kgrt_arch_table_t arch;
  const kgrt_arch_table_t *arches[1];
  kgrt_model_table_t table;
} bind_model_t;

static kgrt_expr_t constant(int64_t v) {
  kgrt_expr_t e = {v, {-1, -1, -1, -1}};
  return e;
}

static void bind_model_init(bind_model_t *m, const gguf_file_t *f) {
  memset(m, 0, sizeof *m);
  m->args[0] = (kgrt_kernel_arg_t){KGRT_ARG_BUFFER, 0, 8, NULL};
  m->args[1] = (kgrt_kernel_arg_t){KGRT_ARG_BUFFER, 8, 8, NULL};
  m->args[2] = (kgrt_kernel_arg_t){KGRT_ARG_I64, 16, 8, NULL};
  m->kernel = (kgrt_kernel_t){"k_copy_bytes", 64, 24, 3, m->args, 32, 0, 0, 0, 0, 0, 0};
  for (int i = 0; i < NUM_BIND; ++i) {
    const tensor_case_t *c = &gguf_cases[i];
    kgrt_tensor_info_t *t = &m->weights[i];
    t->name = bind_names[i];
    t->dtype = c->dtype;
    t->rank = c->n_dims;
    for (uint32_t d = 0; d < c->n_dims; ++d)
      t->dims[c->n_dims - 1 - d] = (kgrt_dim_t){(int64_t)c->ne[d], -1};
    snprintf(m->out_names[i], sizeof m->out_names[i], "out%d", i);
    m->outputs[i].name = m->out_names[i];
    m->outputs[i].dtype = KGRT_DTYPE_F32;
    m->outputs[i].rank = 1;
    m->outputs[i].dims[0] = (kgrt_dim_t){(int64_t)f->size[i] / 4, -1};
    const int64_t bytes = (int64_t)f->size[i];
    m->step_args[i][0] =
        (kgrt_step_arg_t){KGRT_SPACE_WEIGHT, (uint32_t)i, 0,   constant(bytes),
                          constant(0),       constant(0), NULL};
    m->step_args[i][1] =
        (kgrt_step_arg_t){KGRT_SPACE_OUTPUT, (uint32_t)i, 0,   constant(bytes),
                          constant(0),       constant(0), NULL};
    m->step_args[i][2] = (kgrt_step_arg_t){
        KGRT_SPACE_ARENA, 0, 0, constant(0), constant(bytes), constant(0), NULL};
    m->steps[i] = (kgrt_step_t){.kernel = 0,
                                .units = constant(bytes),
                                .per_block = 64,
                                .repeat = 1,
                                .args = m->step_args[i]};
  }
  m->arch = (kgrt_arch_table_t){.arch = "gfx1100",
                                .triple = "amdgcn-amd-amdhsa",
                                .wave_size = 32,
                                .image = g_hsaco,
                                .image_size = g_hsaco_size,
                                .image_hash = kgrt_hash64(g_hsaco, g_hsaco_size),
                                .sim_image = g_sim,
                                .sim_image_size = g_sim_size,
                                .sim_image_hash = kgrt_hash64(g_sim, g_sim_size),
                                .num_kernels = 1,
                                .kernels = &m->kernel,
                                .num_steps = NUM_BIND,
                                .steps = m->steps,
                                .arena_bytes = 256,
                                .arena_align = 256};
  m->arches[0] = &m->arch;
  m->table = (kgrt_model_table_t){.abi = KGRT_TABLE_ABI,
                                  .name = "bindtest",
                                  .kgen_version = "test",
                                  .num_weights = NUM_BIND,
                                  .weights = m->weights,
                                  .num_outputs = NUM_BIND,
                                  .outputs = m->outputs,
                                  .num_arches = 1,
                                  .arches = m->arches};
}

/* Loads the model, binds `w` with `flags`; returns the bind status. On
 * success runs and checks every output against the file's bytes. */
static kgrt_status_t bind_and_check(const kgrt_model_table_t *table,
                                    const kgrt_weights_t *w, uint32_t flags,
                                    const gguf_file_t *f, kgrt_error_t *err) {
  kgrt_device_t *dev = NULL;
  kgrt_model_t *m = NULL;
  kgrt_error_t e;
  CHECK_EQ(kgrt_device_open("sim", NULL, &dev, &e), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_load(dev, table, &m, &e), KGRT_STATUS_OK);
  if (m == NULL) {
    fprintf(stderr, "load: %s\n", e.message);
    kgrt_device_close(dev);
    return KGRT_STATUS_INTERNAL;
  }
  kgrt_status_t st = kgrt_model_bind_weights(m, w, flags, err);
  if (st == KGRT_STATUS_OK) {
    CHECK_EQ(kgrt_model_run(m, &e), KGRT_STATUS_OK);
    for (uint32_t i = 0; i < table->num_outputs; ++i) {
      unsigned char *back = malloc(f->size[i]);
      CHECK_EQ(kgrt_model_get_output(m, table->outputs[i].name, back, f->size[i], &e),
               KGRT_STATUS_OK);
      CHECK(memcmp(back, f->data[i], f->size[i]) == 0);
      free(back);
    }
  }
  kgrt_model_unload(m);
  kgrt_device_close(dev);
  return st;
}

static void test_bind(void) {
  gguf_file_t f;
  make_gguf(&f, 3, 32, 1);
  bind_model_t m;
  bind_model_init(&m, &f);
  kgrt_error_t err;
  kgrt_weights_t *w = NULL;
  CHECK_EQ(
      kgrt_weights_open_memory(f.bytes.p, f.bytes.len, 0, "bind.gguf", NULL, &w, &err),
      KGRT_STATUS_OK);
  /* all bound and read back byte for byte */
  CHECK_EQ(bind_and_check(&m.table, w, 0, &f, &err), KGRT_STATUS_OK);
  /* rope.table is in the file but no weight takes it */
  CHECK_EQ(bind_and_check(&m.table, w, KGRT_BIND_REFUSE_UNUSED, &f, &err),
           KGRT_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "rope.table") != NULL);
  CHECK(strstr(err.message, "bind.gguf") != NULL);
  CHECK_EQ(bind_and_check(&m.table, w, 0x80, &f, &err), KGRT_STATUS_INVALID_ARGUMENT);

  /* a weight missing from the file */
  bind_model_t m2 = m;
  m2.table.weights = m2.weights;
  m2.weights[2].name = "blk_0_attn_z_weight";
  CHECK_EQ(bind_and_check(&m2.table, w, 0, &f, &err), KGRT_STATUS_NOT_FOUND);
  CHECK(strstr(err.message, "blk_0_attn_z_weight") != NULL);
  /* a dtype the file does not have */
  m2 = m;
  m2.table.weights = m2.weights;
  m2.weights[1].dtype = KGRT_DTYPE_BF16;
  CHECK_EQ(bind_and_check(&m2.table, w, 0, &f, &err), KGRT_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "blk.0.attn_q.weight") != NULL);
  CHECK(strstr(err.message, "f16") != NULL && strstr(err.message, "bf16") != NULL);
  /* a shape: [8, 64] in the file, the model says [64, 8] */
  m2 = m;
  m2.table.weights = m2.weights;
  m2.weights[1].dims[0].value = 64;
  m2.weights[1].dims[1].value = 8;
  CHECK_EQ(bind_and_check(&m2.table, w, 0, &f, &err), KGRT_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "[8, 64]") != NULL && strstr(err.message, "[64, 8]") != NULL);
  kgrt_weights_close(w);

  /* two file tensors mangle to one table name */
  ww_gguf_t g;
  ww_buf_t b = {0};
  ww_gguf_init(&g, 3, 32);
  for (int i = 0; i < NUM_BIND; ++i)
    ww_gguf_tensor(&g, gguf_cases[i].name, gguf_cases[i].type, gguf_cases[i].n_dims,
                   gguf_cases[i].ne, f.data[i], f.size[i]);
  ww_gguf_tensor(&g, "blk_0.attn_q.weight", gguf_cases[1].type, gguf_cases[1].n_dims,
                 gguf_cases[1].ne, f.data[1], f.size[1]);
  CHECK_EQ(ww_gguf_finish(&g, &b, NULL), 0);
  CHECK_EQ(kgrt_weights_open_memory(b.p, b.len, 0, NULL, NULL, &w, &err), KGRT_STATUS_OK);
  CHECK_EQ(bind_and_check(&m.table, w, 0, &f, &err), KGRT_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "ambiguous") != NULL);
  kgrt_weights_close(w);
  ww_gguf_free(&g);
  ww_free(&b);

  /* the same model from safetensors with Hugging Face names (plain dtypes):
   * q_proj binds blk_0_attn_q_weight through its alias */
  bind_model_t m3 = m;
  m3.table.weights = m3.weights;
  m3.table.outputs = m3.outputs;
  m3.table.arches = m3.arches;
  m3.arches[0] = &m3.arch;
  m3.arch.steps = m3.steps;
  m3.arch.kernels = &m3.kernel;
  m3.kernel.args = m3.args;
  for (int i = 0; i < NUM_BIND; ++i)
    m3.steps[i].args = m3.step_args[i];
  m3.table.num_weights = m3.table.num_outputs = m3.arch.num_steps = 1;
  m3.weights[0] = m.weights[1]; /* blk_0_attn_q_weight f16 [8, 64] */
  m3.outputs[0].dims[0].value = (int64_t)f.size[1] / 4;
  m3.step_args[0][0].bytes = m3.step_args[0][1].bytes = m3.step_args[0][2].value =
      m3.steps[0].units = constant((int64_t)f.size[1]);
  ww_st_tensor_t st = {
      "model.layers.0.self_attn.q_proj.weight", "F16", 2, {8, 64}, f.data[1], f.size[1]};
  CHECK_EQ(ww_safetensors(&b, &st, 1, NULL, 0), 0);
  CHECK_EQ(kgrt_weights_open_memory(b.p, b.len, 0, NULL, NULL, &w, &err), KGRT_STATUS_OK);
  gguf_file_t f1 = f;
  f1.data[0] = f.data[1];
  f1.size[0] = f.size[1];
  CHECK_EQ(bind_and_check(&m3.table, w, KGRT_BIND_REFUSE_UNUSED, &f1, &err),
           KGRT_STATUS_OK);
  kgrt_weights_close(w);
  ww_free(&b);
  free_gguf(&f);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_weights WORK_DIR [SIM_SO GFX1100_HSACO]\n");
    return 2;
  }
  g_dir = argv[1];
  mkdir(g_dir, 0777);
  unsigned char *sim = NULL;
  unsigned char *hsaco = NULL;
  if (argc > 3) {
    g_sim = sim = test_read_file(argv[2], &g_sim_size);
    g_hsaco = hsaco = test_read_file(argv[3], &g_hsaco_size);
  }
  test_gguf_round_trip(3, 32);
  test_gguf_round_trip(3, 64);
  test_gguf_round_trip(2, 32);
  test_gguf_round_trip(2, 256);
  test_name_map();
  test_lookup_and_vocab();
  test_safetensors();
  test_index();
  if (g_sim != NULL)
    test_bind();
  else
    fprintf(stderr, "test_weights: no sim image, binding tests skipped\n");
  free(sim);
  free(hsaco);
  return TEST_DONE();
}
