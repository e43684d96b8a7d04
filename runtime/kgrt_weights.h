/* kgrt_weights.h - weight files: GGUF (v2, v3) and safetensors (one file or a
 * model.safetensors.index.json of shards), opened read-only and mapped, never
 * read whole, every header field checked before use; tensors looked up by
 * name in either naming convention (GGUF "blk.0.attn_q.weight" or Hugging
 * Face "model.layers.0.self_attn.q_proj.weight"), GGUF metadata read by key,
 * and every weight of a loaded model bound from the file by name.
 *
 * Conventions are kgrt.h's: statuses and one-line messages (printable bytes
 * only; they name the file, the tensor and the field), out_ parameters set to
 * NULL first and published on success, the caller's allocator, no global
 * state, nothing printed, nothing aborts.
 *
 * What is refused, with the status:
 *   INVALID_ARGUMENT  a malformed header: bad magic, counts,
 *                     strings or arrays past the end of the file, bad value
 *                     types, dims (0, more than 4 in GGUF, more than
 *                     KGRT_WEIGHTS_MAX_DIMS in safetensors), a row length that
 *                     is not a multiple of its block, bad or huge alignment,
 *                     misaligned offsets, tensors past the data section or
 *                     overlapping, duplicate names or keys, names that are not
 *                     printable UTF-8 of at most KGRT_WEIGHTS_NAME_MAX bytes,
 *                     JSON that is not strict RFC 8259 or nests too deep
 *   OUT_OF_RANGE      an element count or byte size that overflows 64 bits
 *   UNAVAILABLE       a dtype, GGUF type or GGUF version (not 2 or 3,
 *                     big-endian) this runtime does not read; a failed mmap
 *   NOT_FOUND         a file that cannot be opened, a key or tensor not there
 *   OUT_OF_MEMORY     the caller's allocator said no
 *
 * A mapped file must not be truncated while it is open (that is a SIGBUS on
 * any reader of a mapping). Needs kgrt.h; links with kgrt. */
#ifndef KGRT_WEIGHTS_H
#define KGRT_WEIGHTS_H

#include <stddef.h>
#include <stdint.h>

#include "kgrt.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KGRT_WEIGHTS_MAX_DIMS 8   /* safetensors; GGUF allows 4 (GGML_MAX_DIMS) */
#define KGRT_WEIGHTS_NAME_MAX 255 /* bytes of a tensor name */

typedef struct kgrt_weights kgrt_weights_t;

typedef enum kgrt_weights_format {
  KGRT_WEIGHTS_FORMAT_AUTO = 0, /* GGUF when the bytes start with "GGUF" */
  KGRT_WEIGHTS_FORMAT_GGUF = 1,
  KGRT_WEIGHTS_FORMAT_SAFETENSORS = 2,
} kgrt_weights_format_t;

/* One tensor of the file. Shapes are given both ways:
 *   shape[]: row-major, shape[ndim - 1] the innermost (contiguous) dim; the
 *            order kgen's tables, PyTorch and safetensors use.
 *   file_dims[]: as the file lists them: GGUF's ne[], innermost FIRST
 *            (ne[0] is the row length); for safetensors the same as shape.
 * A weight [vocab, hidden] has shape {vocab, hidden} and, in GGUF, file_dims
 * {hidden, vocab}. Quantized tensors count elements (weights), not blocks. */
typedef struct kgrt_weight_info {
  const char *name;  /* as in the file, NUL-terminated */
  const char *alias; /* the name in the other convention, or NULL */
  kgrt_dtype_t dtype;
  uint32_t ndim;
  int64_t shape[KGRT_WEIGHTS_MAX_DIMS];
  int64_t file_dims[KGRT_WEIGHTS_MAX_DIMS];
  uint64_t numel;
  size_t bytes;
  const void *data; /* in the mapping; GGUF: aligned to general.alignment;
                       safetensors: may be unaligned */
  uint64_t offset;  /* of data in its file */
  uint32_t file;    /* the shard, in order of first use in the index's
                       weight_map (0 for GGUF and single files) */
} kgrt_weight_info_t;

/* Opens `path`: a .gguf, a .safetensors, or a model.safetensors.index.json
 * (any path ending in ".json") whose "weight_map" names shards in the same
 * folder. The format is told by the content (GGUF magic; else safetensors),
 * and by the ".json" suffix for an index. */
kgrt_status_t kgrt_weights_open(const char *path, const kgrt_allocator_t *alloc,
                                kgrt_weights_t **out_weights, kgrt_error_t *err);

/* The same on `size` bytes at `data`, which must outlive the weights (nothing
 * is copied). `label` names them in messages (NULL: "<memory>"). */
kgrt_status_t kgrt_weights_open_memory(const void *data, size_t size,
                                       kgrt_weights_format_t format, const char *label,
                                       const kgrt_allocator_t *alloc,
                                       kgrt_weights_t **out_weights, kgrt_error_t *err);

/* Unmaps and frees; NULL is ignored. Infos and metadata pointers die with it. */
void kgrt_weights_close(kgrt_weights_t *weights);

kgrt_weights_format_t kgrt_weights_format(const kgrt_weights_t *weights);
/* GGUF version (2 or 3); 0 for safetensors. */
uint32_t kgrt_weights_version(const kgrt_weights_t *weights);
uint32_t kgrt_weights_count(const kgrt_weights_t *weights);
/* Tensor i (0 <= i < count) in file order (shards in index order); NULL
 * past the end. */
const kgrt_weight_info_t *kgrt_weights_at(const kgrt_weights_t *weights, uint32_t i);
/* By name: exact, else through the name map (kgrt_weights_map_name), so
 * "lm_head.weight" finds a GGUF "output.weight". NULL when absent. */
const kgrt_weight_info_t *kgrt_weights_find(const kgrt_weights_t *weights,
                                            const char *name);

/* Writes into out (size bytes, NUL-terminated) the name of the same tensor
 * in the other convention:
 *   token_embd.weight          <-> model.embed_tokens.weight
 *   output_norm.weight         <-> model.norm.weight
 *   output.weight              <-> lm_head.weight
 *   blk.N.attn_norm.weight     <-> model.layers.N.input_layernorm.weight
 *   blk.N.ffn_norm.weight      <-> model.layers.N.post_attention_layernorm.weight
 *   blk.N.attn_q / attn_k / attn_v / attn_output
 *                              <-> model.layers.N.self_attn.q_proj / k_proj / v_proj /
 * o_proj blk.N.ffn_gate / ffn_up / ffn_down
 *                              <-> model.layers.N.mlp.gate_proj / up_proj / down_proj
 * each with ".weight" or ".bias". Returns 1 when mapped, 0 when the name has
 * no counterpart (out = ""), -1 when out is too small. */
int kgrt_weights_map_name(const char *name, char *out, size_t size);

/* ---- metadata (GGUF key-values; safetensors "__metadata__" strings) ---- */

/* GGUF value types (gguf_type). */
typedef enum kgrt_meta_type {
  KGRT_META_U8 = 0,
  KGRT_META_I8 = 1,
  KGRT_META_U16 = 2,
  KGRT_META_I16 = 3,
  KGRT_META_U32 = 4,
  KGRT_META_I32 = 5,
  KGRT_META_F32 = 6,
  KGRT_META_BOOL = 7,
  KGRT_META_STRING = 8,
  KGRT_META_ARRAY = 9,
  KGRT_META_U64 = 10,
  KGRT_META_I64 = 11,
  KGRT_META_F64 = 12,
} kgrt_meta_type_t;

/* An array value: `count` elements of `type` (never ARRAY: nested arrays are
 * refused at open). Read it with kgrt_meta_array_int / _float / _next_string. */
typedef struct kgrt_meta_array {
  kgrt_meta_type_t type;
  uint64_t count;
  const unsigned char *data; /* the elements as the file stores them */
  const unsigned char *next; /* strings: where kgrt_meta_array_next_string reads */
  uint64_t index;            /* strings: how many have been read */
} kgrt_meta_array_t;

uint64_t kgrt_weights_meta_count(const kgrt_weights_t *weights);
/* Key i and its type; NULL past the end. Keys are NUL-terminated copies. */
const char *kgrt_weights_meta_key(const kgrt_weights_t *weights, uint64_t i,
                                  kgrt_meta_type_t *out_type);
/* NOT_FOUND when absent; INVALID_ARGUMENT (naming the key and both types)
 * when of another kind. A string is not NUL-terminated: use its length. */
kgrt_status_t kgrt_weights_meta_string(const kgrt_weights_t *weights, const char *key,
                                       const char **out_str, size_t *out_len,
                                       kgrt_error_t *err);
/* Any integer type or bool; OUT_OF_RANGE for a u64 above INT64_MAX. */
kgrt_status_t kgrt_weights_meta_int(const kgrt_weights_t *weights, const char *key,
                                    int64_t *out_value, kgrt_error_t *err);
/* f32, f64 or any integer type. */
kgrt_status_t kgrt_weights_meta_float(const kgrt_weights_t *weights, const char *key,
                                      double *out_value, kgrt_error_t *err);
kgrt_status_t kgrt_weights_meta_array(const kgrt_weights_t *weights, const char *key,
                                      kgrt_meta_array_t *out_array, kgrt_error_t *err);
/* Element i of an integer (or bool) array; -1 when out of range, not an
 * integer, or a u64 above INT64_MAX. */
int kgrt_meta_array_int(const kgrt_meta_array_t *array, uint64_t i, int64_t *out_value);
/* Element i of a float or integer array; -1 when out of range or not a number. */
int kgrt_meta_array_float(const kgrt_meta_array_t *array, uint64_t i, double *out_value);
/* The next string of a string array (not NUL-terminated); 0 at the end or
 * for another type. Strings are variable-length: this walks them in order. */
int kgrt_meta_array_next_string(kgrt_meta_array_t *array, const char **out_str,
                                size_t *out_len);

/* The vocabulary size: "<general.architecture>.vocab_size" when present;
 * else the rows of token_embd.weight (model.embed_tokens.weight), of
 * output.weight (lm_head.weight), or the count of tokenizer.ggml.tokens.
 * NOT_FOUND when none of them is there. */
kgrt_status_t kgrt_weights_vocab_size(const kgrt_weights_t *weights, int64_t *out_vocab,
                                      kgrt_error_t *err);

/* ---- binding into a loaded model ---- */

/* kgrt_model_bind_weights flags. */
#define KGRT_BIND_REFUSE_UNUSED                                                          \
  0x1u /* a file tensor no model weight takes is an error                                \
        */

/* Binds every weight of the model's table from `weights`. Table names are C
 * identifiers (kgen's weight() names), so a table weight T takes the file
 * tensor F when T == F, or else when T equals F or F's alias (the name map)
 * with every byte outside [A-Za-z0-9_] replaced by '_':
 *   blk_0_attn_q_weight  <- "blk.0.attn_q.weight"
 *   model_layers_0_self_attn_q_proj_weight <- "blk.0.attn_q.weight" (alias)
 * Two file tensors matching one table name is INVALID_ARGUMENT (ambiguous).
 * Every weight is checked first (found: else NOT_FOUND listing the missing;
 * dtype equal and row-major shape equal to the table's, symbolic dims at
 * their current values: else INVALID_ARGUMENT naming both), then each is
 * uploaded once with kgrt_model_set_weight straight from the mapping (mapped
 * pages are host memory: no staging copy). A failed upload leaves the
 * weights before it bound. */
kgrt_status_t kgrt_model_bind_weights(kgrt_model_t *model, const kgrt_weights_t *weights,
                                      uint32_t flags, kgrt_error_t *err);

#ifdef __cplusplus
}
#endif

#endif /* KGRT_WEIGHTS_H */
