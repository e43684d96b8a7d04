/* kgrt_weights_st.c - safetensors headers and shard indexes, with a small
 * strict JSON reader of their own (RFC 8259: no comments, no trailing
 * commas, no leading zeros, \u escapes with surrogate pairs, valid UTF-8,
 * nesting at most KGRT_WEIGHTS_JSON_DEPTH deep).
 *
 *   u64 N (little-endian), N bytes of JSON, the byte buffer
 *   { "NAME": {"dtype": "F16", "shape": [2, 3], "data_offsets": [BEGIN, END]},
 *     "__metadata__": {"key": "value", ...}, ... }
 * Offsets are relative to the buffer; the tensors tile it with no hole and no
 * overlap. An index (model.safetensors.index.json) is
 *   { "metadata": {...}, "weight_map": {"NAME": "SHARD.safetensors", ...} }
 * with shards in the index's folder; every tensor of a shard must be mapped
 * to that shard, and every mapped name found in it.
 *
 * Needs kgrt_weights.c. Gives kgrt_weights_parse_safetensors and
 * kgrt_weights_parse_index. */
#include "kgrt_weights_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- JSON ----------------------------------------------------------------- */

typedef struct kgrt_json {
  kgrt_weights_t *w;
  const unsigned char *base, *p, *end;
  const char *what; /* "safetensors header", "index" */
  kgrt_error_t *err;
} kgrt_json_t;

static kgrt_status_t kgrt_json_fail(kgrt_json_t *j, const char *fmt, const char *arg) {
  char msg[200];
  snprintf(msg, sizeof msg, fmt, arg);
  return kgrt_weights_fail(j->w, j->err, KGRT_STATUS_INVALID_ARGUMENT,
                           "%s: JSON byte %zu: %s", j->what, (size_t)(j->p - j->base),
                           msg);
}

static void kgrt_json_ws(kgrt_json_t *j) {
  while (j->p < j->end &&
         (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
    j->p++;
}

/* Skips whitespace and takes `c`. */
static kgrt_status_t kgrt_json_expect(kgrt_json_t *j, char c, const char *field) {
  kgrt_json_ws(j);
  if (j->p >= j->end || *j->p != (unsigned char)c) {
    char what[96];
    snprintf(what, sizeof what, "expected '%c' %s", c, field);
    return kgrt_json_fail(j, "%s", what);
  }
  j->p++;
  return KGRT_STATUS_OK;
}

/* After whitespace, 1 and the byte taken when it is `c`. */
static int kgrt_json_take(kgrt_json_t *j, char c) {
  kgrt_json_ws(j);
  if (j->p < j->end && *j->p == (unsigned char)c) {
    j->p++;
    return 1;
  }
  return 0;
}

static int kgrt_json_hex4(const unsigned char *p, unsigned *out) {
  unsigned v = 0;
  for (int i = 0; i < 4; ++i) {
    unsigned c = p[i], d;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      d = c - 'A' + 10;
    else
      return 0;
    v = v << 4 | d;
  }
  *out = v;
  return 1;
}

/* A string at j->p: checks it and gives its raw span (between the quotes)
 * and its decoded length. */
static kgrt_status_t kgrt_json_string(kgrt_json_t *j, const unsigned char **out_raw,
                                      size_t *out_raw_len, size_t *out_len,
                                      const char *field) {
  kgrt_status_t st = kgrt_json_expect(j, '"', field);
  if (st != KGRT_STATUS_OK)
    return st;
  const unsigned char *s = j->p;
  size_t len = 0;
  while (1) {
    if (j->p >= j->end)
      return kgrt_json_fail(j, "unterminated string (%s)", field);
    unsigned c = *j->p;
    if (c == '"')
      break;
    if (c < 0x20)
      return kgrt_json_fail(j, "control character in a string (%s)", field);
    if (c != '\\') {
      /* one UTF-8 sequence, checked whole */
      size_t n = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : 4;
      if (n > (size_t)(j->end - j->p) || (c >= 0x80 && !kgrt_weights_utf8_ok(j->p, n)))
        return kgrt_json_fail(j, "invalid UTF-8 in a string (%s)", field);
      j->p += n;
      len += n;
      continue;
    }
    if (j->end - j->p < 2)
      return kgrt_json_fail(j, "unterminated string (%s)", field);
    c = j->p[1];
    if (c != 'u') {
      if (strchr("\"\\/bfnrt", (int)c) == NULL || c == 0)
        return kgrt_json_fail(j, "bad escape in a string (%s)", field);
      j->p += 2;
      len += 1;
      continue;
    }
    unsigned cp, lo;
    if (j->end - j->p < 6 || !kgrt_json_hex4(j->p + 2, &cp))
      return kgrt_json_fail(j, "bad \\u escape (%s)", field);
    j->p += 6;
    if (cp >= 0xdc00 && cp <= 0xdfff)
      return kgrt_json_fail(j, "lone low surrogate (%s)", field);
    if (cp >= 0xd800 && cp <= 0xdbff) {
      if (j->end - j->p < 6 || j->p[0] != '\\' || j->p[1] != 'u' ||
          !kgrt_json_hex4(j->p + 2, &lo) || lo < 0xdc00 || lo > 0xdfff)
        return kgrt_json_fail(j, "lone high surrogate (%s)", field);
      j->p += 6;
      cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
    }
    if (cp == 0)
      return kgrt_json_fail(j, "\\u0000 in a string (%s)", field);
    len += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  }
  *out_raw = s;
  *out_raw_len = (size_t)(j->p - s);
  *out_len = len;
  j->p++; /* the closing quote */
  return KGRT_STATUS_OK;
}

/* Decodes a string span checked by kgrt_json_string into out (len bytes). */
static void kgrt_json_decode(const unsigned char *s, size_t n, char *out) {
  size_t o = 0;
  for (size_t i = 0; i < n;) {
    if (s[i] != '\\') {
      out[o++] = (char)s[i++];
      continue;
    }
    char c = (char)s[i + 1];
    if (c != 'u') {
      static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
      out[o++] = to[strchr(from, c) - from];
      i += 2;
      continue;
    }
    unsigned cp, lo;
    kgrt_json_hex4(s + i + 2, &cp);
    i += 6;
    if (cp >= 0xd800 && cp <= 0xdbff) {
      kgrt_json_hex4(s + i + 2, &lo);
      i += 6;
      cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
    }
    if (cp < 0x80) {
      out[o++] = (char)cp;
    } else if (cp < 0x800) {
      out[o++] = (char)(0xc0 | cp >> 6);
      out[o++] = (char)(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      out[o++] = (char)(0xe0 | cp >> 12);
      out[o++] = (char)(0x80 | ((cp >> 6) & 0x3f));
      out[o++] = (char)(0x80 | (cp & 0x3f));
    } else {
      out[o++] = (char)(0xf0 | cp >> 18);
      out[o++] = (char)(0x80 | ((cp >> 12) & 0x3f));
      out[o++] = (char)(0x80 | ((cp >> 6) & 0x3f));
      out[o++] = (char)(0x80 | (cp & 0x3f));
    }
  }
}

/* A string, decoded into the pool (NUL-terminated). */
static kgrt_status_t kgrt_json_string_dup(kgrt_json_t *j, char **out, size_t *out_len,
                                          const char *field) {
  const unsigned char *raw;
  size_t raw_len, len;
  kgrt_status_t st = kgrt_json_string(j, &raw, &raw_len, &len, field);
  if (st != KGRT_STATUS_OK)
    return st;
  *out = kgrt_weights_pool_alloc(j->w, len + 1);
  if (*out == NULL)
    return kgrt_weights_fail(j->w, j->err, KGRT_STATUS_OUT_OF_MEMORY,
                             "out of host memory");
  kgrt_json_decode(raw, raw_len, *out);
  (*out)[len] = '\0';
  if (out_len != NULL)
    *out_len = len;
  return KGRT_STATUS_OK;
}

/* A non-negative integer: digits only, no leading zero, at most UINT64_MAX. */
static kgrt_status_t kgrt_json_uint(kgrt_json_t *j, uint64_t *out, const char *field) {
  kgrt_json_ws(j);
  const unsigned char *s = j->p;
  uint64_t v = 0;
  while (j->p < j->end && *j->p >= '0' && *j->p <= '9') {
    if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, *j->p - '0', &v))
      return kgrt_json_fail(j, "%s: number too large", field);
    j->p++;
  }
  if (j->p == s)
    return kgrt_json_fail(j, "%s: expected a non-negative integer", field);
  if (j->p - s > 1 && s[0] == '0')
    return kgrt_json_fail(j, "%s: number with a leading zero", field);
  if (j->p < j->end && (*j->p == '.' || *j->p == 'e' || *j->p == 'E'))
    return kgrt_json_fail(j, "%s: expected an integer, not a fraction", field);
  *out = v;
  return KGRT_STATUS_OK;
}

static kgrt_status_t kgrt_json_skip(kgrt_json_t *j, int depth);

/* Any number, checked against the grammar. */
static kgrt_status_t kgrt_json_skip_number(kgrt_json_t *j) {
  const unsigned char *e = j->end;
  if (j->p < e && *j->p == '-')
    j->p++;
  if (j->p >= e || *j->p < '0' || *j->p > '9')
    return kgrt_json_fail(j, "%s", "bad number");
  if (*j->p == '0')
    j->p++;
  else
    while (j->p < e && *j->p >= '0' && *j->p <= '9')
      j->p++;
  if (j->p < e && *j->p == '.') {
    j->p++;
    if (j->p >= e || *j->p < '0' || *j->p > '9')
      return kgrt_json_fail(j, "%s", "bad number");
    while (j->p < e && *j->p >= '0' && *j->p <= '9')
      j->p++;
  }
  if (j->p < e && (*j->p == 'e' || *j->p == 'E')) {
    j->p++;
    if (j->p < e && (*j->p == '+' || *j->p == '-'))
      j->p++;
    if (j->p >= e || *j->p < '0' || *j->p > '9')
      return kgrt_json_fail(j, "%s", "bad number");
    while (j->p < e && *j->p >= '0' && *j->p <= '9')
      j->p++;
  }
  return KGRT_STATUS_OK;
}

/* Any value, checked and skipped. */
static kgrt_status_t kgrt_json_skip(kgrt_json_t *j, int depth) {
  kgrt_json_ws(j);
  if (j->p >= j->end)
    return kgrt_json_fail(j, "%s", "expected a value, found the end");
  if (depth > KGRT_WEIGHTS_JSON_DEPTH)
    return kgrt_json_fail(j, "nested deeper than %s levels", "32");
  const unsigned char *raw;
  size_t raw_len, len;
  kgrt_status_t st = KGRT_STATUS_OK;
  switch (*j->p) {
  case '"':
    return kgrt_json_string(j, &raw, &raw_len, &len, "value");
  case '{':
    j->p++;
    if (kgrt_json_take(j, '}'))
      return KGRT_STATUS_OK;
    do {
      st = kgrt_json_string(j, &raw, &raw_len, &len, "key");
      if (st == KGRT_STATUS_OK)
        st = kgrt_json_expect(j, ':', "after a key");
      if (st == KGRT_STATUS_OK)
        st = kgrt_json_skip(j, depth + 1);
    } while (st == KGRT_STATUS_OK && kgrt_json_take(j, ','));
    return st == KGRT_STATUS_OK ? kgrt_json_expect(j, '}', "to close an object") : st;
  case '[':
    j->p++;
    if (kgrt_json_take(j, ']'))
      return KGRT_STATUS_OK;
    do
      st = kgrt_json_skip(j, depth + 1);
    while (st == KGRT_STATUS_OK && kgrt_json_take(j, ','));
    return st == KGRT_STATUS_OK ? kgrt_json_expect(j, ']', "to close an array") : st;
  }
  static const char *const words[] = {"true", "false", "null"};
  for (int i = 0; i < 3; ++i) {
    size_t n = strlen(words[i]);
    if ((size_t)(j->end - j->p) >= n && memcmp(j->p, words[i], n) == 0) {
      j->p += n;
      return KGRT_STATUS_OK;
    }
  }
  return kgrt_json_skip_number(j);
}

/* ---- safetensors ---------------------------------------------------------- */

static int kgrt_st_dtype(const char *s, kgrt_dtype_t *out) {
  static const struct {
    const char *name;
    kgrt_dtype_t dtype;
  } dtypes[] = {{"F32", KGRT_DTYPE_F32},
                {"F16", KGRT_DTYPE_F16},
                {"BF16", KGRT_DTYPE_BF16},
                {"I32", KGRT_DTYPE_I32}};
  for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; ++i)
    if (strcmp(s, dtypes[i].name) == 0) {
      *out = dtypes[i].dtype;
      return 1;
    }
  return 0;
}

/* {"dtype": ..., "shape": [...], "data_offsets": [b, e]} of tensor t. */
static kgrt_status_t kgrt_st_tensor(kgrt_json_t *j, kgrt_weight_info_t *t,
                                    uint64_t offsets[2]) {
  int seen[3] = {0, 0, 0};
  char field[KGRT_WEIGHTS_NAME_MAX + 32];
  snprintf(field, sizeof field, "for tensor %s", t->name);
  kgrt_status_t st = kgrt_json_expect(j, '{', field);
  if (st == KGRT_STATUS_OK && kgrt_json_take(j, '}'))
    st = kgrt_json_fail(j, "tensor %s: empty object", t->name);
  while (st == KGRT_STATUS_OK) {
    char *key, *dtype;
    st = kgrt_json_string_dup(j, &key, NULL, "tensor field");
    if (st == KGRT_STATUS_OK)
      st = kgrt_json_expect(j, ':', "after a key");
    if (st != KGRT_STATUS_OK)
      break;
    int which = strcmp(key, "dtype") == 0          ? 0
                : strcmp(key, "shape") == 0        ? 1
                : strcmp(key, "data_offsets") == 0 ? 2
                                                   : -1;
    if (which < 0 || seen[which]) {
      char esc[64];
      kgrt_weights_escape(key, strlen(key), esc, sizeof esc);
      return kgrt_weights_fail(j->w, j->err, KGRT_STATUS_INVALID_ARGUMENT,
                               "%s: tensor %s: %s field '%s'", j->what, t->name,
                               which < 0 ? "unknown" : "repeated", esc);
    }
    seen[which] = 1;
    if (which == 0) {
      st = kgrt_json_string_dup(j, &dtype, NULL, "dtype");
      if (st == KGRT_STATUS_OK && !kgrt_st_dtype(dtype, &t->dtype)) {
        char esc[64];
        return kgrt_weights_fail(
            j->w, j->err, KGRT_STATUS_UNAVAILABLE,
            "%s: tensor %s: dtype %s is not one kgrt reads (F32, "
            "F16, BF16, I32)",
            j->what, t->name, kgrt_weights_escape(dtype, strlen(dtype), esc, sizeof esc));
      }
    } else if (which == 1) {
      st = kgrt_json_expect(j, '[', "to open shape");
      if (st == KGRT_STATUS_OK && !kgrt_json_take(j, ']')) {
        do {
          uint64_t d = 0;
          if (t->ndim == KGRT_WEIGHTS_MAX_DIMS)
            return kgrt_weights_fail(j->w, j->err, KGRT_STATUS_INVALID_ARGUMENT,
                                     "%s: tensor %s: shape has more than %d dims",
                                     j->what, t->name, KGRT_WEIGHTS_MAX_DIMS);
          st = kgrt_json_uint(j, &d, "shape");
          if (st == KGRT_STATUS_OK && d > INT64_MAX)
            st = kgrt_json_fail(j, "%s", "shape: dim above INT64_MAX");
          t->shape[t->ndim] = t->file_dims[t->ndim] = (int64_t)d;
          t->ndim++;
        } while (st == KGRT_STATUS_OK && kgrt_json_take(j, ','));
        if (st == KGRT_STATUS_OK)
          st = kgrt_json_expect(j, ']', "to close shape");
      }
    } else {
      st = kgrt_json_expect(j, '[', "to open data_offsets");
      if (st == KGRT_STATUS_OK)
        st = kgrt_json_uint(j, &offsets[0], "data_offsets");
      if (st == KGRT_STATUS_OK)
        st = kgrt_json_expect(j, ',', "in data_offsets (two numbers)");
      if (st == KGRT_STATUS_OK)
        st = kgrt_json_uint(j, &offsets[1], "data_offsets");
      if (st == KGRT_STATUS_OK)
        st = kgrt_json_expect(j, ']', "to close data_offsets (two numbers)");
    }
    if (st != KGRT_STATUS_OK || !kgrt_json_take(j, ','))
      break;
  }
  if (st == KGRT_STATUS_OK)
    st = kgrt_json_expect(j, '}', "to close a tensor");
  if (st == KGRT_STATUS_OK && !(seen[0] && seen[1] && seen[2]))
    return kgrt_weights_fail(j->w, j->err, KGRT_STATUS_INVALID_ARGUMENT,
                             "%s: tensor %s: missing %s", j->what, t->name,
                             !seen[0]   ? "dtype"
                             : !seen[1] ? "shape"
                                        : "data_offsets");
  return st;
}

/* "__metadata__": {"key": "value", ...}. Shards of one index may repeat a
 * key with the same value (kept once); another value is an error. */
static kgrt_status_t kgrt_st_metadata(kgrt_json_t *j, int shard) {
  kgrt_status_t st = kgrt_json_expect(j, '{', "to open __metadata__");
  if (st != KGRT_STATUS_OK || kgrt_json_take(j, '}'))
    return st;
  do {
    char *key = NULL, *value = NULL;
    size_t key_len = 0, value_len = 0;
    st = kgrt_json_string_dup(j, &key, &key_len, "__metadata__ key");
    if (st == KGRT_STATUS_OK && !kgrt_weights_utf8_ok((unsigned char *)key, key_len))
      st = kgrt_json_fail(j, "%s", "__metadata__ key is not printable");
    if (st == KGRT_STATUS_OK)
      st = kgrt_json_expect(j, ':', "after a key");
    kgrt_json_ws(j);
    if (st == KGRT_STATUS_OK && (j->p >= j->end || *j->p != '"'))
      st = kgrt_json_fail(j, "__metadata__ %s: values must be strings", key);
    if (st == KGRT_STATUS_OK)
      st = kgrt_json_string_dup(j, &value, &value_len, "__metadata__ value");
    if (st != KGRT_STATUS_OK)
      break;
    const kgrt_meta_kv_t *same = NULL;
    for (uint64_t i = 0; shard && i < j->w->num_kv && same == NULL; ++i)
      if (strcmp(j->w->kvs[i].key, key) == 0)
        same = &j->w->kvs[i];
    if (same != NULL) {
      if (same->len != value_len || memcmp(same->value, value, value_len) != 0)
        return kgrt_weights_fail(j->w, j->err, KGRT_STATUS_INVALID_ARGUMENT,
                                 "%s: __metadata__ %s differs from an earlier shard's",
                                 j->what, key);
      continue;
    }
    kgrt_meta_kv_t *kv = kgrt_weights_add_kv(j->w, j->err);
    if (kv == NULL)
      return j->err != NULL ? j->err->status : KGRT_STATUS_OUT_OF_MEMORY;
    kv->key = key;
    kv->type = KGRT_META_STRING;
    kv->value = (const unsigned char *)value;
    kv->len = value_len;
  } while (kgrt_json_take(j, ','));
  return st == KGRT_STATUS_OK ? kgrt_json_expect(j, '}', "to close __metadata__") : st;
}

kgrt_status_t kgrt_weights_parse_safetensors(kgrt_weights_t *w, uint32_t file,
                                             kgrt_error_t *err) {
  const unsigned char *base = w->files[file].data;
  const size_t size = w->files[file].size;
  if (size < 8)
    return kgrt_weights_fail(w, err, KGRT_STATUS_INVALID_ARGUMENT,
                             "safetensors header length: the file has %zu bytes, not 8",
                             size);
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i)
    n = n << 8 | base[i];
  if (n > size - 8 || n > KGRT_WEIGHTS_MAX_HEADER || n < 2)
    return kgrt_weights_fail(w, err, KGRT_STATUS_INVALID_ARGUMENT,
                             "safetensors header length %llu is past the end of the file "
                             "(%zu bytes), above %u, or below 2",
                             (unsigned long long)n, size, KGRT_WEIGHTS_MAX_HEADER);
  kgrt_json_t j = {w, base + 8, base + 8, base + 8 + n, "safetensors header", err};
  const uint64_t data_start = 8 + n, data_size = size - data_start;
  const uint32_t first = w->count;
  kgrt_status_t st = kgrt_json_expect(&j, '{', "to open the header");
  if (st == KGRT_STATUS_OK && !kgrt_json_take(&j, '}')) {
    int seen_meta = 0;
    do {
      const unsigned char *raw;
      size_t raw_len, len;
      st = kgrt_json_string(&j, &raw, &raw_len, &len, "tensor name");
      if (st == KGRT_STATUS_OK)
        st = kgrt_json_expect(&j, ':', "after a tensor name");
      if (st != KGRT_STATUS_OK)
        break;
      if (raw_len == 12 && memcmp(raw, "__metadata__", 12) == 0) {
        if (seen_meta++)
          return kgrt_weights_fail(w, err, KGRT_STATUS_INVALID_ARGUMENT,
                                   "safetensors header: __metadata__ appears twice");
        st = kgrt_st_metadata(&j, file > 0);
        continue;
      }
      char *name = kgrt_weights_pool_alloc(w, len + 1);
      if (name == NULL)
        return kgrt_weights_fail(w, err, KGRT_STATUS_OUT_OF_MEMORY, "out of host memory");
      kgrt_json_decode(raw, raw_len, name);
      kgrt_weight_info_t *t = kgrt_weights_add_info(w, err);
      if (t == NULL)
        return err != NULL ? err->status : KGRT_STATUS_OUT_OF_MEMORY;
      char what[64];
      snprintf(what, sizeof what, "safetensors tensor %u", w->count - 1 - first);
      st = kgrt_weights_take_name(w, (const unsigned char *)name, len, what, &t->name,
                                  err);
      uint64_t off[2] = {0, 0};
      if (st == KGRT_STATUS_OK)
        st = kgrt_st_tensor(&j, t, off);
      if (st == KGRT_STATUS_OK)
        st = kgrt_weights_size(w, t, err);
      if (st != KGRT_STATUS_OK)
        break;
      if (off[0] > off[1] || off[1] > data_size)
        return kgrt_weights_fail(w, err, KGRT_STATUS_INVALID_ARGUMENT,
                                 "safetensors tensor %s: data_offsets [%llu, %llu) are "
                                 "reversed or past the end of the %llu-byte buffer",
                                 t->name, (unsigned long long)off[0],
                                 (unsigned long long)off[1],
                                 (unsigned long long)data_size);
      if (off[1] - off[0] != t->bytes)
        return kgrt_weights_fail(w, err, KGRT_STATUS_INVALID_ARGUMENT,
                                 "safetensors tensor %s: data_offsets [%llu, %llu) hold "
                                 "%llu bytes but dtype %s x shape is %zu",
                                 t->name, (unsigned long long)off[0],
                                 (unsigned long long)off[1],
                                 (unsigned long long)(off[1] - off[0]),
                                 kgrt_weights_dtype_name(t->dtype), t->bytes);
      t->offset = data_start + off[0];
      t->data = base + t->offset;
      t->file = file;
    } while (st == KGRT_STATUS_OK && kgrt_json_take(&j, ','));
    if (st == KGRT_STATUS_OK)
      st = kgrt_json_expect(&j, '}', "to close the header");
  }
  if (st != KGRT_STATUS_OK)
    return st;
  kgrt_json_ws(&j);
  if (j.p != j.end)
    return kgrt_json_fail(&j, "%s", "bytes after the header's closing '}'");
  return kgrt_weights_check_layout(w, first, data_start, data_size, 1, err);
}

/* ---- index of shards ------------------------------------------------------ */

typedef struct kgrt_st_entry {
  const char *name;
  uint32_t shard;
} kgrt_st_entry_t;

static int kgrt_st_cmp_entry(const void *a, const void *b) {
  return strcmp(((const kgrt_st_entry_t *)a)->name, ((const kgrt_st_entry_t *)b)->name);
}

/* A shard name: a file in the index's folder. */
static int kgrt_st_shard_ok(const char *s, size_t n) {
  return n > 0 && n <= KGRT_WEIGHTS_NAME_MAX && s[0] != '.' &&
         memchr(s, '/', n) == NULL && memchr(s, '\\', n) == NULL &&
         kgrt_weights_utf8_ok((const unsigned char *)s, n);
}

kgrt_status_t kgrt_weights_parse_index(kgrt_weights_t *w, const char *dir,
                                       kgrt_error_t *err) {
  const kgrt_weights_file_t *f = &w->files[0];
  if (f->size > KGRT_WEIGHTS_MAX_HEADER)
    return kgrt_weights_fail(w, err, KGRT_STATUS_INVALID_ARGUMENT,
                             "index: %zu bytes is above %u", f->size,
                             KGRT_WEIGHTS_MAX_HEADER);
  kgrt_json_t j = {w, f->data, f->data, f->data + f->size, "index", err};
  kgrt_st_entry_t *entries = NULL;
  const char **shards = NULL;
  uint64_t num = 0, cap = 0, num_shards = 0;
  int seen_map = 0;
  kgrt_status_t st = kgrt_json_expect(&j, '{', "to open the index");
  if (st == KGRT_STATUS_OK && !kgrt_json_take(&j, '}')) {
    do {
      char *key;
      st = kgrt_json_string_dup(&j, &key, NULL, "key");
      if (st == KGRT_STATUS_OK)
        st = kgrt_json_expect(&j, ':', "after a key");
      if (st != KGRT_STATUS_OK)
        break;
      if (strcmp(key, "weight_map") != 0) {
        st = kgrt_json_skip(&j, 1);
        continue;
      }
      if (seen_map++) {
        st = kgrt_weights_fail(w, err, KGRT_STATUS_INVALID_ARGUMENT,
                               "index: weight_map appears twice");
        break;
      }
      st = kgrt_json_expect(&j, '{', "to open weight_map");
      if (st != KGRT_STATUS_OK || kgrt_json_take(&j, '}'))
        continue;
      do {
        char *name, *shard;
        size_t name_len, shard_len;
        st = kgrt_json_string_dup(&j, &name, &name_len, "weight_map name");
        if (st == KGRT_STATUS_OK)
          st = kgrt_json_expect(&j, ':', "after a name");
        if (st == KGRT_STATUS_OK)
          st = kgrt_json_string_dup(&j, &shard, &shard_len, "weight_map shard");
        if (st != KGRT_STATUS_OK)
          break;
        char esc[96];
        if (!kgrt_st_shard_ok(shard, shard_len)) {
          st = kgrt_weights_fail(w, err, KGRT_STATUS_INVALID_ARGUMENT,
                                 "index: weight_map %s: shard '%s' is not a file name in "
                                 "the index's folder",
                                 kgrt_weights_escape(name, name_len, esc, sizeof esc),
                                 kgrt_weights_escape(shard, shard_len, esc + 48, 48));
          break;
        }
        if (num == cap) {
          uint64_t ncap = cap ? cap * 2 : 64;
          kgrt_st_entry_t *p =
              ncap > KGRT_WEIGHTS_MAX_TENSORS
                  ? NULL
                  : kgrt_calloc(&w->alloc, (size_t)ncap, sizeof *entries);
          if (p == NULL) {
            st = kgrt_weights_fail(w, err, KGRT_STATUS_OUT_OF_MEMORY,
                                   "index: out of host memory or too many names");
            break;
          }
          if (entries != NULL)
            memcpy(p, entries, (size_t)num * sizeof *entries);
          kgrt_free(&w->alloc, entries);
          entries = p;
          cap = ncap;
        }
        /* shards in order of first use: a linear search, a few hundred at most */
        uint64_t s = 0;
        while (s < num_shards && strcmp(shards[s], shard) != 0)
          s++;
        if (s == num_shards) {
          if (num_shards % 64 == 0) {
            const char **p =
                num_shards + 64 > KGRT_WEIGHTS_MAX_FILES
                    ? NULL
                    : kgrt_calloc(&w->alloc, (size_t)num_shards + 64, sizeof *shards);
            if (p == NULL) {
              st = kgrt_weights_fail(w, err, KGRT_STATUS_OUT_OF_MEMORY,
                                     "index: out of host memory or more than %d shards",
                                     KGRT_WEIGHTS_MAX_FILES - 64);
              break;
            }
            if (shards != NULL)
              memcpy(p, shards, (size_t)num_shards * sizeof *shards);
            kgrt_free(&w->alloc, shards);
            shards = p;
          }
          shards[num_shards++] = shard;
        }
        entries[num].name = name;
        entries[num].shard = (uint32_t)s;
        num++;
      } while (kgrt_json_take(&j, ','));
      if (st == KGRT_STATUS_OK)
        st = kgrt_json_expect(&j, '}', "to close weight_map");
    } while (st == KGRT_STATUS_OK && kgrt_json_take(&j, ','));
    if (st == KGRT_STATUS_OK)
      st = kgrt_json_expect(&j, '}', "to close the index");
  }
  if (st == KGRT_STATUS_OK) {
    kgrt_json_ws(&j);
    if (j.p != j.end)
      st = kgrt_json_fail(&j, "%s", "bytes after the index's closing '}'");
  }
  if (st == KGRT_STATUS_OK && num == 0)
    st = kgrt_weights_fail(w, err, KGRT_STATUS_INVALID_ARGUMENT,
                           "index: no weight_map, or an empty one");
  if (st == KGRT_STATUS_OK) {
    qsort(entries, (size_t)num, sizeof *entries, kgrt_st_cmp_entry);
    for (uint64_t i = 1; i < num && st == KGRT_STATUS_OK; ++i)
      if (strcmp(entries[i - 1].name, entries[i].name) == 0) {
        char esc[96];
        st = kgrt_weights_fail(
            w, err, KGRT_STATUS_INVALID_ARGUMENT, "index: weight_map names %s twice",
            kgrt_weights_escape(entries[i].name, strlen(entries[i].name), esc,
                                sizeof esc));
      }
  }
  /* Each shard: mapped, parsed, and its tensors matched to the map. */
  for (uint64_t s = 0; s < num_shards && st == KGRT_STATUS_OK; ++s) {
    const size_t dir_len = strlen(dir), shard_len = strlen(shards[s]);
    char *path = kgrt_weights_pool_alloc(w, dir_len + shard_len + 1);
    uint32_t file;
    if (path == NULL) {
      st = kgrt_weights_fail(w, err, KGRT_STATUS_OUT_OF_MEMORY, "out of host memory");
      break;
    }
    memcpy(path, dir, dir_len);
    memcpy(path + dir_len, shards[s], shard_len + 1);
    const uint32_t first = w->count;
    st = kgrt_weights_map_file(w, path, &file, err);
    if (st == KGRT_STATUS_OK)
      st = kgrt_weights_parse_safetensors(w, file, err);
    for (uint32_t i = first; i < w->count && st == KGRT_STATUS_OK; ++i) {
      kgrt_st_entry_t key = {w->infos[i].name, 0};
      w->infos[i].file = (uint32_t)s;
      const kgrt_st_entry_t *e =
          bsearch(&key, entries, (size_t)num, sizeof *entries, kgrt_st_cmp_entry);
      if (e == NULL || e->shard != s)
        st = kgrt_weights_fail(w, err, KGRT_STATUS_INVALID_ARGUMENT,
                               "index: tensor %s is in shard %s but weight_map %s",
                               w->infos[i].name, shards[s],
                               e == NULL ? "does not name it" : "puts it in another");
    }
  }
  /* Every mapped name found: the counts agree and no shard tensor was unmapped. */
  if (st == KGRT_STATUS_OK && w->count != num)
    st = kgrt_weights_fail(w, err, KGRT_STATUS_INVALID_ARGUMENT,
                           "index: weight_map names %llu tensors, the shards hold %u",
                           (unsigned long long)num, w->count);
  kgrt_free(&w->alloc, entries);
  kgrt_free(&w->alloc, shards);
  return st;
}
