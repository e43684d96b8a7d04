/* sizes.h - the sizes kgen plans, checked against what kgrt loads
 * (runtime/kgrt_table.h: KGRT_MAX_DIM, KGRT_MAX_ELEMENTS, KGRT_MAX_BUFFER_BYTES;
 * lua/kgen/tensor.lua checks the same at the model's line, this is C's own check of
 * what it read back). */
#ifndef KG_SIZES_H
#define KG_SIZES_H

#include "diag.h"
#include "ir.h"
#include "lower.h"

/* Every sym's max and every dim in 1 .. 2^31 - 1 (a sym index in range), and
 * every tensor's elements and bytes at the syms' maxima at most 2^48. Errors
 * name `path` (the model file) and the tensor. */
int kg_sizes_graph(const kg_graph_t *g, const char *path, kg_diag_t *d);
/* The plan's arena at most 2^48 bytes. */
int kg_sizes_plan(const kg_program_t *p, const char *path, kg_diag_t *d);
/* Every kernel's grid at the syms' maxima: ceil(units / per_block) * repeat
 * workgroups of BLOCK threads, at most 2^32 - 1 threads in all (one launch,
 * as kgrt checks it). */
int kg_sizes_grids(const kg_graph_t *g, const kg_program_t *p,
                   const kg_lowered_t *lowered, const char *arch, const char *path,
                   kg_diag_t *d);

#endif /* KG_SIZES_H */
