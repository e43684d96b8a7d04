/* lower.h - per-target kernel generation: template parameters (from the op
 * descriptions' Lua rules), expanded source, kernel arguments and grid rules. */
#ifndef KG_LOWER_H
#define KG_LOWER_H

#include "buf.h"
#include "diag.h"
#include "ir.h"
#include "signature.h"
#include "target.h"

/* One kernel's answer of its template's params rule on a target, resolved
 * while the sandbox is open (params.c): lowering runs no Lua. */
typedef struct kg_params {
  int block, vec, unroll; /* BLOCK, VEC, UNROLL */
  uint32_t per_block;     /* tiles grids: units a workgroup takes */
  uint32_t repeat;        /* tiles grids: workgroups per unit (default 1) */
  uint32_t dyn_shared;    /* a KG_SHARED_BUFFER's bytes on cuda (dynamic shared) */
  /* the root node's node.moved of result j times moved_times[j] - 1; 0: once */
  int64_t moved_times[KG_MAX_OUTPUTS];
  int hidden;      /* it takes the node's hidden results (see kg_kernel_t.scratch) */
  char source[64]; /* templates/<source>.hip to expand */
  int num_holes;   /* the rule's extra holes, sorted by name */
  kg_hole_t *holes;
} kg_params_t;

#define KG_MAX_ARGS (KG_MAX_INPUTS + KG_MAX_OUTPUTS + KG_MAX_DIM_ARGS + 1)

typedef struct kg_larg {
  kgrt_arg_kind_t kind;
  int tensor;        /* buffers: the tensor whose memory it is (storage) */
  int view;          /* buffers: the tensor as the kernel reads it (its bytes) */
  uint64_t offset;   /* buffers: the view's start in the storage, in bytes */
  int is_const;      /* buffers read only */
  kgrt_expr_t value; /* KGRT_ARG_I64 */
  kgrt_expr_t moved; /* buffers: a node's node.moved for it (scale 0: its bytes) */
  /* the template's name for its parameter (signature.c); "" for a
   * collective's */
  char name[KG_ARG_NAME_MAX];
} kg_larg_t;

typedef struct kg_lowered {
  int block;
  int vec;
  int unroll; /* vectors per thread (map) */
  int num_args;
  kg_larg_t args[KG_MAX_ARGS];
  kgrt_expr_t units;
  uint32_t per_block;
  uint32_t repeat;
  uint32_t dyn_shared; /* dynamic shared bytes a launch passes (cuda; else 0) */
  kgrt_expr_t select;  /* the variant's run-time choice (scale 0: always) */
  int64_t select_min, select_max;
  uint32_t flags; /* KGRT_KERNEL_* for the table */
  /* the params rule's moved_times, plus 1: the root node's node.moved of
   * result j times moved_times[j] - 1 in this kernel (a decode attention's
   * parts: its splits; 0 for a variant that never touches them); 0: once */
  int64_t moved_times[KG_MAX_OUTPUTS];
  /* content addressing: the kernel whose code this one runs (itself, or the
   * first with the same expanded text and launch facts) and that code's
   * symbol, <model>_<ops>_<8 hex digits of the text's hash> */
  int code;
  char name[160];
} kg_lowered_t;

/* Lowers every kernel for target t: fills lowered[] (num_kernels entries),
 * the device source (prelude_<platform>.hip) and the sim source (sim prelude,
 * plus a thunk per kernel; see runtime/kgrt_sim_abi.h). Kernels whose
 * expansions are the same text share one function (lowered[k].code), so a
 * model's distinct kernels, not its layers, are what gets compiled. With
 * `holes` (num_kernels buffers, else NULL), each kernel's holes as its
 * template was expanded with them (kg_holes_dump), for --emit=kernels. */
int kg_lower(const kg_graph_t *g, const kg_program_t *p, const kg_target_t *t,
             const kg_params_t *params, kg_lowered_t *lowered, kg_buf_t *device_src,
             kg_buf_t *sim_src, kg_buf_t *holes, kg_diag_t *d);

#endif /* KG_LOWER_H */
