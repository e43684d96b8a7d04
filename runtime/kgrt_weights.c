/* kgrt_weights.c - weight files: opening them (format by format), the
 * index of names and keys, lookups by name in either convention, metadata,
 * the vocabulary size.
 *
 * Needs a format parser (kgrt_weights_gguf.c, kgrt_weights_st.c), what they
 * build the object with (kgrt_weights_build.c) and the allocator. Gives
 * kgrt_weights.h except kgrt_model_bind_weights. */
#include "kgrt_weights_internal.h"

#include "kgrt_base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static void kgrt_weights_clear(kgrt_error_t *err) {
  if (err != NULL) {
    err->status = KGRT_STATUS_OK;
    err->message[0] = '\0';
  }
}

/* ---- names ---------------------------------------------------------------- */

typedef struct kgrt_name_pair {
  const char *gguf, *hf;
} kgrt_name_pair_t;

/* Whole names (before ".weight" / ".bias"). */
static const kgrt_name_pair_t kgrt_global_names[] = {
    {"token_embd", "model.embed_tokens"},
    {"output_norm", "model.norm"},
    {"output", "lm_head"},
};

/* Names inside a layer: "blk.N." + gguf <-> "model.layers.N." + hf. */
static const kgrt_name_pair_t kgrt_layer_names[] = {
    {"attn_norm", "input_layernorm"}, {"ffn_norm", "post_attention_layernorm"},
    {"attn_q", "self_attn.q_proj"},   {"attn_k", "self_attn.k_proj"},
    {"attn_v", "self_attn.v_proj"},   {"attn_output", "self_attn.o_proj"},
    {"ffn_gate", "mlp.gate_proj"},    {"ffn_up", "mlp.up_proj"},
    {"ffn_down", "mlp.down_proj"},
};

/* Length of a layer number at s ("0", "17"; no leading zeros, at most 6
 * digits) followed by '.'; 0 when there is none. */
static size_t kgrt_layer_number(const char *s) {
  size_t n = 0;
  while (s[n] >= '0' && s[n] <= '9' && n <= 6)
    n++;
  if (n == 0 || n > 6 || (n > 1 && s[0] == '0') || s[n] != '.')
    return 0;
  return n;
}

/* The suffix ".weight" or ".bias" that ends name[0..len); its length or 0. */
static size_t kgrt_param_suffix(const char *name, size_t len) {
  static const char *const suffixes[] = {".weight", ".bias"};
  for (int i = 0; i < 2; ++i) {
    size_t n = strlen(suffixes[i]);
    if (len > n && memcmp(name + len - n, suffixes[i], n) == 0)
      return n;
  }
  return 0;
}

int kgrt_weights_map_name(const char *name, char *out, size_t size) {
  if (out == NULL || size == 0)
    return -1;
  out[0] = '\0';
  if (name == NULL)
    return 0;
  const size_t len = strlen(name), suffix = kgrt_param_suffix(name, len);
  if (suffix == 0)
    return 0;
  const size_t stem_len = len - suffix;
  const char *prefix_from = "", *prefix_to = "", *stem = name;
  size_t layer_len = 0;
  const kgrt_name_pair_t *pairs = kgrt_global_names;
  size_t num_pairs = sizeof kgrt_global_names / sizeof kgrt_global_names[0];
  if (strncmp(name, "blk.", 4) == 0 && (layer_len = kgrt_layer_number(name + 4)) != 0) {
    prefix_from = "blk.", prefix_to = "model.layers.";
  } else if (strncmp(name, "model.layers.", 13) == 0 &&
             (layer_len = kgrt_layer_number(name + 13)) != 0) {
    prefix_from = "model.layers.", prefix_to = "blk.";
  }
  if (layer_len != 0) {
    stem = name + strlen(prefix_from) + layer_len + 1;
    pairs = kgrt_layer_names;
    num_pairs = sizeof kgrt_layer_names / sizeof kgrt_layer_names[0];
  }
  const size_t n = stem_len - (size_t)(stem - name);
  const int from_gguf = layer_len != 0 ? prefix_from[0] == 'b' : -1;
  for (size_t i = 0; i < num_pairs; ++i) {
    for (int dir = 0; dir < 2; ++dir) { /* 0: gguf -> hf */
      if (from_gguf >= 0 && from_gguf != (dir == 0))
        continue;
      const char *from = dir == 0 ? pairs[i].gguf : pairs[i].hf;
      const char *to = dir == 0 ? pairs[i].hf : pairs[i].gguf;
      if (strlen(from) != n || memcmp(stem, from, n) != 0)
        continue;
      int wrote = snprintf(out, size, "%s%.*s%s%s%s", prefix_to, (int)layer_len,
                           layer_len ? name + strlen(prefix_from) : "",
                           layer_len ? "." : "", to, name + stem_len);
      if (wrote < 0 || (size_t)wrote >= size) {
        out[0] = '\0';
        return -1;
      }
      return 1;
    }
  }
  return 0;
}

static int kgrt_weights_cmp_name(const void *a, const void *b) {
  return strcmp((*(const kgrt_weight_info_t *const *)a)->name,
                (*(const kgrt_weight_info_t *const *)b)->name);
}

static int kgrt_weights_cmp_key(const void *a, const void *b) {
  return strcmp((*(const kgrt_meta_kv_t *const *)a)->key,
                (*(const kgrt_meta_kv_t *const *)b)->key);
}

/* After parsing: aliases, the name and key indexes, no duplicates. */
static kgrt_status_t kgrt_weights_index(kgrt_weights_t *w, kgrt_error_t *err) {
  w->by_name = kgrt_calloc(&w->alloc, w->count, sizeof *w->by_name);
  w->kv_by_key = kgrt_calloc(&w->alloc, (size_t)w->num_kv, sizeof *w->kv_by_key);
  if (w->by_name == NULL || w->kv_by_key == NULL)
    return kgrt_weights_fail(w, err, KGRT_STATUS_OUT_OF_MEMORY, "out of host memory");
  for (uint32_t i = 0; i < w->count; ++i) {
    char alias[KGRT_WEIGHTS_NAME_MAX + 64];
    kgrt_weight_info_t *t = &w->infos[i];
    if (kgrt_weights_map_name(t->name, alias, sizeof alias) == 1 &&
        (t->alias = kgrt_weights_strdup(w, alias, strlen(alias))) == NULL)
      return kgrt_weights_fail(w, err, KGRT_STATUS_OUT_OF_MEMORY, "out of host memory");
    w->by_name[i] = t;
  }
  qsort(w->by_name, w->count, sizeof *w->by_name, kgrt_weights_cmp_name);
  for (uint32_t i = 1; i < w->count; ++i)
    if (strcmp(w->by_name[i - 1]->name, w->by_name[i]->name) == 0)
      return kgrt_weights_fail(w, err, KGRT_STATUS_INVALID_ARGUMENT,
                               "tensor %s appears twice", w->by_name[i]->name);
  for (uint64_t i = 0; i < w->num_kv; ++i)
    w->kv_by_key[i] = &w->kvs[i];
  qsort(w->kv_by_key, (size_t)w->num_kv, sizeof *w->kv_by_key, kgrt_weights_cmp_key);
  for (uint64_t i = 1; i < w->num_kv; ++i)
    if (strcmp(w->kv_by_key[i - 1]->key, w->kv_by_key[i]->key) == 0)
      return kgrt_weights_fail(w, err, KGRT_STATUS_INVALID_ARGUMENT,
                               "metadata key %s appears twice", w->kv_by_key[i]->key);
  return KGRT_STATUS_OK;
}

/* ---- open and close ------------------------------------------------------- */

static kgrt_status_t kgrt_weights_new(const char *label, const kgrt_allocator_t *alloc,
                                      kgrt_weights_t **out, kgrt_error_t *err) {
  kgrt_weights_t *w = kgrt_calloc(alloc, 1, sizeof *w);
  if (w == NULL)
    return kgrt_weights_fail(NULL, err, KGRT_STATUS_OUT_OF_MEMORY, "out of host memory");
  if (alloc != NULL)
    w->alloc = *alloc;
  kgrt_weights_escape(label, strlen(label), w->label, sizeof w->label);
  *out = w;
  return KGRT_STATUS_OK;
}

/* Parses w->files[0] as `format` (dir: the folder of an index) and indexes. */
static kgrt_status_t kgrt_weights_parse(kgrt_weights_t *w, kgrt_weights_format_t format,
                                        int index, const char *dir, kgrt_error_t *err) {
  const kgrt_weights_file_t *f = &w->files[0];
  if (format == KGRT_WEIGHTS_FORMAT_AUTO && !index)
    format = f->size >= 4 && memcmp(f->data, "GGUF", 4) == 0
                 ? KGRT_WEIGHTS_FORMAT_GGUF
                 : KGRT_WEIGHTS_FORMAT_SAFETENSORS;
  w->format = index ? KGRT_WEIGHTS_FORMAT_SAFETENSORS : format;
  kgrt_status_t st;
  if (index)
    st = kgrt_weights_parse_index(w, dir, err);
  else if (format == KGRT_WEIGHTS_FORMAT_GGUF)
    st = kgrt_weights_parse_gguf(w, 0, err);
  else if (format == KGRT_WEIGHTS_FORMAT_SAFETENSORS)
    st = kgrt_weights_parse_safetensors(w, 0, err);
  else
    st = kgrt_weights_fail(w, err, KGRT_STATUS_INVALID_ARGUMENT, "unknown format %d",
                           (int)format);
  if (st == KGRT_STATUS_OK)
    st = kgrt_weights_index(w, err);
  return st;
}

kgrt_status_t kgrt_weights_open_memory(const void *data, size_t size,
                                       kgrt_weights_format_t format, const char *label,
                                       const kgrt_allocator_t *alloc,
                                       kgrt_weights_t **out_weights, kgrt_error_t *err) {
  kgrt_weights_clear(err);
  if (out_weights == NULL)
    return kgrt_weights_fail(NULL, err, KGRT_STATUS_INVALID_ARGUMENT,
                             "kgrt_weights_open_memory: out_weights is NULL");
  *out_weights = NULL;
  if (data == NULL && size > 0)
    return kgrt_weights_fail(NULL, err, KGRT_STATUS_INVALID_ARGUMENT,
                             "kgrt_weights_open_memory: data is NULL");
  kgrt_weights_t *w;
  uint32_t file;
  kgrt_status_t st = kgrt_weights_new(label != NULL ? label : "<memory>", alloc, &w, err);
  if (st != KGRT_STATUS_OK)
    return st;
  st = kgrt_weights_add_file(w, data, size, 0, &file, err);
  if (st == KGRT_STATUS_OK)
    st = kgrt_weights_parse(w, format, 0, "", err);
  if (st != KGRT_STATUS_OK) {
    kgrt_weights_close(w);
    return st;
  }
  *out_weights = w;
  return KGRT_STATUS_OK;
}

kgrt_status_t kgrt_weights_open(const char *path, const kgrt_allocator_t *alloc,
                                kgrt_weights_t **out_weights, kgrt_error_t *err) {
  kgrt_weights_clear(err);
  if (out_weights == NULL || path == NULL)
    return kgrt_weights_fail(NULL, err, KGRT_STATUS_INVALID_ARGUMENT,
                             "kgrt_weights_open: path or out_weights is NULL");
  *out_weights = NULL;
  const size_t len = strlen(path);
  const int index = len >= 5 && strcmp(path + len - 5, ".json") == 0;
  const char *slash = strrchr(path, '/');
  const size_t dir_len = slash != NULL ? (size_t)(slash - path) + 1 : 0;
  kgrt_weights_t *w;
  kgrt_status_t st = kgrt_weights_new(path, alloc, &w, err);
  if (st != KGRT_STATUS_OK)
    return st;
  char *dir = kgrt_weights_strdup(w, path, dir_len);
  uint32_t file;
  if (dir == NULL)
    st = kgrt_weights_fail(w, err, KGRT_STATUS_OUT_OF_MEMORY, "out of host memory");
  if (st == KGRT_STATUS_OK)
    st = kgrt_weights_map_file(w, path, &file, err);
  if (st == KGRT_STATUS_OK)
    st = kgrt_weights_parse(w, KGRT_WEIGHTS_FORMAT_AUTO, index, dir, err);
  if (st != KGRT_STATUS_OK) {
    kgrt_weights_close(w);
    return st;
  }
  *out_weights = w;
  return KGRT_STATUS_OK;
}

void kgrt_weights_close(kgrt_weights_t *w) {
  if (w == NULL)
    return;
  kgrt_allocator_t alloc = w->alloc;
  for (uint32_t i = 0; i < w->num_files; ++i)
    if (w->files[i].mapped)
      munmap((void *)w->files[i].data, w->files[i].size);
  while (w->pool != NULL) {
    kgrt_weights_pool_t *next = w->pool->next;
    kgrt_free(&alloc, w->pool);
    w->pool = next;
  }
  kgrt_free(&alloc, w->files);
  kgrt_free(&alloc, w->infos);
  kgrt_free(&alloc, w->by_name);
  kgrt_free(&alloc, w->kvs);
  kgrt_free(&alloc, w->kv_by_key);
  kgrt_free(&alloc, w);
}

/* ---- lookups -------------------------------------------------------------- */

kgrt_weights_format_t kgrt_weights_format(const kgrt_weights_t *w) {
  return w != NULL ? w->format : KGRT_WEIGHTS_FORMAT_AUTO;
}

uint32_t kgrt_weights_version(const kgrt_weights_t *w) {
  return w != NULL ? w->version : 0;
}

uint32_t kgrt_weights_count(const kgrt_weights_t *w) {
  return w != NULL ? w->count : 0;
}

const kgrt_weight_info_t *kgrt_weights_at(const kgrt_weights_t *w, uint32_t i) {
  return w != NULL && i < w->count ? &w->infos[i] : NULL;
}

static const kgrt_weight_info_t *kgrt_weights_find_exact(const kgrt_weights_t *w,
                                                         const char *name) {
  size_t lo = 0, hi = w->count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp(w->by_name[mid]->name, name);
    if (c == 0)
      return w->by_name[mid];
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return NULL;
}

const kgrt_weight_info_t *kgrt_weights_find(const kgrt_weights_t *w, const char *name) {
  if (w == NULL || name == NULL)
    return NULL;
  const kgrt_weight_info_t *t = kgrt_weights_find_exact(w, name);
  char alias[KGRT_WEIGHTS_NAME_MAX + 64];
  if (t == NULL && kgrt_weights_map_name(name, alias, sizeof alias) == 1)
    t = kgrt_weights_find_exact(w, alias);
  return t;
}

/* ---- metadata ------------------------------------------------------------- */

uint64_t kgrt_weights_meta_count(const kgrt_weights_t *w) {
  return w != NULL ? w->num_kv : 0;
}

const char *kgrt_weights_meta_key(const kgrt_weights_t *w, uint64_t i,
                                  kgrt_meta_type_t *out_type) {
  if (w == NULL || i >= w->num_kv)
    return NULL;
  if (out_type != NULL)
    *out_type = w->kvs[i].type;
  return w->kvs[i].key;
}

static const char *const kgrt_meta_type_names[] = {
    "u8",   "i8",     "u16",   "i16", "u32", "i32", "f32",
    "bool", "string", "array", "u64", "i64", "f64"};

static kgrt_status_t kgrt_meta_get(const kgrt_weights_t *w, const char *key,
                                   const char *want, const kgrt_meta_kv_t **out,
                                   kgrt_error_t *err) {
  kgrt_weights_clear(err);
  *out = NULL;
  if (w == NULL || key == NULL)
    return kgrt_weights_fail(w, err, KGRT_STATUS_INVALID_ARGUMENT,
                             "metadata: weights or key is NULL");
  size_t lo = 0, hi = (size_t)w->num_kv;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp(w->kv_by_key[mid]->key, key);
    if (c == 0) {
      *out = w->kv_by_key[mid];
      return KGRT_STATUS_OK;
    }
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  char esc[128];
  return kgrt_weights_fail(w, err, KGRT_STATUS_NOT_FOUND, "no metadata key %s (%s)",
                           kgrt_weights_escape(key, strlen(key), esc, sizeof esc), want);
}

static kgrt_status_t kgrt_meta_wrong_type(const kgrt_weights_t *w,
                                          const kgrt_meta_kv_t *kv, const char *want,
                                          kgrt_error_t *err) {
  return kgrt_weights_fail(w, err, KGRT_STATUS_INVALID_ARGUMENT,
                           "metadata key %s is %s, not %s", kv->key,
                           kgrt_meta_type_names[kv->type], want);
}

static uint64_t kgrt_le(const unsigned char *p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i)
    v = v << 8 | p[i];
  return v;
}

/* A scalar of `type` at p: as an integer (*is_int) or a double. -1 for a
 * string or array. */
static int kgrt_meta_scalar(kgrt_meta_type_t type, const unsigned char *p, int *is_int,
                            int64_t *i, double *f, int *u64_big) {
  *is_int = 1;
  *u64_big = 0;
  switch (type) {
  case KGRT_META_U8:
  case KGRT_META_BOOL:
    *i = p[0];
    break;
  case KGRT_META_I8:
    *i = (int8_t)p[0];
    break;
  case KGRT_META_U16:
    *i = (int64_t)kgrt_le(p, 2);
    break;
  case KGRT_META_I16:
    *i = (int16_t)kgrt_le(p, 2);
    break;
  case KGRT_META_U32:
    *i = (int64_t)kgrt_le(p, 4);
    break;
  case KGRT_META_I32:
    *i = (int32_t)(uint32_t)kgrt_le(p, 4);
    break;
  case KGRT_META_U64: {
    uint64_t v = kgrt_le(p, 8);
    *u64_big = v > INT64_MAX;
    *i = (int64_t)(v & INT64_MAX);
    *f = (double)v;
    return 0;
  }
  case KGRT_META_I64:
    *i = (int64_t)kgrt_le(p, 8);
    break;
  case KGRT_META_F32: {
    uint32_t bits = (uint32_t)kgrt_le(p, 4);
    float v;
    memcpy(&v, &bits, 4);
    *is_int = 0;
    *f = v;
    return 0;
  }
  case KGRT_META_F64: {
    uint64_t bits = kgrt_le(p, 8);
    memcpy(f, &bits, 8);
    *is_int = 0;
    return 0;
  }
  default:
    return -1;
  }
  *f = (double)*i;
  return 0;
}

/* Bytes of one element of a fixed-size type; 0 for string and array. */
static size_t kgrt_meta_type_size(kgrt_meta_type_t type) {
  static const unsigned char sizes[] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};
  return (unsigned)type < sizeof sizes ? sizes[type] : 0;
}

kgrt_status_t kgrt_weights_meta_string(const kgrt_weights_t *w, const char *key,
                                       const char **out_str, size_t *out_len,
                                       kgrt_error_t *err) {
  const kgrt_meta_kv_t *kv;
  if (out_str != NULL)
    *out_str = NULL;
  if (out_len != NULL)
    *out_len = 0;
  kgrt_status_t st = kgrt_meta_get(w, key, "a string", &kv, err);
  if (st != KGRT_STATUS_OK)
    return st;
  if (kv->type != KGRT_META_STRING)
    return kgrt_meta_wrong_type(w, kv, "string", err);
  if (out_str != NULL)
    *out_str = (const char *)kv->value;
  if (out_len != NULL)
    *out_len = (size_t)kv->len;
  return KGRT_STATUS_OK;
}

kgrt_status_t kgrt_weights_meta_int(const kgrt_weights_t *w, const char *key,
                                    int64_t *out_value, kgrt_error_t *err) {
  const kgrt_meta_kv_t *kv;
  if (out_value != NULL)
    *out_value = 0;
  kgrt_status_t st = kgrt_meta_get(w, key, "an integer", &kv, err);
  if (st != KGRT_STATUS_OK)
    return st;
  int is_int, big;
  int64_t i;
  double f;
  if (kgrt_meta_scalar(kv->type, kv->value, &is_int, &i, &f, &big) != 0 || !is_int)
    return kgrt_meta_wrong_type(w, kv, "an integer", err);
  if (big)
    return kgrt_weights_fail(w, err, KGRT_STATUS_OUT_OF_RANGE,
                             "metadata key %s: u64 value above INT64_MAX", kv->key);
  if (out_value != NULL)
    *out_value = i;
  return KGRT_STATUS_OK;
}

kgrt_status_t kgrt_weights_meta_float(const kgrt_weights_t *w, const char *key,
                                      double *out_value, kgrt_error_t *err) {
  const kgrt_meta_kv_t *kv;
  if (out_value != NULL)
    *out_value = 0;
  kgrt_status_t st = kgrt_meta_get(w, key, "a number", &kv, err);
  if (st != KGRT_STATUS_OK)
    return st;
  int is_int, big;
  int64_t i;
  double f;
  if (kgrt_meta_scalar(kv->type, kv->value, &is_int, &i, &f, &big) != 0)
    return kgrt_meta_wrong_type(w, kv, "a number", err);
  if (out_value != NULL)
    *out_value = f;
  return KGRT_STATUS_OK;
}

kgrt_status_t kgrt_weights_meta_array(const kgrt_weights_t *w, const char *key,
                                      kgrt_meta_array_t *out_array, kgrt_error_t *err) {
  const kgrt_meta_kv_t *kv;
  if (out_array != NULL)
    memset(out_array, 0, sizeof *out_array);
  kgrt_status_t st = kgrt_meta_get(w, key, "an array", &kv, err);
  if (st != KGRT_STATUS_OK)
    return st;
  if (kv->type != KGRT_META_ARRAY)
    return kgrt_meta_wrong_type(w, kv, "array", err);
  if (out_array != NULL) {
    out_array->type = kv->elem;
    out_array->count = kv->len;
    out_array->data = kv->value;
    out_array->next = kv->value;
    out_array->index = 0;
  }
  return KGRT_STATUS_OK;
}

int kgrt_meta_array_int(const kgrt_meta_array_t *a, uint64_t i, int64_t *out_value) {
  const size_t size = a != NULL ? kgrt_meta_type_size(a->type) : 0;
  int is_int, big;
  double f;
  if (size == 0 || i >= a->count ||
      kgrt_meta_scalar(a->type, a->data + i * size, &is_int, out_value, &f, &big) != 0 ||
      !is_int || big)
    return -1;
  return 0;
}

int kgrt_meta_array_float(const kgrt_meta_array_t *a, uint64_t i, double *out_value) {
  const size_t size = a != NULL ? kgrt_meta_type_size(a->type) : 0;
  int is_int, big;
  int64_t v;
  if (size == 0 || i >= a->count ||
      kgrt_meta_scalar(a->type, a->data + i * size, &is_int, &v, out_value, &big) != 0)
    return -1;
  return 0;
}

int kgrt_meta_array_next_string(kgrt_meta_array_t *a, const char **out_str,
                                size_t *out_len) {
  if (a == NULL || a->type != KGRT_META_STRING || a->index >= a->count)
    return 0;
  /* checked at open: every length and string is inside the file */
  const uint64_t len = kgrt_le(a->next, 8);
  *out_str = (const char *)a->next + 8;
  *out_len = (size_t)len;
  a->next += 8 + len;
  a->index++;
  return 1;
}

/* The first dim (rows) of a 2-D tensor called `name` (or its alias). */
static int kgrt_weights_rows(const kgrt_weights_t *w, const char *name, int64_t *out) {
  const kgrt_weight_info_t *t = kgrt_weights_find(w, name);
  if (t == NULL || t->ndim != 2)
    return 0;
  *out = t->shape[0];
  return 1;
}

kgrt_status_t kgrt_weights_vocab_size(const kgrt_weights_t *w, int64_t *out_vocab,
                                      kgrt_error_t *err) {
  kgrt_weights_clear(err);
  if (w == NULL || out_vocab == NULL)
    return kgrt_weights_fail(w, err, KGRT_STATUS_INVALID_ARGUMENT,
                             "kgrt_weights_vocab_size: NULL argument");
  *out_vocab = 0;
  const char *arch;
  size_t arch_len;
  char key[160];
  if (kgrt_weights_meta_string(w, "general.architecture", &arch, &arch_len, NULL) ==
          KGRT_STATUS_OK &&
      arch_len < 128) {
    snprintf(key, sizeof key, "%.*s.vocab_size", (int)arch_len, arch);
    int64_t v;
    if (kgrt_weights_meta_int(w, key, &v, NULL) == KGRT_STATUS_OK && v > 0) {
      *out_vocab = v;
      return KGRT_STATUS_OK;
    }
  }
  if (kgrt_weights_rows(w, "token_embd.weight", out_vocab) ||
      kgrt_weights_rows(w, "output.weight", out_vocab))
    return KGRT_STATUS_OK;
  kgrt_meta_array_t tokens;
  if (kgrt_weights_meta_array(w, "tokenizer.ggml.tokens", &tokens, NULL) ==
          KGRT_STATUS_OK &&
      tokens.count > 0 && tokens.count <= INT64_MAX) {
    *out_vocab = (int64_t)tokens.count;
    return KGRT_STATUS_OK;
  }
  kgrt_weights_clear(err);
  return kgrt_weights_fail(w, err, KGRT_STATUS_NOT_FOUND,
                           "no vocabulary size: no <arch>.vocab_size, token_embd.weight, "
                           "output.weight or tokenizer.ggml.tokens");
}
