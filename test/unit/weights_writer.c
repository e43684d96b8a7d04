/* weights_writer.c - see weights_writer.h. */
#include "weights_writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kgrt_gguf.h"
#include "kgrt_half.h"

void ww_put(ww_buf_t *b, const void *p, size_t n) {
  if (b->oom)
    return;
  if (b->len + n > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n)
      cap *= 2;
    unsigned char *q = realloc(b->p, cap);
    if (q == NULL) {
      b->oom = 1;
      return;
    }
    b->p = q;
    b->cap = cap;
  }
  if (n > 0)
    memcpy(b->p + b->len, p, n);
  b->len += n;
}

void ww_u8(ww_buf_t *b, uint8_t v) {
  ww_put(b, &v, 1);
}

void ww_u32(ww_buf_t *b, uint32_t v) {
  unsigned char p[4];
  for (int i = 0; i < 4; ++i)
    p[i] = (unsigned char)(v >> (8 * i));
  ww_put(b, p, 4);
}

void ww_u64(ww_buf_t *b, uint64_t v) {
  unsigned char p[8];
  for (int i = 0; i < 8; ++i)
    p[i] = (unsigned char)(v >> (8 * i));
  ww_put(b, p, 8);
}

void ww_gguf_str(ww_buf_t *b, const char *s) {
  ww_u64(b, strlen(s));
  ww_put(b, s, strlen(s));
}

void ww_free(ww_buf_t *b) {
  free(b->p);
  memset(b, 0, sizeof *b);
}

void ww_set_u32(ww_buf_t *b, size_t at, uint32_t v) {
  for (int i = 0; i < 4 && at + 4 <= b->len; ++i)
    b->p[at + i] = (unsigned char)(v >> (8 * i));
}

void ww_set_u64(ww_buf_t *b, size_t at, uint64_t v) {
  for (int i = 0; i < 8 && at + 8 <= b->len; ++i)
    b->p[at + i] = (unsigned char)(v >> (8 * i));
}

int ww_write_file(const char *path, const void *p, size_t n) {
  FILE *f = fopen(path, "wb");
  if (f == NULL)
    return -1;
  int bad = fwrite(p, 1, n, f) != n;
  return fclose(f) != 0 || bad ? -1 : 0;
}

/* ---- GGUF ---- */

void ww_gguf_init(ww_gguf_t *g, uint32_t version, uint32_t alignment) {
  memset(g, 0, sizeof *g);
  g->version = version;
  g->alignment = alignment;
  if (alignment != 32)
    ww_gguf_kv_u32(g, "general.alignment", alignment);
}

void ww_gguf_free(ww_gguf_t *g) {
  ww_free(&g->kvs);
}

void ww_gguf_kv_raw(ww_gguf_t *g, const char *key, uint32_t type, const void *value,
                    size_t n) {
  if (g->n_kv >= WW_MAX_KVS) {
    g->kvs.oom = 1;
    return;
  }
  g->kv_at[g->n_kv++] = g->kvs.len;
  ww_gguf_str(&g->kvs, key);
  ww_u32(&g->kvs, type);
  ww_put(&g->kvs, value, n);
}

static void ww_gguf_kv_le(ww_gguf_t *g, const char *key, uint32_t type, uint64_t v,
                          int bytes) {
  unsigned char p[8];
  for (int i = 0; i < bytes; ++i)
    p[i] = (unsigned char)(v >> (8 * i));
  ww_gguf_kv_raw(g, key, type, p, (size_t)bytes);
}

void ww_gguf_kv_u32(ww_gguf_t *g, const char *key, uint32_t value) {
  ww_gguf_kv_le(g, key, WW_U32, value, 4);
}
void ww_gguf_kv_i32(ww_gguf_t *g, const char *key, int32_t value) {
  ww_gguf_kv_le(g, key, WW_I32, (uint32_t)value, 4);
}
void ww_gguf_kv_u64(ww_gguf_t *g, const char *key, uint64_t value) {
  ww_gguf_kv_le(g, key, WW_U64, value, 8);
}
void ww_gguf_kv_f32(ww_gguf_t *g, const char *key, float value) {
  ww_gguf_kv_le(g, key, WW_F32, kgrt_f32_bits(value), 4);
}
void ww_gguf_kv_bool(ww_gguf_t *g, const char *key, int value) {
  ww_gguf_kv_le(g, key, WW_BOOL, value != 0, 1);
}

void ww_gguf_kv_str(ww_gguf_t *g, const char *key, const char *value) {
  ww_buf_t v = {0};
  ww_gguf_str(&v, value);
  ww_gguf_kv_raw(g, key, WW_STRING, v.p, v.len);
  g->kvs.oom |= v.oom;
  ww_free(&v);
}

void ww_gguf_kv_strs(ww_gguf_t *g, const char *key, const char *const *values,
                     uint64_t n) {
  ww_buf_t v = {0};
  ww_u32(&v, WW_STRING);
  ww_u64(&v, n);
  for (uint64_t i = 0; i < n; ++i)
    ww_gguf_str(&v, values[i]);
  ww_gguf_kv_raw(g, key, WW_ARRAY, v.p, v.len);
  g->kvs.oom |= v.oom;
  ww_free(&v);
}

void ww_gguf_kv_i32s(ww_gguf_t *g, const char *key, const int32_t *values, uint64_t n) {
  ww_buf_t v = {0};
  ww_u32(&v, WW_I32);
  ww_u64(&v, n);
  for (uint64_t i = 0; i < n; ++i)
    ww_u32(&v, (uint32_t)values[i]);
  ww_gguf_kv_raw(g, key, WW_ARRAY, v.p, v.len);
  g->kvs.oom |= v.oom;
  ww_free(&v);
}

void ww_gguf_tensor(ww_gguf_t *g, const char *name, uint32_t type, uint32_t n_dims,
                    const uint64_t *ne, const void *data, size_t bytes) {
  if (g->n_tensors >= WW_MAX_TENSORS || n_dims > 4) {
    g->kvs.oom = 1;
    return;
  }
  ww_gguf_tensor_t *t = &g->tensors[g->n_tensors++];
  memset(t, 0, sizeof *t);
  t->name = name;
  t->type = type;
  t->n_dims = n_dims;
  for (uint32_t d = 0; d < n_dims; ++d)
    t->ne[d] = ne[d];
  t->data = data;
  t->bytes = bytes;
}

static size_t ww_align(size_t v, size_t a) {
  return (v + a - 1) / a * a;
}

int ww_gguf_finish(const ww_gguf_t *g, ww_buf_t *out, ww_gguf_layout_t *layout) {
  ww_gguf_layout_t l;
  memset(&l, 0, sizeof l);
  const size_t base = out->len;
  ww_put(out, "GGUF", 4);
  l.version_at = out->len - base;
  ww_u32(out, g->version);
  l.tensor_count_at = out->len - base;
  ww_u64(out, g->n_tensors);
  l.kv_count_at = out->len - base;
  ww_u64(out, g->n_kv);
  const size_t kvs_at = out->len - base;
  ww_put(out, g->kvs.p, g->kvs.len);
  for (uint64_t i = 0; i < g->n_kv; ++i) {
    l.kv_at[i] = kvs_at + g->kv_at[i];
    uint64_t key_len = 0;
    for (int k = 7; k >= 0; --k)
      key_len = key_len << 8 | g->kvs.p[g->kv_at[i] + (size_t)k];
    l.kv_type_at[i] = l.kv_at[i] + 8 + (size_t)key_len;
  }
  uint64_t offset = 0;
  for (uint32_t i = 0; i < g->n_tensors; ++i) {
    const ww_gguf_tensor_t *t = &g->tensors[i];
    l.info_at[i] = out->len - base;
    ww_gguf_str(out, t->name);
    l.n_dims_at[i] = out->len - base;
    ww_u32(out, t->n_dims);
    for (uint32_t d = 0; d < t->n_dims; ++d)
      ww_u64(out, t->ne[d]);
    l.type_at[i] = out->len - base;
    ww_u32(out, t->type);
    ww_u64(out, offset);
    l.tensor_offset[i] = offset;
    offset = ww_align(offset + t->bytes, g->alignment);
  }
  l.header_end = out->len - base;
  l.data_start = ww_align(l.header_end, g->alignment);
  static const unsigned char zeros[64];
  while (out->len - base < l.data_start)
    ww_put(out, zeros, out->len - base + 64 <= l.data_start ? 64 : 1);
  for (uint32_t i = 0; i < g->n_tensors; ++i) {
    while (out->len - base < l.data_start + l.tensor_offset[i])
      ww_u8(out, 0);
    ww_put(out, g->tensors[i].data, g->tensors[i].bytes);
  }
  if (layout != NULL)
    *layout = l;
  return out->oom || g->kvs.oom ? -1 : 0;
}

/* ---- safetensors ---- */

static void ww_json_str(ww_buf_t *b, const char *s) {
  ww_u8(b, '"');
  for (; *s; ++s) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') {
      ww_u8(b, '\\');
      ww_u8(b, c);
    } else if (c < 0x20) {
      char e[8];
      snprintf(e, sizeof e, "\\u%04x", c);
      ww_put(b, e, 6);
    } else {
      ww_u8(b, c);
    }
  }
  ww_u8(b, '"');
}

static void ww_text(ww_buf_t *b, const char *s) {
  ww_put(b, s, strlen(s));
}

int ww_safetensors(ww_buf_t *out, const ww_st_tensor_t *t, int n, const char *const *meta,
                   int n_meta) {
  ww_buf_t h = {0};
  char num[64];
  uint64_t offset = 0;
  ww_u8(&h, '{');
  if (n_meta > 0) {
    ww_text(&h, "\"__metadata__\":{");
    for (int i = 0; i < n_meta; ++i) {
      if (i)
        ww_u8(&h, ',');
      ww_json_str(&h, meta[2 * i]);
      ww_u8(&h, ':');
      ww_json_str(&h, meta[2 * i + 1]);
    }
    ww_u8(&h, '}');
  }
  for (int i = 0; i < n; ++i) {
    if (i || n_meta > 0)
      ww_u8(&h, ',');
    ww_json_str(&h, t[i].name);
    ww_text(&h, ":{\"dtype\":");
    ww_json_str(&h, t[i].dtype);
    ww_text(&h, ",\"shape\":[");
    for (uint32_t d = 0; d < t[i].ndim; ++d) {
      snprintf(num, sizeof num, "%s%lld", d ? "," : "", (long long)t[i].shape[d]);
      ww_text(&h, num);
    }
    snprintf(num, sizeof num, "],\"data_offsets\":[%llu,%llu]}",
             (unsigned long long)offset, (unsigned long long)(offset + t[i].bytes));
    ww_text(&h, num);
    offset += t[i].bytes;
  }
  ww_u8(&h, '}');
  while (h.len % 8 != 0)
    ww_u8(&h, ' ');
  ww_u64(out, h.len);
  ww_put(out, h.p, h.len);
  for (int i = 0; i < n; ++i)
    ww_put(out, t[i].data, t[i].bytes);
  int bad = h.oom || out->oom;
  ww_free(&h);
  return bad ? -1 : 0;
}

int ww_safetensors_raw(ww_buf_t *out, const char *header, const void *data, size_t n) {
  ww_u64(out, strlen(header));
  ww_text(out, header);
  ww_put(out, data, n);
  return out->oom ? -1 : 0;
}

int ww_index(ww_buf_t *out, const char *const *names, const char *const *shards, int n) {
  ww_text(out, "{\n  \"metadata\": {\"total_size\": 0, \"note\": [1.5e3, true, null]},\n"
               "  \"weight_map\": {");
  for (int i = 0; i < n; ++i) {
    ww_text(out, i ? ",\n    " : "\n    ");
    ww_json_str(out, names[i]);
    ww_text(out, ": ");
    ww_json_str(out, shards[i]);
  }
  ww_text(out, "\n  }\n}\n");
  return out->oom ? -1 : 0;
}

/* ---- data ---- */

void ww_fill(float *x, size_t n, uint32_t seed) {
  uint32_t s = seed * 2654435761u + 1;
  for (size_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    x[i] = (float)(s >> 8) / (float)(1u << 24) * 4.0f - 2.0f;
  }
}

void *ww_encode(uint32_t type, const float *x, size_t n, size_t *out_bytes) {
  *out_bytes = 0;
  const int plain = type == WW_GGML_F32 || type == WW_GGML_I32 || type == WW_GGML_F16 ||
                    type == WW_GGML_BF16;
  const size_t elem = type == WW_GGML_F16 || type == WW_GGML_BF16 ? 2 : 4;
  const size_t bytes =
      plain ? elem * n : kgrt_gguf_row_bytes((kgrt_gguf_type_t)type, (int64_t)n);
  if (bytes == 0)
    return NULL;
  unsigned char *p = malloc(bytes);
  if (p == NULL)
    return NULL;
  for (size_t i = 0; plain && i < n; ++i) {
    uint32_t v = 0;
    if (type == WW_GGML_F32)
      v = kgrt_f32_bits(x[i]);
    else if (type == WW_GGML_I32)
      v = (uint32_t)(int32_t)(x[i] * 1000.0f);
    else if (type == WW_GGML_F16)
      v = kgrt_f32_to_f16(x[i]);
    else
      v = kgrt_f32_to_bf16(x[i]);
    for (size_t k = 0; k < elem; ++k)
      p[elem * i + k] = (unsigned char)(v >> (8 * k));
  }
  if (!plain)
    kgrt_gguf_quantize((kgrt_gguf_type_t)type, x, p, (int64_t)n);
  *out_bytes = bytes;
  return p;
}
