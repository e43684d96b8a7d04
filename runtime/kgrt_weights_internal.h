/* kgrt_weights_internal.h - what the weight-file readers share (internal).
 *
 * kgrt_weights_build.c gives what a parser builds the object with: mapping
 * files, the string pool, growing arrays, the checks every format needs
 * (names, sizes, overlap). kgrt_weights_gguf.c and kgrt_weights_st.c each
 * parse one format's header into it: they append infos and key-values and
 * check their own fields. kgrt_weights.c opens (calls the parsers), indexes
 * (duplicates), looks up and reads metadata.
 * Needs kgrt_weights.h; uses no other part of kgrt, so the fuzz targets and
 * the sanitizer test build these files alone. */
#ifndef KGRT_WEIGHTS_INTERNAL_H
#define KGRT_WEIGHTS_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "kgrt_weights.h"

#if defined(__GNUC__)
#define KGRT_WEIGHTS_INTERNAL __attribute__((visibility("hidden")))
#define KGRT_WEIGHTS_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define KGRT_WEIGHTS_INTERNAL
#define KGRT_WEIGHTS_PRINTF(f, a)
#endif

#define KGRT_WEIGHTS_MAX_FILES 4096          /* shards of one index */
#define KGRT_WEIGHTS_MAX_TENSORS (1u << 24)  /* whatever the file size allows */
#define KGRT_WEIGHTS_MAX_KEY 65535           /* bytes of a metadata key */
#define KGRT_WEIGHTS_MAX_ALIGN (1u << 20)    /* general.alignment */
#define KGRT_WEIGHTS_MAX_HEADER (100u << 20) /* safetensors JSON header */
#define KGRT_WEIGHTS_JSON_DEPTH 32

/* A metadata entry. GGUF: value points at the value's bytes in the mapping
 * (arrays: at the first element; len is the count, elem the element type;
 * strings: at the bytes, len the length). Safetensors: a decoded copy. */
typedef struct kgrt_meta_kv {
  const char *key;
  kgrt_meta_type_t type;
  kgrt_meta_type_t elem;
  const unsigned char *value;
  uint64_t len;
} kgrt_meta_kv_t;

typedef struct kgrt_weights_file {
  const unsigned char *data;
  size_t size;
  int mapped; /* munmap at close */
} kgrt_weights_file_t;

/* One block of the string pool. */
typedef struct kgrt_weights_pool {
  struct kgrt_weights_pool *next;
  size_t used, size;
  char bytes[];
} kgrt_weights_pool_t;

struct kgrt_weights {
  kgrt_allocator_t alloc;
  kgrt_weights_format_t format;
  uint32_t version;
  char label[192]; /* the path or label, escaped: messages only */
  uint32_t num_files, cap_files;
  kgrt_weights_file_t *files;
  uint32_t count, cap;
  kgrt_weight_info_t *infos;
  const kgrt_weight_info_t **by_name;
  uint64_t num_kv, cap_kv;
  kgrt_meta_kv_t *kvs;
  const kgrt_meta_kv_t **kv_by_key;
  kgrt_weights_pool_t *pool;
};

/* Fills *err with "weights LABEL: <fmt>" and returns status. */
KGRT_WEIGHTS_INTERNAL kgrt_status_t kgrt_weights_fail(const kgrt_weights_t *w,
                                                      kgrt_error_t *err,
                                                      kgrt_status_t status,
                                                      const char *fmt, ...)
    KGRT_WEIGHTS_PRINTF(4, 5);

/* Writes bytes s[0..n) into out (size >= 8) as printable ASCII: \xNN for any
 * other byte, cut with "..." when long. Returns out. */
KGRT_WEIGHTS_INTERNAL char *kgrt_weights_escape(const void *s, size_t n, char *out,
                                                size_t size);

/* 1 when s[0..n) is valid UTF-8 with no control characters (< 0x20, 0x7f). */
KGRT_WEIGHTS_INTERNAL int kgrt_weights_utf8_ok(const unsigned char *s, size_t n);

/* A NUL-terminated copy of s[0..n) in the pool; NULL when out of memory. */
KGRT_WEIGHTS_INTERNAL char *kgrt_weights_strdup(kgrt_weights_t *w, const void *s,
                                                size_t n);
/* n bytes of the pool (uninitialised); NULL when out of memory. */
KGRT_WEIGHTS_INTERNAL char *kgrt_weights_pool_alloc(kgrt_weights_t *w, size_t n);

/* A new zeroed info at the end of w->infos; NULL (and OUT_OF_MEMORY or
 * INVALID_ARGUMENT past KGRT_WEIGHTS_MAX_TENSORS in *err) on failure. */
KGRT_WEIGHTS_INTERNAL kgrt_weight_info_t *kgrt_weights_add_info(kgrt_weights_t *w,
                                                                kgrt_error_t *err);
KGRT_WEIGHTS_INTERNAL kgrt_meta_kv_t *kgrt_weights_add_kv(kgrt_weights_t *w,
                                                          kgrt_error_t *err);
/* Room for n more entries (counts read from a header, already bounded by the
 * file size). */
KGRT_WEIGHTS_INTERNAL kgrt_status_t kgrt_weights_reserve(kgrt_weights_t *w, uint64_t n,
                                                         uint64_t n_kv,
                                                         kgrt_error_t *err);

/* Checks a tensor name (1..KGRT_WEIGHTS_NAME_MAX bytes of printable UTF-8)
 * and copies it into *out_name. `what` says where it was ("tensor 3"). */
KGRT_WEIGHTS_INTERNAL kgrt_status_t kgrt_weights_take_name(kgrt_weights_t *w,
                                                           const unsigned char *s,
                                                           size_t n, const char *what,
                                                           const char **out_name,
                                                           kgrt_error_t *err);

/* Infos first..count-1 of file `file`: no two byte ranges overlap. With
 * `contiguous` the ranges also tile [0, data_size) with no hole
 * (safetensors); offsets are relative to `data_start`. */
KGRT_WEIGHTS_INTERNAL kgrt_status_t
kgrt_weights_check_layout(kgrt_weights_t *w, uint32_t first, uint64_t data_start,
                          uint64_t data_size, int contiguous, kgrt_error_t *err);

/* numel and bytes of an info whose dtype and shape are set: OUT_OF_RANGE on
 * overflow, INVALID_ARGUMENT when the row length is not a multiple of the
 * block. `what` names the tensor. */
KGRT_WEIGHTS_INTERNAL kgrt_status_t kgrt_weights_size(const kgrt_weights_t *w,
                                                      kgrt_weight_info_t *info,
                                                      kgrt_error_t *err);

KGRT_WEIGHTS_INTERNAL const char *kgrt_weights_dtype_name(kgrt_dtype_t dtype);

/* The format parsers: the header of file `file` (w->files[file]). */
KGRT_WEIGHTS_INTERNAL kgrt_status_t kgrt_weights_parse_gguf(kgrt_weights_t *w,
                                                            uint32_t file,
                                                            kgrt_error_t *err);
KGRT_WEIGHTS_INTERNAL kgrt_status_t kgrt_weights_parse_safetensors(kgrt_weights_t *w,
                                                                   uint32_t file,
                                                                   kgrt_error_t *err);
/* A model.safetensors.index.json at w->files[0]; `dir` is the folder the
 * shards are in ("" or ending in '/'). Maps and parses every shard. */
KGRT_WEIGHTS_INTERNAL kgrt_status_t kgrt_weights_parse_index(kgrt_weights_t *w,
                                                             const char *dir,
                                                             kgrt_error_t *err);
/* `data` (`mapped`: munmap at close) as a new file of w; *out_file its
 * index. A mapping it cannot keep is unmapped. */
KGRT_WEIGHTS_INTERNAL kgrt_status_t kgrt_weights_add_file(kgrt_weights_t *w,
                                                          const unsigned char *data,
                                                          size_t size, int mapped,
                                                          uint32_t *out_file,
                                                          kgrt_error_t *err);
/* Maps `path` read-only as a new file of w; *out_file its index. */
KGRT_WEIGHTS_INTERNAL kgrt_status_t kgrt_weights_map_file(kgrt_weights_t *w,
                                                          const char *path,
                                                          uint32_t *out_file,
                                                          kgrt_error_t *err);

#endif /* KGRT_WEIGHTS_INTERNAL_H */
