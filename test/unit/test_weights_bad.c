/* test_weights_bad.c - malformed weight files, each refused with its status
 * and a message that names the file and the field, none read out of bounds
 * (this test also runs as test_weights_bad_asan under ASan and UBSan, and
 * every file is opened from a heap copy of exactly its size, so a read past
 * the end is caught):
 *   - GGUF: every header field corrupted in turn, truncations at every
 *     section boundary, and one file per known attack class (oversized
 *     counts, string and array lengths, element-count and byte-size
 *     overflow, zero and too many dims, bad alignment, offset and padding
 *     wrap-around, overlap, duplicates, unknown types);
 *   - safetensors: header length past the file, bad JSON (unterminated
 *     strings, deep nesting, huge numbers, bad escapes), offsets past the
 *     end, begin > end, dtype x shape mismatch, overlap, holes;
 *   - shard indexes;
 *   - sweeps: every truncation of a valid file, and every header byte
 *     replaced by four values, each refused or accepted cleanly.
 *
 * Usage: test_weights_bad WORK_DIR (files for the mapped-path cases). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kgrt_weights.h"
#include "test.h"
#include "weights_writer.h"

static const char *g_dir;
static int g_cases;

static const char *path_in(const char *name) {
  static char buf[1024];
  snprintf(buf, sizeof buf, "%s/%s", g_dir, name);
  return buf;
}

/* kgrt_status_name without kgrt.c, which the sanitizer build leaves out. */
static const char *status_name(kgrt_status_t st) {
  switch (st) {
  case KGRT_STATUS_OK:
    return "OK";
  case KGRT_STATUS_INVALID_ARGUMENT:
    return "INVALID_ARGUMENT";
  case KGRT_STATUS_UNAVAILABLE:
    return "UNAVAILABLE";
  case KGRT_STATUS_NOT_FOUND:
    return "NOT_FOUND";
  case KGRT_STATUS_OUT_OF_RANGE:
    return "OUT_OF_RANGE";
  case KGRT_STATUS_OUT_OF_MEMORY:
    return "OUT_OF_MEMORY";
  default:
    return "other";
  }
}

/* A message fit to print: it names the file and holds no control bytes. */
static int message_ok(const char *m, const char *label) {
  if (strncmp(m, "weights ", 8) != 0 || strstr(m, label) == NULL)
    return 0;
  for (const unsigned char *p = (const unsigned char *)m; *p; ++p)
    if (*p < 0x20 || *p == 0x7f)
      return 0;
  return 1;
}

/* Opens bytes[0..n) from an exact-size heap copy; returns the status. */
static kgrt_status_t open_copy(const void *bytes, size_t n, kgrt_weights_format_t format,
                               const char *label, kgrt_error_t *err) {
  unsigned char *copy = malloc(n ? n : 1);
  if (n > 0)
    memcpy(copy, bytes, n);
  kgrt_weights_t *w = NULL;
  kgrt_status_t st = kgrt_weights_open_memory(copy, n, format, label, NULL, &w, err);
  CHECK(st == KGRT_STATUS_OK ? w != NULL : w == NULL);
  kgrt_weights_close(w);
  free(copy);
  return st;
}

/* One case: refused with `status`, the message naming `field` and the file,
 * from memory (as `format`) and from a mapped file alike (told by its
 * content: skipped for a GGUF case whose magic is broken). */
static void expect_bad_as(const char *what, const ww_buf_t *b,
                          kgrt_weights_format_t format, kgrt_status_t status,
                          const char *field) {
  kgrt_error_t err;
  g_cases++;
  kgrt_status_t st = open_copy(b->p, b->len, format, "bad.bin", &err);
  int ok = st == status && message_ok(err.message, "bad.bin") &&
           (field == NULL || strstr(err.message, field) != NULL);
  if (!ok)
    fprintf(stderr, "case '%s': want %s with '%s', got %s: %s\n", what,
            status_name(status), field ? field : "", status_name(st), err.message);
  CHECK(ok);
  /* the mapped path: the same answer (an empty file is refused before) */
  if (b->len > 0 && (format != KGRT_WEIGHTS_FORMAT_GGUF ||
                     (b->len >= 4 && memcmp(b->p, "GGUF", 4) == 0))) {
    const char *path = path_in("bad.bin");
    kgrt_weights_t *w = NULL;
    CHECK_EQ(ww_write_file(path, b->p, b->len), 0);
    CHECK_EQ(kgrt_weights_open(path, NULL, &w, &err), status);
    CHECK(w == NULL);
    kgrt_weights_close(w);
  }
}

static void expect_bad(const char *what, const ww_buf_t *b, kgrt_status_t status,
                       const char *field) {
  expect_bad_as(what, b, KGRT_WEIGHTS_FORMAT_AUTO, status, field);
}

/* ---- GGUF ----------------------------------------------------------------- */

static const char *const base_tokens[] = {"a", "bb", "ccc"};
static float base_f32[16], base_f16_src[16], base_q8_src[64];
static void *base_f16, *base_q8;
static size_t base_f16_bytes, base_q8_bytes;

/* The valid file every GGUF case starts from: 4 KVs (a string, a string
 * array, a u32 array, a bool) and 3 tensors (f32 [2, 8], q8_0 [2, 32],
 * f16 [16]). extra_kv: a hook to add KVs first. */
static void base_gguf(ww_buf_t *out, ww_gguf_layout_t *l, uint32_t version,
                      void (*extra)(ww_gguf_t *g)) {
  ww_gguf_t g;
  ww_gguf_init(&g, version, 32);
  if (extra != NULL)
    extra(&g);
  ww_gguf_kv_str(&g, "general.architecture", "llama");
  ww_gguf_kv_strs(&g, "tokenizer.ggml.tokens", base_tokens, 3);
  const int32_t ids[] = {1, 2, 3, 4};
  ww_gguf_kv_i32s(&g, "test.ids", ids, 4);
  ww_gguf_kv_bool(&g, "test.flag", 1);
  const uint64_t ne0[] = {8, 2}, ne1[] = {32, 2}, ne2[] = {16};
  ww_gguf_tensor(&g, "a.weight", WW_GGML_F32, 2, ne0, base_f32, sizeof base_f32);
  ww_gguf_tensor(&g, "b.weight", WW_GGML_Q8_0, 2, ne1, base_q8, base_q8_bytes);
  ww_gguf_tensor(&g, "c.weight", WW_GGML_F16, 1, ne2, base_f16, base_f16_bytes);
  memset(out, 0, sizeof *out);
  CHECK_EQ(ww_gguf_finish(&g, out, l), 0);
  ww_gguf_free(&g);
}

/* KV indexes in the base file (with no extra KVs). */
enum { KV_ARCH, KV_TOKENS, KV_IDS, KV_FLAG };

static size_t kv_value_at(const ww_gguf_layout_t *l, int kv) {
  return l->kv_type_at[kv] + 4;
}
static size_t ne_at(const ww_gguf_layout_t *l, int t, int d) {
  return l->n_dims_at[t] + 4 + 8 * (size_t)d;
}
static size_t offset_at(const ww_gguf_layout_t *l, int t) {
  return l->type_at[t] + 4;
}

typedef struct patch_case {
  const char *what;
  int field; /* which patch */
  uint64_t value;
  kgrt_status_t status;
  const char *message;
} patch_case_t;

enum {
  P_VERSION,
  P_TENSOR_COUNT,
  P_KV_COUNT,
  P_KEY_LEN,    /* of KV 0 */
  P_VALUE_TYPE, /* of KV 0 */
  P_STRING_LEN, /* KV 0's value length */
  P_ARRAY_TYPE, /* of KV_IDS */
  P_ARRAY_LEN,  /* of KV_IDS */
  P_STRS_LEN,   /* count of KV_TOKENS */
  P_STR_ELEM,   /* length of KV_TOKENS' first string */
  P_BOOL,       /* KV_FLAG's byte */
  P_NAME_LEN,   /* tensor 0's name length */
  P_N_DIMS,     /* tensor 0 */
  P_NE0,        /* tensor 0 ne[0] */
  P_NE1,        /* tensor 0 ne[1] */
  P_NE01,       /* tensor 0 ne[0] and ne[1] both */
  P_TYPE0,      /* tensor 0 type */
  P_TYPE1_NE0,  /* tensor 1 (q8_0) ne[0] */
  P_OFFSET0,    /* tensor 0 offset */
  P_OFFSET1,    /* tensor 1 offset */
  P_OFFSET2,    /* tensor 2 offset */
  P_TRUNCATE,   /* the file cut to `value` bytes (when below its size) */
  P_TRUNC_DATA, /* cut to data_start + value */
};

static const patch_case_t patch_cases[] = {
    {"version 1", P_VERSION, 1, KGRT_STATUS_UNAVAILABLE, "version 1"},
    {"version 4", P_VERSION, 4, KGRT_STATUS_UNAVAILABLE, "version 4"},
    {"version 0", P_VERSION, 0, KGRT_STATUS_UNAVAILABLE, "version 0"},
    {"big-endian version", P_VERSION, 0x03000000, KGRT_STATUS_UNAVAILABLE, "big-endian"},
    {"tensor_count UINT64_MAX", P_TENSOR_COUNT, UINT64_MAX, KGRT_STATUS_INVALID_ARGUMENT,
     "tensor_count"},
    {"tensor_count 2^60", P_TENSOR_COUNT, 1ull << 60, KGRT_STATUS_INVALID_ARGUMENT,
     "tensor_count"},
    {"tensor_count + 1", P_TENSOR_COUNT, 4, KGRT_STATUS_INVALID_ARGUMENT, "tensor 3"},
    {"kv_count UINT64_MAX", P_KV_COUNT, UINT64_MAX, KGRT_STATUS_INVALID_ARGUMENT,
     "kv_count"},
    {"kv_count 2^40", P_KV_COUNT, 1ull << 40, KGRT_STATUS_INVALID_ARGUMENT, "kv_count"},
    {"key length UINT64_MAX", P_KEY_LEN, UINT64_MAX, KGRT_STATUS_INVALID_ARGUMENT,
     "KV 0 key"},
    {"key length past the end", P_KEY_LEN, 1ull << 20, KGRT_STATUS_INVALID_ARGUMENT,
     "KV 0 key"},
    {"key length 0", P_KEY_LEN, 0, KGRT_STATUS_INVALID_ARGUMENT, "KV 0 key"},
    {"value_type 13", P_VALUE_TYPE, 13, KGRT_STATUS_INVALID_ARGUMENT, "value_type 13"},
    {"value_type UINT32_MAX", P_VALUE_TYPE, UINT32_MAX, KGRT_STATUS_INVALID_ARGUMENT,
     "value_type"},
    {"string length UINT64_MAX (CVE-2024-21802)", P_STRING_LEN, UINT64_MAX,
     KGRT_STATUS_INVALID_ARGUMENT, "value: needs 18446744073709551615 bytes"},
    {"string length past the end", P_STRING_LEN, 100000, KGRT_STATUS_INVALID_ARGUMENT,
     "general.architecture) value"},
    {"array of arrays", P_ARRAY_TYPE, 9, KGRT_STATUS_INVALID_ARGUMENT,
     "arrays of arrays"},
    {"array type 13", P_ARRAY_TYPE, 13, KGRT_STATUS_INVALID_ARGUMENT, "array type 13"},
    {"array length UINT64_MAX (CVE-2024-21836)", P_ARRAY_LEN, UINT64_MAX,
     KGRT_STATUS_INVALID_ARGUMENT, "array length"},
    {"array length * 4 wraps to 0", P_ARRAY_LEN, 1ull << 62, KGRT_STATUS_INVALID_ARGUMENT,
     "array length"},
    {"array length past the end", P_ARRAY_LEN, 1000, KGRT_STATUS_INVALID_ARGUMENT,
     "array length"},
    {"string array length UINT64_MAX (CVE-2024-21825)", P_STRS_LEN, UINT64_MAX,
     KGRT_STATUS_INVALID_ARGUMENT, "array length"},
    {"string array length 2^61 (8-byte strings wrap)", P_STRS_LEN, 1ull << 61,
     KGRT_STATUS_INVALID_ARGUMENT, "array length"},
    {"string array element length UINT64_MAX (CVE-2024-23496)", P_STR_ELEM, UINT64_MAX,
     KGRT_STATUS_INVALID_ARGUMENT, "array element"},
    {"bool 2", P_BOOL, 2, KGRT_STATUS_INVALID_ARGUMENT, "bool"},
    {"tensor name length UINT64_MAX (CVE-2024-23605)", P_NAME_LEN, UINT64_MAX,
     KGRT_STATUS_INVALID_ARGUMENT, "tensor 0 name"},
    {"tensor name length 0", P_NAME_LEN, 0, KGRT_STATUS_INVALID_ARGUMENT, "empty name"},
    {"n_dims 0", P_N_DIMS, 0, KGRT_STATUS_INVALID_ARGUMENT, "n_dims 0"},
    {"n_dims 5", P_N_DIMS, 5, KGRT_STATUS_INVALID_ARGUMENT, "n_dims 5"},
    {"n_dims UINT32_MAX", P_N_DIMS, UINT32_MAX, KGRT_STATUS_INVALID_ARGUMENT, "n_dims"},
    {"ne[0] 0", P_NE0, 0, KGRT_STATUS_INVALID_ARGUMENT, "ne[0] is 0"},
    {"ne[1] 0", P_NE1, 0, KGRT_STATUS_INVALID_ARGUMENT, "ne[1] is 0"},
    {"ne[0] above INT64_MAX", P_NE0, 1ull << 63, KGRT_STATUS_INVALID_ARGUMENT, "ne[0]"},
    {"element count overflow", P_NE01, 1ull << 32, KGRT_STATUS_OUT_OF_RANGE,
     "element count overflows"},
    {"byte size overflow", P_NE0, 1ull << 61, KGRT_STATUS_OUT_OF_RANGE,
     "byte size overflows"},
    {"q8_0 row of 33", P_TYPE1_NE0, 33, KGRT_STATUS_INVALID_ARGUMENT, "multiple"},
    {"q8_0 row of 16", P_TYPE1_NE0, 16, KGRT_STATUS_INVALID_ARGUMENT, "multiple"},
    {"unknown type 3 (q4_1)", P_TYPE0, 3, KGRT_STATUS_UNAVAILABLE, "type 3"},
    {"unknown type 39", P_TYPE0, 39, KGRT_STATUS_UNAVAILABLE, "type 39"},
    {"type UINT32_MAX", P_TYPE0, UINT32_MAX, KGRT_STATUS_UNAVAILABLE, "type 4294967295"},
    {"offset not aligned", P_OFFSET1, 65, KGRT_STATUS_INVALID_ARGUMENT,
     "not a multiple of general.alignment"},
    {"offset past the data", P_OFFSET2, 1ull << 20, KGRT_STATUS_INVALID_ARGUMENT,
     "past the end"},
    {"offset + size wraps around", P_OFFSET2, UINT64_MAX - 31,
     KGRT_STATUS_INVALID_ARGUMENT, "past the end"},
    {"overlap: same offset", P_OFFSET1, 0, KGRT_STATUS_INVALID_ARGUMENT, "overlap"},
    {"overlap: inside the previous", P_OFFSET2, 96 + 32, KGRT_STATUS_INVALID_ARGUMENT,
     "overlap"},
    {"overlap: first onto second", P_OFFSET0, 64 + 32, KGRT_STATUS_INVALID_ARGUMENT,
     "overlap"},
    {"truncated: empty", P_TRUNCATE, 0, KGRT_STATUS_INVALID_ARGUMENT, "magic"},
    {"truncated: 3 bytes", P_TRUNCATE, 3, KGRT_STATUS_INVALID_ARGUMENT, "magic"},
    {"truncated: in version", P_TRUNCATE, 6, KGRT_STATUS_INVALID_ARGUMENT, "version"},
    {"truncated: after version", P_TRUNCATE, 8, KGRT_STATUS_INVALID_ARGUMENT,
     "tensor_count"},
    {"truncated: after tensor_count", P_TRUNCATE, 16, KGRT_STATUS_INVALID_ARGUMENT,
     "kv_count"},
    {"truncated: after kv_count", P_TRUNCATE, 24, KGRT_STATUS_INVALID_ARGUMENT,
     "kv_count"},
    {"truncated: in the first key", P_TRUNCATE, 30, KGRT_STATUS_INVALID_ARGUMENT,
     "kv_count"},
    {"truncated: in the data padding", P_TRUNC_DATA, UINT64_MAX,
     KGRT_STATUS_INVALID_ARGUMENT, "padding"},
    {"truncated: at the data section", P_TRUNC_DATA, 0, KGRT_STATUS_INVALID_ARGUMENT,
     "past the end"},
    {"truncated: inside tensor 0", P_TRUNC_DATA, 10, KGRT_STATUS_INVALID_ARGUMENT,
     "a.weight"},
    {"truncated: inside tensor 1", P_TRUNC_DATA, 64 + 40, KGRT_STATUS_INVALID_ARGUMENT,
     "b.weight"},
    {"truncated: one byte short", P_TRUNC_DATA, 160 + 31, KGRT_STATUS_INVALID_ARGUMENT,
     "c.weight"},
};

static void test_gguf_patches(void) {
  for (size_t k = 0; k < sizeof patch_cases / sizeof patch_cases[0]; ++k) {
    const patch_case_t *c = &patch_cases[k];
    ww_buf_t b;
    ww_gguf_layout_t l;
    base_gguf(&b, &l, 3, NULL);
    switch (c->field) {
    case P_VERSION:
      ww_set_u32(&b, l.version_at, (uint32_t)c->value);
      break;
    case P_TENSOR_COUNT:
      ww_set_u64(&b, l.tensor_count_at, c->value);
      break;
    case P_KV_COUNT:
      ww_set_u64(&b, l.kv_count_at, c->value);
      break;
    case P_KEY_LEN:
      ww_set_u64(&b, l.kv_at[KV_ARCH], c->value);
      break;
    case P_VALUE_TYPE:
      ww_set_u32(&b, l.kv_type_at[KV_ARCH], (uint32_t)c->value);
      break;
    case P_STRING_LEN:
      ww_set_u64(&b, kv_value_at(&l, KV_ARCH), c->value);
      break;
    case P_ARRAY_TYPE:
      ww_set_u32(&b, kv_value_at(&l, KV_IDS), (uint32_t)c->value);
      break;
    case P_ARRAY_LEN:
      ww_set_u64(&b, kv_value_at(&l, KV_IDS) + 4, c->value);
      break;
    case P_STRS_LEN:
      ww_set_u64(&b, kv_value_at(&l, KV_TOKENS) + 4, c->value);
      break;
    case P_STR_ELEM:
      ww_set_u64(&b, kv_value_at(&l, KV_TOKENS) + 12, c->value);
      break;
    case P_BOOL:
      b.p[kv_value_at(&l, KV_FLAG)] = (unsigned char)c->value;
      break;
    case P_NAME_LEN:
      ww_set_u64(&b, l.info_at[0], c->value);
      break;
    case P_N_DIMS:
      ww_set_u32(&b, l.n_dims_at[0], (uint32_t)c->value);
      break;
    case P_NE0:
      ww_set_u64(&b, ne_at(&l, 0, 0), c->value);
      break;
    case P_NE1:
      ww_set_u64(&b, ne_at(&l, 0, 1), c->value);
      break;
    case P_NE01:
      ww_set_u64(&b, ne_at(&l, 0, 0), c->value);
      ww_set_u64(&b, ne_at(&l, 0, 1), c->value);
      break;
    case P_TYPE0:
      ww_set_u32(&b, l.type_at[0], (uint32_t)c->value);
      break;
    case P_TYPE1_NE0:
      ww_set_u64(&b, ne_at(&l, 1, 0), c->value);
      break;
    case P_OFFSET0:
      ww_set_u64(&b, offset_at(&l, 0), c->value);
      break;
    case P_OFFSET1:
      ww_set_u64(&b, offset_at(&l, 1), c->value);
      break;
    case P_OFFSET2:
      ww_set_u64(&b, offset_at(&l, 2), c->value);
      break;
    case P_TRUNCATE:
      b.len = (size_t)c->value;
      break;
    case P_TRUNC_DATA:
      /* UINT64_MAX: one byte past the header, inside the padding */
      b.len = c->value == UINT64_MAX ? l.header_end + 1 : l.data_start + (size_t)c->value;
      CHECK(l.header_end + 1 < l.data_start);
      break;
    }
    expect_bad_as(c->what, &b, KGRT_WEIGHTS_FORMAT_GGUF, c->status, c->message);
    ww_free(&b);
  }
}

/* Files the patches cannot make: each builds its own. */
static void kv_align(ww_gguf_t *g, uint32_t a) {
  ww_gguf_kv_u32(g, "general.alignment", a);
}
static void kv_align0(ww_gguf_t *g) {
  kv_align(g, 0);
}
static void kv_align3(ww_gguf_t *g) {
  kv_align(g, 3);
}
static void kv_align_huge(ww_gguf_t *g) {
  kv_align(g, 1u << 31);
}
static void kv_align_u64(ww_gguf_t *g) {
  ww_gguf_kv_u64(g, "general.alignment", 32);
}
static void kv_dup(ww_gguf_t *g) {
  ww_gguf_kv_str(g, "general.architecture", "other");
}
static void kv_bad_key(ww_gguf_t *g) {
  ww_gguf_kv_u32(g, "bad\nkey", 1);
}
static void kv_utf8_key(ww_gguf_t *g) {
  ww_gguf_kv_u32(g, "bad\xc0\xafkey", 1); /* overlong '/' */
}

static void test_gguf_built(void) {
  static const struct {
    const char *what;
    void (*extra)(ww_gguf_t *g);
    kgrt_status_t status;
    const char *message;
  } kv_cases[] = {
      {"alignment 0", kv_align0, KGRT_STATUS_INVALID_ARGUMENT, "general.alignment"},
      {"alignment 3", kv_align3, KGRT_STATUS_INVALID_ARGUMENT, "general.alignment"},
      {"alignment 2^31", kv_align_huge, KGRT_STATUS_INVALID_ARGUMENT,
       "general.alignment"},
      {"alignment as u64", kv_align_u64, KGRT_STATUS_INVALID_ARGUMENT,
       "general.alignment"},
      {"duplicate key", kv_dup, KGRT_STATUS_INVALID_ARGUMENT, "appears twice"},
      {"key with a newline", kv_bad_key, KGRT_STATUS_INVALID_ARGUMENT, "bad\\x0akey"},
      {"key with overlong UTF-8", kv_utf8_key, KGRT_STATUS_INVALID_ARGUMENT,
       "not printable UTF-8"},
  };
  for (size_t k = 0; k < sizeof kv_cases / sizeof kv_cases[0]; ++k) {
    ww_buf_t b;
    ww_gguf_layout_t l;
    base_gguf(&b, &l, 3, kv_cases[k].extra);
    expect_bad(kv_cases[k].what, &b, kv_cases[k].status, kv_cases[k].message);
    ww_free(&b);
  }

  /* tensor names and duplicates */
  char long_name[300];
  memset(long_name, 'x', sizeof long_name - 1);
  long_name[sizeof long_name - 1] = '\0';
  static const struct {
    const char *name0, *name1;
    const char *message;
  } name_cases[] = {
      {NULL, "a.weight", "a.weight appears twice"},
      {"bad\x01name", NULL, "bad\\x01name"},
      {"bad\xffname", NULL, "not printable UTF-8"},
      {"bad\xed\xa0\x80surrogate", NULL, "not printable UTF-8"},
      {"x", NULL, "longer than 255"}, /* replaced by long_name below */
  };
  for (size_t k = 0; k < sizeof name_cases / sizeof name_cases[0]; ++k) {
    ww_gguf_t g;
    ww_buf_t b = {0};
    ww_gguf_init(&g, 2, 32);
    const uint64_t ne[] = {16};
    const char *n0 = name_cases[k].name0 ? name_cases[k].name0 : "a.weight";
    if (k == 4)
      n0 = long_name;
    ww_gguf_tensor(&g, n0, WW_GGML_F32, 1, ne, base_f32, 64);
    if (name_cases[k].name1 != NULL)
      ww_gguf_tensor(&g, name_cases[k].name1, WW_GGML_F32, 1, ne, base_f32, 64);
    CHECK_EQ(ww_gguf_finish(&g, &b, NULL), 0);
    expect_bad(name_cases[k].message, &b, KGRT_STATUS_INVALID_ARGUMENT,
               name_cases[k].message);
    ww_gguf_free(&g);
    ww_free(&b);
  }

  /* a v1 header (u32 counts) read as v2 */
  ww_buf_t b = {0};
  ww_put(&b, "GGUF", 4);
  ww_u32(&b, 2);
  ww_u32(&b, 1); /* tensor_count as v1 wrote it */
  ww_u32(&b, 1); /* kv_count */
  ww_gguf_str(&b, "k");
  ww_u32(&b, WW_U8);
  ww_u8(&b, 1);
  expect_bad("v1-style u32 counts", &b, KGRT_STATUS_INVALID_ARGUMENT, "kv_count");
  ww_free(&b);
  /* bad magic */
  base_gguf(&b, NULL, 3, NULL);
  b.p[3] = 'X';
  expect_bad_as("magic GGUX", &b, KGRT_WEIGHTS_FORMAT_GGUF, KGRT_STATUS_INVALID_ARGUMENT,
                "magic is 'GGUX'");
  b.p[0] = 0xff;
  expect_bad_as("magic with a high byte", &b, KGRT_WEIGHTS_FORMAT_GGUF,
                KGRT_STATUS_INVALID_ARGUMENT, "\\xff");
  ww_free(&b);
}

/* ---- safetensors ---------------------------------------------------------- */

static const unsigned char zeros[256];

typedef struct st_case {
  const char *what;
  const char *header; /* NULL: see `len` */
  size_t data;        /* bytes of buffer after the header */
  kgrt_status_t status;
  const char *message;
} st_case_t;

#define T1 "\"t\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}"
#define T2 "\"u\":{\"dtype\":\"F16\",\"shape\":[4],\"data_offsets\":[8,16]}"

static const st_case_t st_cases[] = {
    {"valid (control)", "{" T1 "," T2 "}", 16, KGRT_STATUS_OK, NULL},
    {"not an object", "[1]", 0, KGRT_STATUS_INVALID_ARGUMENT, "expected '{'"},
    {"not JSON", "xx", 0, KGRT_STATUS_INVALID_ARGUMENT, "expected '{'"},
    {"unterminated string", "{\"t", 0, KGRT_STATUS_INVALID_ARGUMENT, "unterminated"},
    {"unterminated escape", "{\"t\\", 0, KGRT_STATUS_INVALID_ARGUMENT, "unterminated"},
    {"unterminated object", "{" T1, 8, KGRT_STATUS_INVALID_ARGUMENT, "to close"},
    {"trailing comma", "{" T1 ",}", 8, KGRT_STATUS_INVALID_ARGUMENT, "expected '\"'"},
    {"deep nesting",
     "{\"t\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"
     "]]]]}",
     0, KGRT_STATUS_INVALID_ARGUMENT, "expected '{'"},
    {"nested metadata", "{\"__metadata__\":{\"a\":{\"b\":\"c\"}}}", 0,
     KGRT_STATUS_INVALID_ARGUMENT, "values must be strings"},
    {"metadata twice", "{\"__metadata__\":{},\"__metadata__\":{}}", 0,
     KGRT_STATUS_INVALID_ARGUMENT, "twice"},
    {"huge number",
     "{\"t\":{\"dtype\":\"F32\",\"shape\":[99999999999999999999999],\"data_offsets\":[0,"
     "8]}}",
     8, KGRT_STATUS_INVALID_ARGUMENT, "too large"},
    {"negative dim", "{\"t\":{\"dtype\":\"F32\",\"shape\":[-2],\"data_offsets\":[0,8]}}",
     8, KGRT_STATUS_INVALID_ARGUMENT, "non-negative"},
    {"fraction offset",
     "{\"t\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8.0]}}", 8,
     KGRT_STATUS_INVALID_ARGUMENT, "fraction"},
    {"exponent offset",
     "{\"t\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8e0]}}", 8,
     KGRT_STATUS_INVALID_ARGUMENT, "fraction"},
    {"leading zero", "{\"t\":{\"dtype\":\"F32\",\"shape\":[02],\"data_offsets\":[0,8]}}",
     8, KGRT_STATUS_INVALID_ARGUMENT, "leading zero"},
    {"offsets past the end",
     "{\"t\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,16]}}", 8,
     KGRT_STATUS_INVALID_ARGUMENT, "past the end"},
    {"offsets UINT64_MAX",
     "{\"t\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[18446744073709551608,"
     "18446744073709551615]}}",
     8, KGRT_STATUS_INVALID_ARGUMENT, "past the end"},
    {"begin > end", "{\"t\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[8,0]}}", 8,
     KGRT_STATUS_INVALID_ARGUMENT, "reversed"},
    {"dtype x shape mismatch",
     "{\"t\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,8]}}", 8,
     KGRT_STATUS_INVALID_ARGUMENT, "dtype f32 x shape is 12"},
    {"overlap",
     "{" T1 ",\"u\":{\"dtype\":\"F16\",\"shape\":[4],\"data_offsets\":[4,12]}}", 12,
     KGRT_STATUS_INVALID_ARGUMENT, "overlap"},
    {"hole", "{\"u\":{\"dtype\":\"F16\",\"shape\":[4],\"data_offsets\":[8,16]}}", 16,
     KGRT_STATUS_INVALID_ARGUMENT, "hole"},
    {"buffer longer than its tensors", "{" T1 "}", 16, KGRT_STATUS_INVALID_ARGUMENT,
     "cover"},
    {"data missing", "{" T1 "," T2 "}", 12, KGRT_STATUS_INVALID_ARGUMENT, "past the end"},
    {"unknown dtype", "{\"t\":{\"dtype\":\"F64\",\"shape\":[1],\"data_offsets\":[0,8]}}",
     8, KGRT_STATUS_UNAVAILABLE, "dtype F64"},
    {"unknown field", "{\"t\":{\"dtype\":\"F32\",\"shape\":[2],\"foo\":1}}", 8,
     KGRT_STATUS_INVALID_ARGUMENT, "unknown field 'foo'"},
    {"repeated field", "{\"t\":{\"dtype\":\"F32\",\"dtype\":\"F32\"}}", 8,
     KGRT_STATUS_INVALID_ARGUMENT, "repeated field 'dtype'"},
    {"missing data_offsets", "{\"t\":{\"dtype\":\"F32\",\"shape\":[2]}}", 8,
     KGRT_STATUS_INVALID_ARGUMENT, "missing data_offsets"},
    {"three offsets",
     "{\"t\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8,8]}}", 8,
     KGRT_STATUS_INVALID_ARGUMENT, "data_offsets"},
    {"duplicate names",
     "{" T1 ",\"t\":{\"dtype\":\"F16\",\"shape\":[4],\"data_offsets\":[8,16]}}", 16,
     KGRT_STATUS_INVALID_ARGUMENT, "appears twice"},
    {"bad escape", "{\"t\\q\":{}}", 0, KGRT_STATUS_INVALID_ARGUMENT, "bad escape"},
    {"lone surrogate", "{\"t\\ud800\":{}}", 0, KGRT_STATUS_INVALID_ARGUMENT, "surrogate"},
    {"\\u0000 in a name", "{\"t\\u0000\":{}}", 0, KGRT_STATUS_INVALID_ARGUMENT,
     "\\u0000"},
    {"escaped control character in a name",
     "{\"t\\n\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 8,
     KGRT_STATUS_INVALID_ARGUMENT, "t\\x0a"},
    {"raw 0xff in a name", "{\"t\xff\":{}}", 0, KGRT_STATUS_INVALID_ARGUMENT, "UTF-8"},
    {"raw control character", "{\"t\x01\":{}}", 0, KGRT_STATUS_INVALID_ARGUMENT,
     "control character"},
    {"bytes after the header", "{" T1 "}x", 8, KGRT_STATUS_INVALID_ARGUMENT,
     "after the header"},
    {"9 dims",
     "{\"t\":{\"dtype\":\"F32\",\"shape\":[1,1,1,1,1,1,1,1,2],\"data_offsets\":[0,8]}}",
     8, KGRT_STATUS_INVALID_ARGUMENT, "more than 8 dims"},
    {"dim above INT64_MAX",
     "{\"t\":{\"dtype\":\"F32\",\"shape\":[9223372036854775808],\"data_offsets\":[0,8]}}",
     8, KGRT_STATUS_INVALID_ARGUMENT, "INT64_MAX"},
    {"element count overflow",
     "{\"t\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296],\"data_offsets\":[0,8]}"
     "}",
     8, KGRT_STATUS_OUT_OF_RANGE, "element count"},
    {"byte size overflow",
     "{\"t\":{\"dtype\":\"F32\",\"shape\":[4611686018427387904],\"data_offsets\":[0,8]}}",
     8, KGRT_STATUS_OUT_OF_RANGE, "byte size"},
    {"empty name", "{\"\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 8,
     KGRT_STATUS_INVALID_ARGUMENT, "empty name"},
    {"empty tensor object", "{\"t\":{}}", 0, KGRT_STATUS_INVALID_ARGUMENT,
     "empty object"},
};

static void test_safetensors(void) {
  for (size_t k = 0; k < sizeof st_cases / sizeof st_cases[0]; ++k) {
    const st_case_t *c = &st_cases[k];
    ww_buf_t b = {0};
    CHECK_EQ(ww_safetensors_raw(&b, c->header, zeros, c->data), 0);
    if (c->status == KGRT_STATUS_OK) {
      kgrt_error_t err;
      CHECK_EQ(open_copy(b.p, b.len, KGRT_WEIGHTS_FORMAT_AUTO, "ok", &err),
               KGRT_STATUS_OK);
    } else {
      expect_bad(c->what, &b, c->status, c->message);
    }
    ww_free(&b);
  }
  /* the header length itself */
  static const struct {
    const char *what;
    uint64_t len;
  } lens[] = {{"header length past the file", 1000},
              {"header length UINT64_MAX", UINT64_MAX},
              {"header length 0", 0},
              {"header length above 100 MB", 200u << 20}};
  for (size_t k = 0; k < sizeof lens / sizeof lens[0]; ++k) {
    ww_buf_t b = {0};
    ww_u64(&b, lens[k].len);
    ww_put(&b, "{}      ", 8);
    expect_bad(lens[k].what, &b, KGRT_STATUS_INVALID_ARGUMENT, "header length");
    ww_free(&b);
  }
  ww_buf_t b = {0};
  ww_put(&b, "\x02\0\0\0", 4);
  expect_bad("shorter than the length", &b, KGRT_STATUS_INVALID_ARGUMENT,
             "header length");
  ww_free(&b);
}

/* ---- shard indexes -------------------------------------------------------- */

static void test_index(void) {
  static const struct {
    const char *what, *json, *message;
  } cases[] = {
      {"index: not JSON", "nope", "expected '{'"},
      {"index: empty weight_map", "{\"weight_map\":{}}", "empty"},
      {"index: no weight_map", "{\"metadata\":{}}", "no weight_map"},
      {"index: absolute shard", "{\"weight_map\":{\"a\":\"/etc/passwd\"}}",
       "not a file name"},
      {"index: hidden shard", "{\"weight_map\":{\"a\":\"..\"}}", "not a file name"},
      {"index: duplicate name",
       "{\"weight_map\":{\"a\":\"s.safetensors\",\"a\":\"s.safetensors\"}}", "twice"},
      {"index: deep metadata",
       "{\"metadata\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]"
       "]]]]]"
       "]]]]]]]]]]]]]]]],\"weight_map\":{\"a\":\"s.safetensors\"}}",
       "nested deeper"},
      {"index: bad number in metadata",
       "{\"metadata\":{\"total_size\":01},\"weight_map\":{\"a\":\"s.safetensors\"}}",
       "expected"},
      {"index: weight_map twice",
       "{\"weight_map\":{\"a\":\"s.safetensors\"},\"weight_map\":{}}", "twice"},
      {"index: shard not a string", "{\"weight_map\":{\"a\":1}}", "expected '\"'"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    const char *path = path_in("bad.index.json");
    kgrt_weights_t *w = NULL;
    kgrt_error_t err;
    g_cases++;
    CHECK_EQ(ww_write_file(path, cases[k].json, strlen(cases[k].json)), 0);
    kgrt_status_t st = kgrt_weights_open(path, NULL, &w, &err);
    int ok = st == KGRT_STATUS_INVALID_ARGUMENT && w == NULL &&
             message_ok(err.message, "bad.index.json") &&
             strstr(err.message, cases[k].message) != NULL;
    if (!ok)
      fprintf(stderr, "case '%s': got %s: %s\n", cases[k].what, status_name(st),
              err.message);
    CHECK(ok);
    kgrt_weights_close(w);
  }
}

/* ---- sweeps --------------------------------------------------------------- */

/* Every prefix of a valid file is refused; every header byte replaced by
 * four values is refused or accepted, never read out of bounds. */
static void sweep(const char *what, const ww_buf_t *b, size_t header_end) {
  kgrt_error_t err;
  long refused = 0, accepted = 0;
  for (size_t n = 0; n < b->len; ++n) {
    kgrt_status_t st = open_copy(b->p, n, KGRT_WEIGHTS_FORMAT_AUTO, "cut", &err);
    CHECK(st != KGRT_STATUS_OK && message_ok(err.message, "cut"));
  }
  CHECK_EQ(open_copy(b->p, b->len, KGRT_WEIGHTS_FORMAT_AUTO, "whole", &err),
           KGRT_STATUS_OK);
  unsigned char *m = malloc(b->len);
  for (size_t i = 0; i < header_end; ++i) {
    const unsigned char values[] = {0x00, 0xff, 0x7f, (unsigned char)(b->p[i] ^ 0x80)};
    for (int v = 0; v < 4; ++v) {
      memcpy(m, b->p, b->len);
      m[i] = values[v];
      kgrt_status_t st = open_copy(m, b->len, KGRT_WEIGHTS_FORMAT_AUTO, "flip", &err);
      if (st == KGRT_STATUS_OK) {
        accepted++;
      } else {
        refused++;
        CHECK(message_ok(err.message, "flip"));
      }
    }
  }
  free(m);
  fprintf(stderr, "%s: %zu truncations refused; %ld byte flips refused, %ld accepted\n",
          what, b->len, refused, accepted);
  CHECK(refused > accepted);
}

static void test_sweeps(void) {
  ww_buf_t b;
  ww_gguf_layout_t l;
  base_gguf(&b, &l, 3, NULL);
  sweep("gguf v3", &b, l.header_end);
  ww_free(&b);
  base_gguf(&b, &l, 2, NULL);
  sweep("gguf v2", &b, l.header_end);
  ww_free(&b);
  memset(&b, 0, sizeof b);
  ww_st_tensor_t t[2] = {{"model.norm.weight", "F32", 1, {4}, base_f32, 16},
                         {"lm_head.weight", "BF16", 2, {2, 4}, base_f32, 16}};
  static const char *const meta[] = {"format", "pt"};
  CHECK_EQ(ww_safetensors(&b, t, 2, meta, 1), 0);
  sweep("safetensors", &b, b.len - 32);
  ww_free(&b);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_weights_bad WORK_DIR\n");
    return 2;
  }
  g_dir = argv[1];
  mkdir(g_dir, 0777);
  ww_fill(base_f32, 16, 1);
  ww_fill(base_f16_src, 16, 2);
  ww_fill(base_q8_src, 64, 3);
  base_f16 = ww_encode(WW_GGML_F16, base_f16_src, 16, &base_f16_bytes);
  base_q8 = ww_encode(WW_GGML_Q8_0, base_q8_src, 64, &base_q8_bytes);
  test_gguf_patches();
  test_gguf_built();
  test_safetensors();
  test_index();
  test_sweeps();
  fprintf(stderr, "test_weights_bad: %d malformed files\n", g_cases);
  CHECK(g_cases >= 60);
  free(base_f16);
  free(base_q8);
  return TEST_DONE();
}
