/* ir.h - kgen's graph IR and the structures the passes hand on.
 *
 *   front.c  model's Lua graph   -> kg_graph_t (tensors, nodes, syms, io)
 *   fuse.c   kg_graph_t          -> kg_kernel_t list (map chains fused)
 *   plan.c   kernels + graph     -> arena offsets for intermediates
 *   lower.c  kernel + target     -> expanded source, args, grid rule
 *   table.c  everything          -> the C kernel table
 */
#ifndef KG_IR_H
#define KG_IR_H

#include <stdint.h>

#include "diag.h"
#include "kgrt_table.h"

#define KG_MAX_INPUTS 16
#define KG_MAX_OUTPUTS 6
#define KG_MAX_REGIONS 3 /* sibling matmuls one kernel computes (KG_FUSE_REGIONS) */
#define KG_MAX_DIM_ARGS 4

typedef struct kg_dim {
  int64_t value; /* constant, when sym < 0 */
  int sym;       /* index into kg_graph_t.syms, or -1 */
} kg_dim_t;

typedef enum kg_tensor_kind {
  KG_TENSOR_INPUT = 0,
  KG_TENSOR_WEIGHT,
  KG_TENSOR_VALUE, /* produced by a node */
} kg_tensor_kind_t;

typedef struct kg_dtype_info {
  kgrt_dtype_t code;
  const char *name;  /* "f16" */
  const char *ctype; /* "kg_f16"; quantized: "unsigned short" (blocks in 16-bit units) */
  int size;          /* bytes per element; quantized: 0 */
  /* GGUF block formats (weights only): weights and bytes per block, else 0 */
  int block_elems, block_bytes;
} kg_dtype_info_t;

typedef struct kg_tensor {
  char *name; /* inputs and weights; NULL for values */
  kg_tensor_kind_t kind;
  int io_index;     /* index among inputs or weights, else -1 */
  int output_index; /* index among outputs, else -1 */
  kg_dtype_info_t dtype;
  int rank;
  kg_dim_t dims[KGRT_MAX_DIMS];
  int producer;   /* node index, or -1 */
  int persistent; /* state a kernel keeps across runs: zeroed at load, never shared */
  int alias;      /* an in-place op's result: the operand tensor it updates; a view:
                     the tensor whose memory it reads (view set); else -1 */
  int view; /* a view (reshape, split): another shape over alias's memory, no kernel */
  uint64_t view_offset; /* a view: where it starts in alias's memory, in bytes */
  int written; /* a kernel updates its memory in place (it is a storage tensor) */
  /* weights of a split model: this rank's part of the file's tensor, cut into
   * `parts` along dim `split` (parts 1: the whole tensor) */
  int split, parts;
  int uses;   /* operand uses by nodes */
  int reader; /* the first live node that reads it as an operand, or -1 (front.c) */
  /* set by plan.c for values that live in the arena */
  int in_arena;
  uint64_t arena_offset;
} kg_tensor_t;

typedef struct kg_hole {
  char *name;
  char *value;
} kg_hole_t;

#define KG_MAX_VARIANTS 8

/* The fusion roles a template accepts (its declaration's `fuse`). */
enum {
  KG_FUSE_CHAIN = 1,        /* an elementwise expression: EXPR over the list IN */
  KG_FUSE_EPILOGUE = 2,     /* EPI over acc0 and EPI_IN where it stores its result */
  KG_FUSE_PAIR = 4,         /* a second weight beside w, acc1 in EPI */
  KG_FUSE_NORM = 8,         /* an RMS norm of x as its prologue (NORM, NG_T, NEPS) */
  KG_FUSE_RMS = 16,         /* this row op is an RMS norm a NORM template can take in */
  KG_FUSE_REGIONS = 32,     /* sibling matmuls of one x as regions of one N: weights w,
                               wr1 (wr2), results y, yr1 (yr2); R1 (R2) where each
                               starts (REGIONS) */
  KG_FUSE_ROTARY = 64,      /* this row op rotates pairs of its operand 0 [T, H, D] at the
                               positions operand 1 (holes D, HALF, HALF_LAYOUT, PASS, REV):
                               a REGION_EPI template may take it in */
  KG_FUSE_CACHE = 128,      /* this op writes its operand 1 [T, KVH, D] into the cache,
                               its operand 0 [L, KVH, SLOTS, D], at the positions operand
                               2, in place (holes C_T, SLOTS, D; its dim arg 1 is the
                               layer): a REGION_EPI template may take it in */
  KG_FUSE_REGION_EPI = 256, /* a REGIONS template that takes a ROTARY op and a CACHE
                               op on each region's result (REPI, ROPE<r>, KV<r>,
                               RE_*: see lower.c's region_epi_holes) */
  KG_FUSE_NORM_OUT = 512,   /* an epilogue template that also stores what an RMS norm of
                               its result needs (NOUT: z = y times the norm's weight,
                               NOG_T, and part, y's sums of squares per NPC columns) */
  KG_FUSE_ROW_SCALE = 1024, /* scales each row of its product by the RMS norm's rsqrt
                               from such sums (RSCALE, RS_EPS, RS_K, NPC): x is z */
  KG_FUSE_ROW_SUMS = 2048,  /* a split norm's sums of squares are its consumers'
                               work: as NORM_OUT it writes z alone, as ROW_SCALE
                               it adds the squares of the norm's operand itself
                               (rsum is that operand, of RS_T) */
  KG_FUSE_SPLIT_DEFAULT = 4096, /* a norm is split around its variants (NORM_OUT,
                                   ROW_SCALE) even where the model does not ask */
};

/* The columns one sum of squares of KG_FUSE_NORM_OUT covers (the hole NPC). */
#define KG_NORM_PART_COLS 32

/* What a template declares beside its op (kg.template in lua/ops/): C
 * decides from these facts, never from a template's or an op's name. */
typedef struct kg_template {
  char *name;       /* templates/<name>.hip */
  int num_holes;    /* the holes the op and the params rule may give, by name */
  kg_hole_t *holes; /* value NULL: required; else the default when not given */
  int num_libs;     /* templates/lib_<name>.hip it calls into */
  char **libs;
  int num_sources; /* the files the params rule may expand: its own (kg.template's
                      file, default name), then others */
  char **sources;
  unsigned fuse;           /* KG_FUSE_* */
  int weights_before_wait; /* reads its weights before kg_dep_wait() */
} kg_template_t;

/* How a kernel for a node is generated: its template, holes and grid. */
typedef enum kg_grid {
  KG_GRID_MAP = 0, /* map kernels: elements of the result */
  KG_GRID_ROWS,    /* one workgroup per row of `cols` elements of grid_of */
  KG_GRID_TILES,   /* ceil(tile_units / per_block) x repeat workgroups, both
                      chosen by the template's params rule */
} kg_grid_t;

typedef enum kg_hidden { KG_HIDDEN_ALL, KG_HIDDEN_NONE, KG_HIDDEN_PLAIN } kg_hidden_t;

typedef struct kg_variant {
  char *tmpl;  /* template: "map", "rmsnorm", ... */
  int decl;    /* its declaration: graph.templates[decl] */
  char *label; /* names the kernel of one of several variants, or NULL (the template) */
  char *fuse_key; /* what its params rule reads besides the holes (a GEMM's tile
                     override), or NULL: variants fuse (a pair, regions) only with
                     equal keys */
  /* which of the node's hidden results (outputs 1 ..) its kernels take:
   * KG_HIDDEN_ALL (every kernel), _NONE, or _PLAIN (only a kernel of this
   * node alone or with an epilogue chain: no pair, regions or norm) */
  kg_hidden_t hidden;
  kg_grid_t grid;
  int64_t cols;           /* rows grid: the row length */
  int grid_of;            /* rows grid: rows = numel(this tensor) / cols */
  kgrt_expr_t tile_units; /* tiles grid: the run-time extent tiled (rows of x) */
  int tiles_columns;      /* tile_units are w's columns: a region kernel's, all of its
                             regions' (a GEMV's; a GEMM tiles rows) */
  int num_dim_args;       /* run-time sizes passed as i64 kernel args */
  kgrt_expr_t dim_args[KG_MAX_DIM_ARGS];
  int num_holes; /* template holes from the op, sorted by name */
  kg_hole_t *holes;
  int params_ref; /* Lua registry ref of the op's params_info table, or -1 */
  /* runs when select_min <= select <= select_max (select.scale 0: always) */
  kgrt_expr_t select;
  int64_t select_min, select_max;
} kg_variant_t;

typedef struct kg_node {
  char *op; /* "rmsnorm" */
  /* where the model called the op, for the errors C finds later (file NULL:
   * not known; only printable bytes) */
  char *file;
  int line;
  int num_inputs;
  int inputs[KG_MAX_INPUTS]; /* tensor ids */
  int output;                /* tensor id: outputs[0] */
  int num_outputs;           /* results, in the order the op returns them */
  int outputs[KG_MAX_OUTPUTS];
  int inplace; /* operand index the kernel updates in place, or -1 */
  /* the bytes a kernel of the node reads from operand i (bit i of
   * moved_in_mask) or writes to result j (moved_out_mask) where the op says
   * they are fewer than the tensor's (node.moved: a KV cache, say) */
  unsigned moved_in_mask, moved_out_mask;
  kgrt_expr_t moved_in[KG_MAX_INPUTS];
  kgrt_expr_t moved_out[KG_MAX_OUTPUTS];
  kgrt_collective_t collective; /* a collective step (no variants), else NONE */
  /* the rank it runs on (a pipeline stage, on_rank), -1: every rank; a
   * broadcast: its root (the result is on every rank) */
  int rank;
  int dead;   /* no output, state or live node needs its results: no kernel */
  char *expr; /* map: expression over $0, $1, ... */
  /* map: kept out of its consumer's fused expression, so that the fused
   * chain stays inside the compilers' limits (set by kg_fuse) */
  int own_kernel;
  int split_norm; /* an RMS norm the model lets kgen split around GEMMs (fuse.c) */
  /* one kernel per variant; several when the run-time dims choose among them
   * (matmul: up to three, by the rows of x) */
  int num_variants;
  kg_variant_t variants[KG_MAX_VARIANTS];
} kg_node_t;

typedef struct kg_sym {
  char *name;
  int64_t max;
  int rank;  /* the model's rank (0 .. max), kernel arguments only (KGRT_SYM_RANK) */
  int count; /* a count (0 .. max): launches' units and kernel arguments, never a
                tensor's dims (KGRT_SYM_COUNT) */
} kg_sym_t;

typedef struct kg_output {
  char *name;
  int tensor;
} kg_output_t;

typedef struct kg_graph {
  char *model; /* C identifier, from the file name */
  int num_syms;
  kg_sym_t *syms;
  int num_tensors;
  kg_tensor_t *tensors;
  int num_nodes;
  kg_node_t *nodes;
  int num_inputs;
  int *inputs; /* tensor ids */
  int num_weights;
  int *weights;
  int num_outputs;
  kg_output_t *outputs;
  int ranks;         /* the ranks a split model's plan is one of (ranks(n)); 1 */
  int num_templates; /* the declarations of the templates the nodes use */
  kg_template_t *templates;
} kg_graph_t;

/* A kernel to generate: one node, or a fused chain of map nodes. */
typedef struct kg_kernel {
  char name[128];
  const char *tmpl;             /* NULL for a collective step */
  kgrt_collective_t collective; /* a collective step: ins[0] -> outs[0], no kernel */
  int rank;                     /* the step's rank (kgrt_step_t.rank): -1 every rank */
  int node;                     /* the root node (its outputs are the kernel's) */
  int variant;                  /* which of the root node's variants */
  /* a matmul kernel with an epilogue: the map node whose result it writes
   * (else -1), and the matmuls it computes (acc0, acc1 in expr) */
  int epilogue_root;
  int num_mm;
  /* it may take its node's hidden results, of a KG_HIDDEN_PLAIN variant
   * (its params rule sees info.scratch and may decline): the last outs,
   * after its result (a region group's: after its regions' results) */
  int scratch;
  /* sibling matmuls of one x computed as regions of one N (KG_FUSE_REGIONS):
   * 0, or how many (2 or 3); their weights follow x, their results are outs */
  int num_regions;
  /* per region: the ROTARY node applied to its result and the CACHE node that
   * stores it (KG_FUSE_REGION_EPI), else -1; any: the positions tensor
   * follows x, the weights and a norm's weight, then each region's cache
   * (writable), and each cache's layer follows M as an argument */
  int rope[KG_MAX_REGIONS], cache[KG_MAX_REGIONS];
  unsigned writable; /* bit i: ins[i] is written in place */
  /* an RMS norm node taken in as x's prologue (KG_FUSE_NORM; else -1): x is
   * that node's operand, its weight (if any) the operand after the weights */
  int norm;
  /* an RMS norm node split around the kernel (else -1): norm_out, this
   * kernel's result is the norm's operand, and it also writes z and the
   * sums (outs[num_outs - 2], outs[num_outs - 1]; KG_FUSE_ROW_SUMS: z alone;
   * the norm's weight, if any, follows w); row_scale, x is z, and the sums
   * (KG_FUSE_ROW_SUMS: the norm's operand) follow w */
  int norm_out, row_scale;
  /* a norm kernel that runs only where its consumers' variants without the
   * prologue run: the plan's select for it (has_select) */
  int has_select;
  kgrt_expr_t select;
  int64_t select_min, select_max;
  int output;   /* outs[0] */
  int num_outs; /* tensors written: the root node's outputs (none when in place) */
  int outs[KG_MAX_OUTPUTS];
  int num_ins; /* operands read from memory, in first-use order */
  int ins[KG_MAX_INPUTS];
  char *expr; /* map kernels: the fused expression over a0, a1, ...;
                 matmul kernels with an epilogue: over acc0, acc1, a<k> */
} kg_kernel_t;

typedef struct kg_program {
  int num_kernels;
  kg_kernel_t *kernels;
  uint64_t arena_bytes;
  uint32_t arena_align;
  uint64_t arena_zero_bytes; /* the persistent values, at the arena's start */
} kg_program_t;

void kg_graph_free(kg_graph_t *g);
void kg_program_free(kg_program_t *p);

/* Where a matmul kernel's epilogue operands start in k->ins: after x, the
 * weights, a norm's weight (taken in or written) and a split norm's sums. */
int kg_kernel_epi_first(const kg_graph_t *g, const kg_kernel_t *k);

/* The columns of region kernel k's first `upto` regions (the rows N_r of
 * each region's weight [N_r, K], which follows x). */
int64_t kg_kernel_region_columns(const kg_graph_t *g, const kg_kernel_t *k, int upto);
/* Does a region's result of kernel k go on to a rotation or a cache (the
 * REGION_EPI template's REPI)? */
int kg_kernel_region_epilogue(const kg_kernel_t *k);

/* The tensor whose memory `t` is: t itself, or what an in-place result aliases. */
/* The facts of dtype `name` ("f32", "q4_0", ...): 0, or -1 for no such dtype. */
int kg_dtype_lookup(const char *name, kg_dtype_info_t *out);
int kg_tensor_storage(const kg_graph_t *g, int t);
/* Hole `name` of node n's variant v (its op's value), or NULL. */
const char *kg_node_hole(const kg_graph_t *g, int n, int v, const char *name);
/* Records an error at node n's line in the model ("FILE:LINE: error: ..."),
 * or as kg_error where that is not known; returns -1. */
int kg_node_error(kg_diag_t *d, const kg_graph_t *g, int n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Size expressions (kgrt_expr_t): numel of a tensor (-1 with more than
 * KGRT_EXPR_SYMS syms, or a constant part that overflows), and evaluation
 * with every symbol at its max: kg_expr_max gives -1 on overflow;
 * kg_expr_at_max saturates at INT64_MAX / INT64_MIN (for sizes already
 * checked, gen/sizes.c). */
int kg_tensor_numel(const kg_graph_t *g, const kg_tensor_t *t, kgrt_expr_t *out);
int kg_expr_max(const kg_graph_t *g, const kgrt_expr_t *e, int64_t *out);
int64_t kg_expr_at_max(const kg_graph_t *g, const kgrt_expr_t *e);
kgrt_expr_t kg_expr_const(int64_t v);
/* A tensor's bytes with every symbol at its max (a quantized one: its
 * blocks); -1 on overflow. */
int kg_tensor_bytes_max(const kg_graph_t *g, const kg_tensor_t *t, uint64_t *out);

#endif /* KG_IR_H */
