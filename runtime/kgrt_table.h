/* kgrt_table.h - the data a kgen-generated kernel table is made of.
 *
 * kgen writes <model>.c and <model>_<arch>.c as plain C11 initialisers of these
 * structs; kgrt reads them. Everything here is const data: no pointers into the
 * host process, no functions. Bump KGRT_TABLE_ABI on any layout change. */
#ifndef KGRT_TABLE_H
#define KGRT_TABLE_H

#include <stddef.h>
#include <stdint.h>

#define KGRT_TABLE_ABI 12
#define KGRT_MAX_DIMS 8
#define KGRT_EXPR_SYMS 4

/* The sizes kgen plans and kgrt accepts: a tensor's (and the arena's) bytes
 * and elements at most 2^48, so offsets and element indices (64-bit in the
 * kernels) keep 2^15 of headroom for index arithmetic; every dim and a sym's
 * max at most 2^31 - 1, since kernels index within a dim (a row, a position,
 * a pixel, a workgroup) with 32-bit ints and i32 tensors hold indices. */
#define KGRT_MAX_BUFFER_BYTES ((uint64_t)1 << 48)
#define KGRT_MAX_ELEMENTS ((uint64_t)1 << 48)
#define KGRT_MAX_DIM INT32_MAX

typedef enum kgrt_dtype {
  KGRT_DTYPE_F32 = 0,
  KGRT_DTYPE_F16 = 1,
  KGRT_DTYPE_BF16 = 2,
  KGRT_DTYPE_I32 = 3,
  /* GGUF (ggml) block formats, weights only (runtime/kgrt_gguf.h): a tensor's
   * bytes are numel / block weights * block bytes; its last dim is a constant
   * multiple of the block (Q8_0, Q4_0: 32 weights in 34, 18 bytes; Q4_K, Q6_K:
   * 256 in 144, 210). */
  KGRT_DTYPE_Q8_0 = 4,
  KGRT_DTYPE_Q4_0 = 5,
  KGRT_DTYPE_Q4_K = 6,
  KGRT_DTYPE_Q6_K = 7,
} kgrt_dtype_t;

/* A run-time size: scale * sym[0] * sym[1] * ... (entries < 0 are unused).
 * Symbols index kgrt_model_table_t.syms. A constant has every sym < 0. */
typedef struct kgrt_expr {
  int64_t scale;
  int16_t sym[KGRT_EXPR_SYMS];
} kgrt_expr_t;

/* kgrt_sym_t.flags. RANK: not a dimension but the model's rank in its
 * communicator (0 before kgrt_model_join), 0 .. max with max = ranks - 1: kgrt
 * sets it, a caller cannot. Only kernel arguments' values use it (the row
 * base of an embedding table split by rows); at most one per table. */
#define KGRT_SYM_RANK 0x1u
/* COUNT: a count that may be 0 (0 .. max), which sizes launches and kernel
 * arguments but no tensor (the tokens of a step one path of a kernel takes,
 * say): a launch whose units it makes 0 is skipped. */
#define KGRT_SYM_COUNT 0x2u

/* A named dimension bound at run time (rows T, say), with the largest value
 * the plan reserves memory for. */
typedef struct kgrt_sym {
  const char *name;
  int64_t max;
  uint32_t flags; /* KGRT_SYM_* */
} kgrt_sym_t;

/* A dimension: a constant (sym < 0) or a symbol. */
typedef struct kgrt_dim {
  int64_t value; /* the constant, or 0 when sym >= 0 */
  int32_t sym;
} kgrt_dim_t;

/* kgrt_tensor_info_t.flags. STATE (inputs only): the model keeps this input
 * on the device across runs (a KV cache that an op updates in place): the
 * runtime allocates it at the dims' maxima, zeroes it at load and on
 * kgrt_model_reset_state, and needs no binding for it (one may still copy
 * bytes in with kgrt_model_set_input). */
#define KGRT_TENSOR_STATE 0x1u

/* An input, weight or output of the model. */
typedef struct kgrt_tensor_info {
  const char *name;
  kgrt_dtype_t dtype;
  uint32_t rank;
  kgrt_dim_t dims[KGRT_MAX_DIMS];
  uint32_t flags; /* KGRT_TENSOR_* */
  /* Weights of a model split over ranks (kgrt_model_table_t.ranks): parts > 1
   * when the file's tensor is cut into `parts` equal parts along dim `split`
   * and this is one of them; rank r binds part r * parts / ranks. 0 or 1:
   * the whole tensor, the same on every rank. */
  uint32_t split;
  uint32_t parts;
} kgrt_tensor_info_t;

typedef enum kgrt_space {
  KGRT_SPACE_ARENA = 0,  /* index unused; offset into the plan's arena */
  KGRT_SPACE_INPUT = 1,  /* index into model inputs */
  KGRT_SPACE_WEIGHT = 2, /* index into model weights */
  KGRT_SPACE_OUTPUT = 3, /* index into model outputs */
} kgrt_space_t;

typedef enum kgrt_arg_kind {
  KGRT_ARG_BUFFER = 0, /* a global pointer, 8 bytes */
  KGRT_ARG_I64 = 1,    /* a 64-bit integer evaluated from `value` */
} kgrt_arg_kind_t;

/* One kernel argument as the kernel declares it. `name`: its parameter's
 * name in the kernel's source (an identifier of at most KGRT_ARG_NAME_MAX -
 * 1 characters, unique in the kernel), or NULL; where the code object
 * names its arguments too (hsaco metadata's .name), the two must agree. */
typedef struct kgrt_kernel_arg {
  kgrt_arg_kind_t kind;
  uint32_t offset; /* in the kernarg segment */
  uint32_t size;
  const char *name;
} kgrt_kernel_arg_t;
#define KGRT_ARG_NAME_MAX 48

/* kgrt_kernel_t.flags, what a kernel lets the runtime do. EARLY_LAUNCH: the
 * kernel calls kg_dep_wait() (templates/common.hip) before it reads anything
 * but weights (or what earlier runs wrote) or writes anything, so the runtime
 * may launch it while the kernels before it in the queue are still running
 * (cuda: programmatic dependent launch, compute capability 9.0 and later); a
 * run's first kernel never is. */
#define KGRT_KERNEL_EARLY_LAUNCH 0x1u

/* One kernel of a code object, with kgen's launch facts and the figures read
 * back from the code object's metadata. */
typedef struct kgrt_kernel {
  const char *name; /* symbol name; the descriptor is name + ".kd" */
  uint32_t block_size;
  uint32_t kernarg_size;
  uint32_t num_args;
  const kgrt_kernel_arg_t *args;
  uint32_t wave_size;
  uint32_t lds_bytes;
  uint32_t vgprs;
  uint32_t sgprs;
  uint32_t scratch_bytes;
  uint32_t dyn_lds_bytes; /* dynamic shared memory each launch passes (cuda) */
  uint32_t flags;         /* KGRT_KERNEL_* */
} kgrt_kernel_t;

/* What a step passes for one kernel argument. */
typedef struct kgrt_step_arg {
  kgrt_space_t space; /* buffers only */
  uint32_t index;     /* input/weight/output index */
  uint64_t offset;    /* arena byte offset */
  kgrt_expr_t bytes;  /* buffers: bytes the kernel may touch */
  kgrt_expr_t value;  /* KGRT_ARG_I64: the value */
  /* buffers: the bytes a launch reads and writes in it where the op says
   * they are fewer than `bytes` (a KV cache: one layer's keys of the
   * context), for the profile; scale 0: `bytes`, or none where sym[0] is
   * KGRT_MOVED_NONE */
  kgrt_expr_t moved;
  /* the name of the kernel argument it is for, or NULL: where both it and
   * that argument's name are given they must be the same (a step whose
   * arguments are out of order is refused, naming both) */
  const char *name;
} kgrt_step_arg_t;
#define KGRT_MOVED_NONE (-2)

/* kgrt_step_t.collective: a step that combines a value over the ranks of a
 * split model instead of launching a kernel (its kernel is unused). Its two
 * arguments are buffers, args[0] read and args[1] written, of `dtype`;
 * units is args[0]'s elements. A model not joined to a communicator (one
 * rank) copies args[0] into args[1]. Every rank runs every collective step. */
typedef enum kgrt_collective {
  KGRT_COLLECTIVE_NONE = 0,       /* a kernel launch */
  KGRT_COLLECTIVE_ALL_REDUCE = 1, /* args[1] = the sum over the ranks of args[0] */
  KGRT_COLLECTIVE_ALL_GATHER = 2, /* args[1] = every rank's args[0], in rank order */
  KGRT_COLLECTIVE_BROADCAST = 3,  /* args[1] = rank `rank`'s args[0] (the root's) */
} kgrt_collective_t;
/* One launch of the plan: grid.x = ceil(units / per_block) * repeat, block =
 * the kernel's; skipped when units <= 0. A step with select.scale != 0 runs
 * only when select_min <= select <= select_max: a node built as several kernels
 * (matmul: GEMV for a few rows, GEMM for more) has one step per kernel, and
 * the run-time dims pick exactly one of them. A kernel step with rank >= 0
 * runs on that rank only (a pipeline's stage: the ops a model placed there
 * with on_rank); -1: on every rank. */
typedef struct kgrt_step {
  uint32_t kernel;
  kgrt_expr_t units;
  uint32_t per_block;
  uint32_t repeat; /* >= 1: workgroups per unit block (tile columns, batches) */
  kgrt_expr_t select;
  int64_t select_min, select_max;
  const kgrt_step_arg_t *args; /* kernel's num_args entries (collectives: 2) */
  kgrt_collective_t collective;
  kgrt_dtype_t dtype; /* collectives: the elements' dtype */
  int32_t rank;       /* the rank a kernel step runs on, a broadcast's root; -1 */
} kgrt_step_t;

/* Everything built for one architecture. */
typedef struct kgrt_arch_table {
  const char *arch;   /* "gfx1100", "gfx942", "sm_90", ... */
  const char *triple; /* "amdgcn-amd-amdhsa", "nvptx64-nvidia-cuda" */
  uint32_t wave_size;
  const unsigned char *image; /* the code object (hsaco, cubin) */
  size_t image_size;
  uint64_t image_hash;            /* kgrt_hash64 of the image's bytes (kgrt_hash.h) */
  const unsigned char *sim_image; /* host shared object for the sim device, or NULL */
  size_t sim_image_size;
  uint64_t sim_image_hash; /* kgrt_hash64 of the sim image's bytes */
  uint32_t num_kernels;
  const kgrt_kernel_t *kernels;
  uint32_t num_steps;
  const kgrt_step_t *steps;
  uint64_t arena_bytes; /* planned with every symbol at its max */
  uint32_t arena_align;
  /* The arena's first arena_zero_bytes are state that kernels keep across
   * runs (attention's counts of finished splits): zeroed at load, shared with
   * no other value. */
  uint64_t arena_zero_bytes;
} kgrt_arch_table_t;

/* The model: its interface and every architecture built for it. */
typedef struct kgrt_model_table {
  uint32_t abi; /* KGRT_TABLE_ABI */
  const char *name;
  const char *kgen_version;
  uint32_t num_syms;
  const kgrt_sym_t *syms;
  uint32_t num_inputs;
  const kgrt_tensor_info_t *inputs;
  uint32_t num_weights;
  const kgrt_tensor_info_t *weights;
  uint32_t num_outputs;
  const kgrt_tensor_info_t *outputs;
  uint32_t num_arches;
  const kgrt_arch_table_t *const *arches;
  /* 0 or 1: a whole model; N: a model split over N ranks, tensor parallel
   * (every rank runs every step on its part of the weights) or pipeline
   * parallel (steps placed on ranks, values handed on by broadcasts): every
   * rank loads this table and joins a communicator of N (kgrt_model_join). */
  uint32_t ranks;
} kgrt_model_table_t;

#endif /* KGRT_TABLE_H */
