/* target.h - a target, read from its data file targets/<name>.lua. */
#ifndef KG_TARGET_H
#define KG_TARGET_H

#include "diag.h"

/* the sandbox (sandbox.h), which only the loaders below take */
typedef struct kg_sandbox kg_sandbox_t;

#define KG_TARGET_MAX_FLAGS 16
#define KG_TARGET_MAX_MMA 4

typedef struct kg_target {
  char *name;        /* "gfx1100" */
  char *description; /* one line for --list-targets */
  char *platform;    /* "amdgcn": picks prelude_<platform>.hip and the backends */
  char *triple;
  int wave;
  int max_block;
  int lds_bytes;
  /* early_launch = true: kernels whose template calls kg_dep_wait() are marked
   * KGRT_KERNEL_EARLY_LAUNCH (programmatic dependent launch); optional */
  int early_launch;
  int num_flags;
  char *flags[KG_TARGET_MAX_FLAGS];
  /* the distinct matrix-instruction kinds of its `mma` list ("wmma", "mfma",
   * "mma"), in order: each source for it defines KG_MMA_<KIND> */
  int num_mma;
  char *mma[KG_TARGET_MAX_MMA];
  int ref; /* Lua registry ref of the target's table */
} kg_target_t;

/* Loads targets/<name>.lua. An unknown name is an error listing the known ones. */
int kg_target_load(kg_sandbox_t *sb, const char *name, kg_target_t *out, kg_diag_t *d);
void kg_target_free(kg_target_t *t);
/* Comma-separated names of every embedded target, sorted. Caller frees. */
char *kg_target_names(void);
/* Prints "name  description" for each target. */
int kg_target_list(kg_sandbox_t *sb, kg_diag_t *d);

#endif /* KG_TARGET_H */
