/* kgrt_weights_gguf.c - the GGUF header (versions 2 and 3), every field
 * checked before it is used:
 *
 *   magic "GGUF", u32 version, u64 tensor_count, u64 kv_count
 *   kv_count x   { string key, u32 value_type, value }
 *   tensor_count x { string name, u32 n_dims, u64 ne[n_dims], u32 type,
 *                    u64 offset (from the data section) }
 *   padding to general.alignment (default 32), the data section
 *
 * A string is a u64 length and that many bytes; an array value is a u32
 * element type, a u64 count and the elements. All little-endian. ne[0] is the
 * innermost dim. Counts and lengths are bounded by the bytes left before
 * anything is allocated or skipped.
 *
 * Needs kgrt_weights.c. Gives kgrt_weights_parse_gguf. */
#include "kgrt_weights_internal.h"

#include <stdio.h>
#include <string.h>

#define KGRT_GGUF_DEFAULT_ALIGN 32
#define KGRT_GGUF_MAX_DIMS 4 /* GGML_MAX_DIMS */
/* The smallest KV (key of 1 byte, a u8) and tensor info (name of 1 byte,
 * one dim): bound the counts by the file size. */
#define KGRT_GGUF_MIN_KV (8 + 1 + 4 + 1)
#define KGRT_GGUF_MIN_TENSOR (8 + 1 + 4 + 8 + 4 + 8)

typedef struct kgrt_gguf_reader {
  kgrt_weights_t *w;
  const unsigned char *base;
  size_t size, pos;
  kgrt_error_t *err;
  char where[160]; /* "KV 3 (general.alignment)", "tensor 2 (blk.0.attn_q.weight)" */
} kgrt_gguf_reader_t;

static size_t kgrt_gguf_left(const kgrt_gguf_reader_t *r) {
  return r->size - r->pos;
}

static kgrt_status_t kgrt_gguf_need(kgrt_gguf_reader_t *r, uint64_t n,
                                    const char *field) {
  if (n > kgrt_gguf_left(r))
    return kgrt_weights_fail(r->w, r->err, KGRT_STATUS_INVALID_ARGUMENT,
                             "GGUF %s%s%s: needs %llu bytes at offset %zu, the file has "
                             "%zu left (truncated?)",
                             r->where, r->where[0] ? " " : "", field,
                             (unsigned long long)n, r->pos, kgrt_gguf_left(r));
  return KGRT_STATUS_OK;
}

static uint64_t kgrt_gguf_le(const unsigned char *p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i)
    v = v << 8 | p[i];
  return v;
}

static kgrt_status_t kgrt_gguf_u32(kgrt_gguf_reader_t *r, uint32_t *out,
                                   const char *field) {
  kgrt_status_t st = kgrt_gguf_need(r, 4, field);
  if (st == KGRT_STATUS_OK) {
    *out = (uint32_t)kgrt_gguf_le(r->base + r->pos, 4);
    r->pos += 4;
  }
  return st;
}

static kgrt_status_t kgrt_gguf_u64(kgrt_gguf_reader_t *r, uint64_t *out,
                                   const char *field) {
  kgrt_status_t st = kgrt_gguf_need(r, 8, field);
  if (st == KGRT_STATUS_OK) {
    *out = kgrt_gguf_le(r->base + r->pos, 8);
    r->pos += 8;
  }
  return st;
}

/* A string: its bytes stay in the mapping. */
static kgrt_status_t kgrt_gguf_string(kgrt_gguf_reader_t *r, const unsigned char **out,
                                      uint64_t *out_len, const char *field) {
  uint64_t len;
  char what[64];
  snprintf(what, sizeof what, "%s length", field);
  kgrt_status_t st = kgrt_gguf_u64(r, &len, what);
  if (st == KGRT_STATUS_OK)
    st = kgrt_gguf_need(r, len, field);
  if (st == KGRT_STATUS_OK) {
    *out = r->base + r->pos;
    *out_len = len;
    r->pos += (size_t)len;
  }
  return st;
}

static const unsigned char kgrt_gguf_type_sizes[] = {1, 1, 2, 2, 4, 4, 4,
                                                     1, 0, 0, 8, 8, 8};

/* The value of a KV of `type` (not an array) at r->pos; checked and skipped. */
static kgrt_status_t kgrt_gguf_scalar(kgrt_gguf_reader_t *r, uint32_t type,
                                      const char *field) {
  if (type == KGRT_META_STRING) {
    const unsigned char *s;
    uint64_t len;
    return kgrt_gguf_string(r, &s, &len, field);
  }
  const size_t size = kgrt_gguf_type_sizes[type];
  kgrt_status_t st = kgrt_gguf_need(r, size, field);
  if (st != KGRT_STATUS_OK)
    return st;
  if (type == KGRT_META_BOOL && r->base[r->pos] > 1)
    return kgrt_weights_fail(r->w, r->err, KGRT_STATUS_INVALID_ARGUMENT,
                             "GGUF %s %s: bool is %u, not 0 or 1", r->where, field,
                             r->base[r->pos]);
  r->pos += size;
  return KGRT_STATUS_OK;
}

static kgrt_status_t kgrt_gguf_array(kgrt_gguf_reader_t *r, kgrt_meta_kv_t *kv) {
  uint32_t elem;
  uint64_t count;
  kgrt_status_t st = kgrt_gguf_u32(r, &elem, "array type");
  if (st == KGRT_STATUS_OK && elem == KGRT_META_ARRAY)
    return kgrt_weights_fail(r->w, r->err, KGRT_STATUS_INVALID_ARGUMENT,
                             "GGUF %s array type: arrays of arrays are not supported",
                             r->where);
  if (st == KGRT_STATUS_OK && elem > KGRT_META_F64)
    return kgrt_weights_fail(r->w, r->err, KGRT_STATUS_INVALID_ARGUMENT,
                             "GGUF %s array type %u is unknown", r->where, elem);
  if (st == KGRT_STATUS_OK)
    st = kgrt_gguf_u64(r, &count, "array length");
  if (st != KGRT_STATUS_OK)
    return st;
  /* a string takes at least its 8-byte length */
  const size_t min = elem == KGRT_META_STRING ? 8 : kgrt_gguf_type_sizes[elem];
  if (count > kgrt_gguf_left(r) / min)
    return kgrt_weights_fail(r->w, r->err, KGRT_STATUS_INVALID_ARGUMENT,
                             "GGUF %s array length %llu: %llu elements of at least %zu "
                             "bytes do not fit the %zu bytes left",
                             r->where, (unsigned long long)count,
                             (unsigned long long)count, min, kgrt_gguf_left(r));
  kv->elem = (kgrt_meta_type_t)elem;
  kv->len = count;
  kv->value = r->base + r->pos;
  if (elem != KGRT_META_STRING && elem != KGRT_META_BOOL) {
    r->pos += (size_t)(count * min);
    return KGRT_STATUS_OK;
  }
  for (uint64_t i = 0; i < count && st == KGRT_STATUS_OK; ++i)
    st = kgrt_gguf_scalar(r, elem, "array element");
  return st;
}

static kgrt_status_t kgrt_gguf_kv(kgrt_gguf_reader_t *r, uint64_t index,
                                  uint32_t *alignment) {
  const unsigned char *key;
  uint64_t key_len;
  uint32_t type;
  char esc[96];
  snprintf(r->where, sizeof r->where, "KV %llu", (unsigned long long)index);
  kgrt_status_t st = kgrt_gguf_string(r, &key, &key_len, "key");
  if (st != KGRT_STATUS_OK)
    return st;
  if (key_len == 0 || key_len > KGRT_WEIGHTS_MAX_KEY ||
      !kgrt_weights_utf8_ok(key, key_len))
    return kgrt_weights_fail(r->w, r->err, KGRT_STATUS_INVALID_ARGUMENT,
                             "GGUF KV %llu key '%s' (%llu bytes) is empty, longer than "
                             "%d bytes, or not printable UTF-8",
                             (unsigned long long)index,
                             kgrt_weights_escape(key, (size_t)key_len, esc, sizeof esc),
                             (unsigned long long)key_len, KGRT_WEIGHTS_MAX_KEY);
  kgrt_meta_kv_t *kv = kgrt_weights_add_kv(r->w, r->err);
  if (kv == NULL)
    return r->err != NULL ? r->err->status : KGRT_STATUS_OUT_OF_MEMORY;
  kv->key = kgrt_weights_strdup(r->w, key, (size_t)key_len);
  if (kv->key == NULL)
    return kgrt_weights_fail(r->w, r->err, KGRT_STATUS_OUT_OF_MEMORY,
                             "out of host memory");
  snprintf(r->where, sizeof r->where, "KV %llu (%s)", (unsigned long long)index,
           kgrt_weights_escape(key, (size_t)key_len, esc, sizeof esc));
  st = kgrt_gguf_u32(r, &type, "value_type");
  if (st == KGRT_STATUS_OK && type > KGRT_META_F64)
    return kgrt_weights_fail(r->w, r->err, KGRT_STATUS_INVALID_ARGUMENT,
                             "GGUF %s value_type %u is unknown", r->where, type);
  if (st != KGRT_STATUS_OK)
    return st;
  kv->type = (kgrt_meta_type_t)type;
  kv->value = r->base + r->pos;
  if (type == KGRT_META_ARRAY)
    return kgrt_gguf_array(r, kv);
  if (type == KGRT_META_STRING) {
    const unsigned char *s;
    st = kgrt_gguf_string(r, &s, &kv->len, "value");
    kv->value = s;
  } else {
    st = kgrt_gguf_scalar(r, type, "value");
  }
  if (st != KGRT_STATUS_OK || strcmp(kv->key, "general.alignment") != 0)
    return st;
  const uint64_t a = type == KGRT_META_U32 ? kgrt_gguf_le(kv->value, 4) : 0;
  if (type != KGRT_META_U32 || a == 0 || (a & (a - 1)) != 0 || a > KGRT_WEIGHTS_MAX_ALIGN)
    return kgrt_weights_fail(r->w, r->err, KGRT_STATUS_INVALID_ARGUMENT,
                             "GGUF general.alignment must be a u32 power of two up to %u "
                             "(is type %u, value %llu)",
                             KGRT_WEIGHTS_MAX_ALIGN, type, (unsigned long long)a);
  *alignment = (uint32_t)a;
  return KGRT_STATUS_OK;
}

/* ggml type ids this runtime reads. */
static int kgrt_gguf_dtype(uint32_t type, kgrt_dtype_t *out) {
  switch (type) {
  case 0:
    *out = KGRT_DTYPE_F32;
    return 1;
  case 1:
    *out = KGRT_DTYPE_F16;
    return 1;
  case 2:
    *out = KGRT_DTYPE_Q4_0;
    return 1;
  case 8:
    *out = KGRT_DTYPE_Q8_0;
    return 1;
  case 12:
    *out = KGRT_DTYPE_Q4_K;
    return 1;
  case 14:
    *out = KGRT_DTYPE_Q6_K;
    return 1;
  case 26:
    *out = KGRT_DTYPE_I32;
    return 1;
  case 30:
    *out = KGRT_DTYPE_BF16;
    return 1;
  }
  return 0;
}

/* One tensor info; its offset stays relative to the data section. */
static kgrt_status_t kgrt_gguf_tensor(kgrt_gguf_reader_t *r, uint64_t index,
                                      uint32_t alignment) {
  const unsigned char *name;
  uint64_t name_len;
  uint32_t n_dims = 0, type = 0;
  char what[48];
  snprintf(r->where, sizeof r->where, "tensor %llu", (unsigned long long)index);
  kgrt_status_t st = kgrt_gguf_string(r, &name, &name_len, "name");
  if (st != KGRT_STATUS_OK)
    return st;
  kgrt_weight_info_t *t = kgrt_weights_add_info(r->w, r->err);
  if (t == NULL)
    return r->err != NULL ? r->err->status : KGRT_STATUS_OUT_OF_MEMORY;
  snprintf(what, sizeof what, "GGUF tensor %llu", (unsigned long long)index);
  st = kgrt_weights_take_name(r->w, name, (size_t)name_len, what, &t->name, r->err);
  if (st != KGRT_STATUS_OK)
    return st;
  snprintf(r->where, sizeof r->where, "tensor %llu (%s)", (unsigned long long)index,
           t->name);
  st = kgrt_gguf_u32(r, &n_dims, "n_dims");
  if (st == KGRT_STATUS_OK && (n_dims == 0 || n_dims > KGRT_GGUF_MAX_DIMS))
    return kgrt_weights_fail(r->w, r->err, KGRT_STATUS_INVALID_ARGUMENT,
                             "GGUF %s n_dims %u is not 1..%d", r->where, n_dims,
                             KGRT_GGUF_MAX_DIMS);
  t->ndim = n_dims;
  for (uint32_t d = 0; d < n_dims && st == KGRT_STATUS_OK; ++d) {
    uint64_t ne = 0;
    snprintf(what, sizeof what, "ne[%u]", d);
    st = kgrt_gguf_u64(r, &ne, what);
    if (st == KGRT_STATUS_OK && (ne == 0 || ne > INT64_MAX))
      return kgrt_weights_fail(r->w, r->err, KGRT_STATUS_INVALID_ARGUMENT,
                               "GGUF %s ne[%u] is %llu (dims must be 1..INT64_MAX)",
                               r->where, d, (unsigned long long)ne);
    t->file_dims[d] = (int64_t)ne;
    t->shape[n_dims - 1 - d] = (int64_t)ne;
  }
  if (st == KGRT_STATUS_OK)
    st = kgrt_gguf_u32(r, &type, "type");
  if (st == KGRT_STATUS_OK && !kgrt_gguf_dtype(type, &t->dtype))
    return kgrt_weights_fail(r->w, r->err, KGRT_STATUS_UNAVAILABLE,
                             "GGUF %s type %u is not one kgrt reads (f32 0, f16 1, q4_0 "
                             "2, q8_0 8, q4_k 12, q6_k 14, i32 26, bf16 30)",
                             r->where, type);
  if (st == KGRT_STATUS_OK)
    st = kgrt_gguf_u64(r, &t->offset, "offset");
  if (st == KGRT_STATUS_OK && t->offset % alignment != 0)
    return kgrt_weights_fail(r->w, r->err, KGRT_STATUS_INVALID_ARGUMENT,
                             "GGUF %s offset %llu is not a multiple of general.alignment "
                             "%u",
                             r->where, (unsigned long long)t->offset, alignment);
  if (st == KGRT_STATUS_OK)
    st = kgrt_weights_size(r->w, t, r->err);
  return st;
}

kgrt_status_t kgrt_weights_parse_gguf(kgrt_weights_t *w, uint32_t file,
                                      kgrt_error_t *err) {
  kgrt_gguf_reader_t r = {
      .w = w, .base = w->files[file].data, .size = w->files[file].size, .err = err};
  char esc[32];
  uint32_t version, alignment = KGRT_GGUF_DEFAULT_ALIGN;
  uint64_t n_tensors, n_kv;
  kgrt_status_t st = kgrt_gguf_need(&r, 4, "magic");
  if (st != KGRT_STATUS_OK)
    return st;
  if (memcmp(r.base, "GGUF", 4) != 0)
    return kgrt_weights_fail(w, err, KGRT_STATUS_INVALID_ARGUMENT,
                             "GGUF magic is '%s', not 'GGUF'",
                             kgrt_weights_escape(r.base, 4, esc, sizeof esc));
  r.pos = 4;
  st = kgrt_gguf_u32(&r, &version, "version");
  if (st != KGRT_STATUS_OK)
    return st;
  if (version == 0x02000000u || version == 0x03000000u)
    return kgrt_weights_fail(w, err, KGRT_STATUS_UNAVAILABLE,
                             "GGUF version: a big-endian file, kgrt reads little-endian");
  if (version != 2 && version != 3)
    return kgrt_weights_fail(w, err, KGRT_STATUS_UNAVAILABLE,
                             "GGUF version %u is not 2 or 3", version);
  w->version = version;
  st = kgrt_gguf_u64(&r, &n_tensors, "tensor_count");
  if (st == KGRT_STATUS_OK)
    st = kgrt_gguf_u64(&r, &n_kv, "kv_count");
  if (st != KGRT_STATUS_OK)
    return st;
  if (n_kv > kgrt_gguf_left(&r) / KGRT_GGUF_MIN_KV)
    return kgrt_weights_fail(w, err, KGRT_STATUS_INVALID_ARGUMENT,
                             "GGUF kv_count %llu: that many KVs cannot fit the %zu bytes "
                             "left",
                             (unsigned long long)n_kv, kgrt_gguf_left(&r));
  if (n_tensors > kgrt_gguf_left(&r) / KGRT_GGUF_MIN_TENSOR)
    return kgrt_weights_fail(w, err, KGRT_STATUS_INVALID_ARGUMENT,
                             "GGUF tensor_count %llu: that many tensor infos cannot fit "
                             "the %zu bytes left",
                             (unsigned long long)n_tensors, kgrt_gguf_left(&r));
  st = kgrt_weights_reserve(w, n_tensors, n_kv, err);
  for (uint64_t i = 0; i < n_kv && st == KGRT_STATUS_OK; ++i)
    st = kgrt_gguf_kv(&r, i, &alignment);
  if (st != KGRT_STATUS_OK)
    return st;

  /* The infos' offsets are relative until the data section is known. */
  const uint32_t first = w->count;
  for (uint64_t i = 0; i < n_tensors && st == KGRT_STATUS_OK; ++i)
    st = kgrt_gguf_tensor(&r, i, alignment);
  if (st != KGRT_STATUS_OK)
    return st;

  r.where[0] = '\0';
  if (r.pos > SIZE_MAX - (alignment - 1))
    return kgrt_weights_fail(
        w, err, KGRT_STATUS_INVALID_ARGUMENT,
        "GGUF padding: the header end %zu padded to general.alignment "
        "%u wraps around",
        r.pos, alignment);
  const size_t data_start = (r.pos + alignment - 1) / alignment * alignment;
  if (data_start > r.size && n_tensors > 0)
    return kgrt_weights_fail(
        w, err, KGRT_STATUS_INVALID_ARGUMENT,
        "GGUF padding: the data section would start at %zu, past the "
        "end of the file (%zu bytes; truncated?)",
        data_start, r.size);
  const uint64_t data_size = data_start <= r.size ? r.size - data_start : 0;
  for (uint32_t i = first; i < w->count; ++i) {
    kgrt_weight_info_t *t = &w->infos[i];
    const uint64_t rel = t->offset;
    if (rel > data_size || t->bytes > data_size - rel)
      return kgrt_weights_fail(
          w, err, KGRT_STATUS_INVALID_ARGUMENT,
          "GGUF tensor %s offset %llu + %zu bytes is past the end of "
          "the %llu-byte data section (truncated?)",
          t->name, (unsigned long long)rel, t->bytes, (unsigned long long)data_size);
    t->offset = data_start + rel;
    t->data = r.base + t->offset;
    t->file = file;
  }
  return kgrt_weights_check_layout(w, first, data_start, data_size, 0, err);
}
