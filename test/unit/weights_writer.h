/* weights_writer.h - writes GGUF (v2, v3) and safetensors files (and shard
 * indexes) for the tests and the fuzz seed corpus: given metadata and
 * tensors, the bytes a conforming writer produces, plus where each header
 * field sits so a test can corrupt exactly one.
 *
 * Everything goes into a growing ww_buf_t (malloc); a buffer that ran out of
 * memory has oom set and the finishing calls return -1. Test code: it
 * favours plain over fast. Needs kgrt_gguf.h (quantizers) and kgrt_half.h. */
#ifndef KG_WEIGHTS_WRITER_H
#define KG_WEIGHTS_WRITER_H

#include <stddef.h>
#include <stdint.h>

#define WW_MAX_TENSORS 1024
#define WW_MAX_KVS 64

typedef struct ww_buf {
  unsigned char *p;
  size_t len, cap;
  int oom;
} ww_buf_t;

void ww_put(ww_buf_t *b, const void *p, size_t n);
void ww_u8(ww_buf_t *b, uint8_t v);
void ww_u32(ww_buf_t *b, uint32_t v);
void ww_u64(ww_buf_t *b, uint64_t v);
void ww_gguf_str(ww_buf_t *b, const char *s); /* u64 length + bytes */
void ww_free(ww_buf_t *b);
/* Patches a little-endian u32 / u64 at `at`. */
void ww_set_u32(ww_buf_t *b, size_t at, uint32_t v);
void ww_set_u64(ww_buf_t *b, size_t at, uint64_t v);
/* 0 on success. */
int ww_write_file(const char *path, const void *p, size_t n);

/* ---- GGUF ---- */

/* GGUF value types (gguf_type) and ggml tensor types. */
enum {
  WW_U8 = 0,
  WW_I8,
  WW_U16,
  WW_I16,
  WW_U32,
  WW_I32,
  WW_F32,
  WW_BOOL,
  WW_STRING,
  WW_ARRAY,
  WW_U64,
  WW_I64,
  WW_F64
};
enum {
  WW_GGML_F32 = 0,
  WW_GGML_F16 = 1,
  WW_GGML_Q4_0 = 2,
  WW_GGML_Q8_0 = 8,
  WW_GGML_Q4_K = 12,
  WW_GGML_Q6_K = 14,
  WW_GGML_I32 = 26,
  WW_GGML_BF16 = 30
};

typedef struct ww_gguf_tensor {
  const char *name;
  uint32_t type;
  uint32_t n_dims;
  uint64_t ne[4]; /* ne[0] innermost */
  const void *data;
  size_t bytes;
} ww_gguf_tensor_t;

typedef struct ww_gguf {
  uint32_t version, alignment;
  ww_buf_t kvs; /* serialized KVs */
  uint64_t n_kv;
  size_t kv_at[WW_MAX_KVS]; /* offsets in kvs */
  uint32_t n_tensors;
  ww_gguf_tensor_t tensors[WW_MAX_TENSORS];
} ww_gguf_t;

/* Where the fields of a finished file are (byte offsets). */
typedef struct ww_gguf_layout {
  size_t version_at, tensor_count_at, kv_count_at;
  size_t kv_at[WW_MAX_KVS];         /* a KV's key length */
  size_t kv_type_at[WW_MAX_KVS];    /* its value_type */
  size_t info_at[WW_MAX_TENSORS];   /* a tensor info's name length */
  size_t n_dims_at[WW_MAX_TENSORS]; /* its n_dims; ne[] follow */
  size_t type_at[WW_MAX_TENSORS];   /* its type; offset follows */
  size_t header_end, data_start;
  uint64_t tensor_offset[WW_MAX_TENSORS]; /* from data_start */
} ww_gguf_layout_t;

/* A writer for `version` (2 or 3); alignment other than 32 adds the
 * general.alignment KV first. */
void ww_gguf_init(ww_gguf_t *g, uint32_t version, uint32_t alignment);
void ww_gguf_free(ww_gguf_t *g);
void ww_gguf_kv_str(ww_gguf_t *g, const char *key, const char *value);
void ww_gguf_kv_u32(ww_gguf_t *g, const char *key, uint32_t value);
void ww_gguf_kv_i32(ww_gguf_t *g, const char *key, int32_t value);
void ww_gguf_kv_u64(ww_gguf_t *g, const char *key, uint64_t value);
void ww_gguf_kv_f32(ww_gguf_t *g, const char *key, float value);
void ww_gguf_kv_bool(ww_gguf_t *g, const char *key, int value);
void ww_gguf_kv_strs(ww_gguf_t *g, const char *key, const char *const *values,
                     uint64_t n);
void ww_gguf_kv_i32s(ww_gguf_t *g, const char *key, const int32_t *values, uint64_t n);
/* A KV with a value given as raw bytes (the value after value_type). */
void ww_gguf_kv_raw(ww_gguf_t *g, const char *key, uint32_t type, const void *value,
                    size_t n);
/* ne[0] innermost (GGUF order); the data is not copied. */
void ww_gguf_tensor(ww_gguf_t *g, const char *name, uint32_t type, uint32_t n_dims,
                    const uint64_t *ne, const void *data, size_t bytes);
/* The file into out (appended), tensors in order, each at the next multiple
 * of the alignment. layout may be NULL. 0 on success. */
int ww_gguf_finish(const ww_gguf_t *g, ww_buf_t *out, ww_gguf_layout_t *layout);

/* ---- safetensors ---- */

typedef struct ww_st_tensor {
  const char *name;
  const char *dtype; /* "F32", "F16", "BF16", "I32" ... */
  uint32_t ndim;
  int64_t shape[8];
  const void *data;
  size_t bytes;
} ww_st_tensor_t;

/* A safetensors file: the tensors back to back in order, metadata as
 * key/value string pairs (meta[2i], meta[2i+1]), the header padded with
 * spaces to a multiple of 8. 0 on success. */
int ww_safetensors(ww_buf_t *out, const ww_st_tensor_t *t, int n, const char *const *meta,
                   int n_meta);
/* A file from a header given verbatim and data bytes. */
int ww_safetensors_raw(ww_buf_t *out, const char *header, const void *data, size_t n);
/* A model.safetensors.index.json mapping names[i] to shards[i]. */
int ww_index(ww_buf_t *out, const char *const *names, const char *const *shards, int n);

/* ---- data ---- */

/* n deterministic values in about [-2, 2) from `seed`. */
void ww_fill(float *x, size_t n, uint32_t seed);
/* The bytes of n floats as `ggml_type` (f32, f16, bf16, i32 (truncated),
 * q8_0, q4_0, q4_k, q6_k) into out (malloc'd); its size in *out_bytes.
 * NULL when n is not a multiple of the block. */
void *ww_encode(uint32_t ggml_type, const float *x, size_t n, size_t *out_bytes);

#endif /* KG_WEIGHTS_WRITER_H */
