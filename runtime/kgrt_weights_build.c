/* kgrt_weights_build.c - what a format parser builds a weights object
 * with: errors and escaped strings, the string pool, dtypes and sizes,
 * growing arrays, tensor names, the layout check, and the files it maps.
 *
 * Needs kgrt_weights_internal.h and the allocator; calls no parser, so the
 * parsers (kgrt_weights_gguf.c, kgrt_weights_st.c) and kgrt_weights.c,
 * which calls them, all depend on it and it on none of them. Gives the
 * helpers kgrt_weights_internal.h declares, but the parsers. */
#include "kgrt_weights_internal.h"

#include "kgrt_base.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- errors and strings --------------------------------------------------- */

kgrt_status_t kgrt_weights_fail(const kgrt_weights_t *w, kgrt_error_t *err,
                                kgrt_status_t status, const char *fmt, ...) {
  if (err != NULL) {
    int n = snprintf(err->message, sizeof err->message,
                     "weights %s: ", w != NULL ? w->label : "?");
    if (n < 0 || (size_t)n >= sizeof err->message)
      n = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message + n, sizeof err->message - (size_t)n, fmt, ap);
    va_end(ap);
    err->status = status;
  }
  return status;
}

char *kgrt_weights_escape(const void *s, size_t n, char *out, size_t size) {
  static const char hex[] = "0123456789abcdef";
  const unsigned char *p = s;
  size_t o = 0;
  for (size_t i = 0; i < n; ++i) {
    if (o + 8 >= size) { /* room for one \xNN and "..." */
      memcpy(out + o, "...", 3);
      o += 3;
      break;
    }
    if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '\\') {
      out[o++] = (char)p[i];
    } else {
      out[o++] = '\\';
      out[o++] = 'x';
      out[o++] = hex[p[i] >> 4];
      out[o++] = hex[p[i] & 15];
    }
  }
  out[o] = '\0';
  return out;
}

int kgrt_weights_utf8_ok(const unsigned char *s, size_t n) {
  size_t i = 0;
  while (i < n) {
    unsigned c = s[i];
    if (c < 0x80) {
      if (c < 0x20 || c == 0x7f)
        return 0;
      i++;
      continue;
    }
    size_t len;
    unsigned cp, min;
    if ((c & 0xe0) == 0xc0)
      len = 2, cp = c & 0x1f, min = 0x80;
    else if ((c & 0xf0) == 0xe0)
      len = 3, cp = c & 0x0f, min = 0x800;
    else if ((c & 0xf8) == 0xf0)
      len = 4, cp = c & 0x07, min = 0x10000;
    else
      return 0;
    if (len > n - i)
      return 0;
    for (size_t k = 1; k < len; ++k) {
      if ((s[i + k] & 0xc0) != 0x80)
        return 0;
      cp = cp << 6 | (s[i + k] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ||
        (cp >= 0x80 && cp < 0xa0)) /* overlong, surrogate, C1 control */
      return 0;
    i += len;
  }
  return 1;
}

char *kgrt_weights_pool_alloc(kgrt_weights_t *w, size_t n) {
  kgrt_weights_pool_t *b = w->pool;
  if (b == NULL || b->size - b->used < n) {
    size_t size = n > 65536 ? n : 65536;
    if (size > SIZE_MAX - sizeof *b)
      return NULL;
    b = kgrt_alloc(&w->alloc, sizeof *b + size);
    if (b == NULL)
      return NULL;
    b->used = 0;
    b->size = size;
    b->next = w->pool;
    w->pool = b;
  }
  char *p = b->bytes + b->used;
  b->used += n;
  return p;
}

char *kgrt_weights_strdup(kgrt_weights_t *w, const void *s, size_t n) {
  if (n == SIZE_MAX)
    return NULL;
  char *p = kgrt_weights_pool_alloc(w, n + 1);
  if (p != NULL) {
    if (n > 0)
      memcpy(p, s, n);
    p[n] = '\0';
  }
  return p;
}

/* ---- dtypes and sizes ----------------------------------------------------- */

const char *kgrt_weights_dtype_name(kgrt_dtype_t dtype) {
  static const char *const names[] = {"f32",  "f16",  "bf16", "i32",
                                      "q8_0", "q4_0", "q4_k", "q6_k"};
  return (unsigned)dtype < sizeof names / sizeof names[0] ? names[dtype] : "?";
}

kgrt_status_t kgrt_weights_size(const kgrt_weights_t *w, kgrt_weight_info_t *info,
                                kgrt_error_t *err) {
  int64_t elems;
  const uint64_t block = kgrt_dtype_block(info->dtype, &elems);
  uint64_t numel = 1;
  for (uint32_t d = 0; d < info->ndim; ++d)
    if (__builtin_mul_overflow(numel, (uint64_t)info->shape[d], &numel) ||
        numel > INT64_MAX)
      return kgrt_weights_fail(w, err, KGRT_STATUS_OUT_OF_RANGE,
                               "tensor %s: element count overflows at dim %u", info->name,
                               d);
  const int64_t row = info->ndim > 0 ? info->shape[info->ndim - 1] : 1;
  if (row % elems != 0)
    return kgrt_weights_fail(w, err, KGRT_STATUS_INVALID_ARGUMENT,
                             "tensor %s: row length %lld is not a multiple of the %s "
                             "block (%lld weights)",
                             info->name, (long long)row,
                             kgrt_weights_dtype_name(info->dtype), (long long)elems);
  uint64_t bytes;
  if (__builtin_mul_overflow(numel / (uint64_t)elems, block, &bytes) || bytes > SIZE_MAX)
    return kgrt_weights_fail(w, err, KGRT_STATUS_OUT_OF_RANGE,
                             "tensor %s: byte size overflows (%llu elements of %s)",
                             info->name, (unsigned long long)numel,
                             kgrt_weights_dtype_name(info->dtype));
  info->numel = numel;
  info->bytes = (size_t)bytes;
  return KGRT_STATUS_OK;
}

/* ---- growing arrays ------------------------------------------------------- */

/* Grows *array (of `elem` bytes, *cap entries) to at least `need` entries. */
static int kgrt_weights_grow(kgrt_weights_t *w, void **array, uint64_t *cap,
                             uint64_t need, size_t elem) {
  if (need <= *cap)
    return 0;
  uint64_t n = *cap ? *cap : 16;
  while (n < need)
    n = n > UINT64_MAX / 2 ? need : n * 2;
  if (n > SIZE_MAX / elem)
    return -1;
  void *p = kgrt_alloc(&w->alloc, (size_t)(n * elem));
  if (p == NULL)
    return -1;
  if (*array != NULL) {
    memcpy(p, *array, (size_t)(*cap * elem));
    kgrt_free(&w->alloc, *array);
  }
  *array = p;
  *cap = n;
  return 0;
}

kgrt_status_t kgrt_weights_reserve(kgrt_weights_t *w, uint64_t n, uint64_t n_kv,
                                   kgrt_error_t *err) {
  if (n > KGRT_WEIGHTS_MAX_TENSORS - w->count)
    return kgrt_weights_fail(w, err, KGRT_STATUS_INVALID_ARGUMENT, "more than %u tensors",
                             KGRT_WEIGHTS_MAX_TENSORS);
  uint64_t cap = w->cap;
  void *infos = w->infos;
  int bad = kgrt_weights_grow(w, &infos, &cap, w->count + n, sizeof *w->infos);
  w->infos = infos;
  w->cap = (uint32_t)cap;
  void *kvs = w->kvs;
  if (bad == 0)
    bad = kgrt_weights_grow(w, &kvs, &w->cap_kv, w->num_kv + n_kv, sizeof *w->kvs);
  w->kvs = kvs;
  if (bad)
    return kgrt_weights_fail(w, err, KGRT_STATUS_OUT_OF_MEMORY, "out of host memory");
  return KGRT_STATUS_OK;
}

kgrt_weight_info_t *kgrt_weights_add_info(kgrt_weights_t *w, kgrt_error_t *err) {
  if (kgrt_weights_reserve(w, 1, 0, err) != KGRT_STATUS_OK)
    return NULL;
  kgrt_weight_info_t *info = &w->infos[w->count++];
  memset(info, 0, sizeof *info);
  return info;
}

kgrt_meta_kv_t *kgrt_weights_add_kv(kgrt_weights_t *w, kgrt_error_t *err) {
  if (kgrt_weights_reserve(w, 0, 1, err) != KGRT_STATUS_OK)
    return NULL;
  kgrt_meta_kv_t *kv = &w->kvs[w->num_kv++];
  memset(kv, 0, sizeof *kv);
  return kv;
}

kgrt_status_t kgrt_weights_take_name(kgrt_weights_t *w, const unsigned char *s, size_t n,
                                     const char *what, const char **out_name,
                                     kgrt_error_t *err) {
  char esc[96];
  if (n == 0)
    return kgrt_weights_fail(w, err, KGRT_STATUS_INVALID_ARGUMENT, "%s: empty name",
                             what);
  if (n > KGRT_WEIGHTS_NAME_MAX)
    return kgrt_weights_fail(w, err, KGRT_STATUS_INVALID_ARGUMENT,
                             "%s: name of %zu bytes is longer than %d (%s)", what, n,
                             KGRT_WEIGHTS_NAME_MAX,
                             kgrt_weights_escape(s, n, esc, sizeof esc));
  if (!kgrt_weights_utf8_ok(s, n))
    return kgrt_weights_fail(w, err, KGRT_STATUS_INVALID_ARGUMENT,
                             "%s: name '%s' is not printable UTF-8", what,
                             kgrt_weights_escape(s, n, esc, sizeof esc));
  *out_name = kgrt_weights_strdup(w, s, n);
  if (*out_name == NULL)
    return kgrt_weights_fail(w, err, KGRT_STATUS_OUT_OF_MEMORY, "out of host memory");
  return KGRT_STATUS_OK;
}

/* ---- layout --------------------------------------------------------------- */

static int kgrt_weights_cmp_offset(const void *a, const void *b) {
  const kgrt_weight_info_t *x = *(const kgrt_weight_info_t *const *)a;
  const kgrt_weight_info_t *y = *(const kgrt_weight_info_t *const *)b;
  if (x->offset != y->offset)
    return x->offset < y->offset ? -1 : 1;
  return x->bytes < y->bytes ? -1 : x->bytes > y->bytes;
}

kgrt_status_t kgrt_weights_check_layout(kgrt_weights_t *w, uint32_t first,
                                        uint64_t data_start, uint64_t data_size,
                                        int contiguous, kgrt_error_t *err) {
  const uint32_t n = w->count - first;
  const kgrt_weight_info_t **order = kgrt_calloc(&w->alloc, n, sizeof *order);
  if (order == NULL)
    return kgrt_weights_fail(w, err, KGRT_STATUS_OUT_OF_MEMORY, "out of host memory");
  for (uint32_t i = 0; i < n; ++i)
    order[i] = &w->infos[first + i];
  qsort(order, n, sizeof *order, kgrt_weights_cmp_offset);
  kgrt_status_t st = KGRT_STATUS_OK;
  uint64_t end = data_start; /* of the previous tensor */
  const kgrt_weight_info_t *prev = NULL;
  for (uint32_t i = 0; i < n && st == KGRT_STATUS_OK; ++i) {
    const kgrt_weight_info_t *t = order[i];
    if (t->offset < end && (t->bytes > 0 || contiguous))
      st = kgrt_weights_fail(
          w, err, KGRT_STATUS_INVALID_ARGUMENT,
          "tensors %s and %s overlap (data at %llu, %zu bytes, and "
          "%llu, %zu bytes)",
          prev != NULL ? prev->name : "?", t->name,
          (unsigned long long)(prev != NULL ? prev->offset - data_start : 0),
          prev != NULL ? prev->bytes : 0, (unsigned long long)(t->offset - data_start),
          t->bytes);
    else if (contiguous && t->offset > end)
      st = kgrt_weights_fail(w, err, KGRT_STATUS_INVALID_ARGUMENT,
                             "tensor %s: data_offsets leave a hole of %llu bytes before "
                             "it",
                             t->name, (unsigned long long)(t->offset - end));
    if (t->offset + t->bytes > end) { /* in range: checked by the parser */
      end = t->offset + t->bytes;
      prev = t;
    }
  }
  if (st == KGRT_STATUS_OK && contiguous && end - data_start != data_size)
    st = kgrt_weights_fail(w, err, KGRT_STATUS_INVALID_ARGUMENT,
                           "the data buffer is %llu bytes but its tensors cover %llu",
                           (unsigned long long)data_size,
                           (unsigned long long)(end - data_start));
  kgrt_free(&w->alloc, order);
  return st;
}

/* ---- files --------------------------------------------------------------- */

kgrt_status_t kgrt_weights_add_file(kgrt_weights_t *w, const unsigned char *data,
                                    size_t size, int mapped, uint32_t *out_file,
                                    kgrt_error_t *err) {
  uint64_t cap = w->cap_files;
  void *files = w->files;
  if (w->num_files >= KGRT_WEIGHTS_MAX_FILES ||
      kgrt_weights_grow(w, &files, &cap, w->num_files + 1, sizeof *w->files) != 0) {
    if (mapped)
      munmap((void *)data, size);
    return kgrt_weights_fail(w, err, KGRT_STATUS_OUT_OF_MEMORY,
                             "out of host memory (or more than %d files)",
                             KGRT_WEIGHTS_MAX_FILES);
  }
  w->files = files;
  w->cap_files = (uint32_t)cap;
  w->files[w->num_files] = (kgrt_weights_file_t){data, size, mapped};
  *out_file = w->num_files++;
  return KGRT_STATUS_OK;
}

kgrt_status_t kgrt_weights_map_file(kgrt_weights_t *w, const char *path,
                                    uint32_t *out_file, kgrt_error_t *err) {
  char esc[160];
  kgrt_weights_escape(path, strlen(path), esc, sizeof esc);
  /* O_NONBLOCK: a FIFO is refused below, not waited on */
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return kgrt_weights_fail(w, err, KGRT_STATUS_NOT_FOUND, "cannot open %s: %s", esc,
                             strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return kgrt_weights_fail(w, err, KGRT_STATUS_INVALID_ARGUMENT,
                             "%s is not a regular file", esc);
  }
  if (st.st_size <= 0 || (uint64_t)st.st_size > SIZE_MAX) {
    close(fd);
    return kgrt_weights_fail(w, err, KGRT_STATUS_INVALID_ARGUMENT,
                             "%s is empty or too large (%lld bytes)", esc,
                             (long long)st.st_size);
  }
  const size_t size = (size_t)st.st_size;
  void *p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (p == MAP_FAILED)
    return kgrt_weights_fail(w, err, KGRT_STATUS_UNAVAILABLE, "cannot map %s: %s", esc,
                             strerror(errno));
  return kgrt_weights_add_file(w, p, size, 1, out_file, err);
}
