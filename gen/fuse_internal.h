/* fuse_internal.h - what the fusion pass's files share (internal to gen/):
 * the predicates on nodes, chains and epilogues (fuse_chain.c), RMS norms
 * taken in or split (fuse_norm.c), regions and their epilogues
 * (fuse_region.c); fuse.c runs them (kg_fuse).
 * Needs: ir.h, buf.h. */
#ifndef KG_FUSE_INTERNAL_H
#define KG_FUSE_INTERNAL_H

#include <stdint.h>

#include "buf.h"
#include "diag.h"
#include "ir.h"

/* The RMS norms kernels take in: of[m], the norm matmul m reads as x (its
 * variants with KG_FUSE_NORM take it as a prologue, those with
 * KG_FUSE_ROW_SCALE, where it is split, as a row scale); out_of[m], the
 * split norm that reads m's epilogue result; for a split norm p, split[p]
 * (else 0), part[p] the tensor of its sums where a producer's variant
 * writes them (else -1), and range[p] the select range where it is split
 * (the consumers' variants without the prologue: all of them, or the
 * lowest ones). */
typedef struct norms {
  int *of, *out_of, *part;
  char *split;
  kg_kernel_t *range;
} norms_t;

/* The fusion roles of the template of node's variant v. */
static inline unsigned kg_fuse_roles(const kg_graph_t *g, int node, int v) {
  if (v >= g->nodes[node].num_variants) /* a collective step: no template */
    return 0;
  return g->templates[g->nodes[node].variants[v].decl].fuse;
}

/* ---- fuse_chain.c: map chains and matmul epilogues ---- */

/* An elementwise node: its template takes a chain expression. */
int kg_fuse_is_map(const kg_graph_t *g, int node);
/* A node that can take an epilogue (every variant's template accepts one). */
int kg_fuse_is_matmul(const kg_graph_t *g, int node);
void kg_fuse_take_hidden(const kg_graph_t *g, int n, int v, kg_kernel_t *k);
/* Do variants p and q read the same facts besides their holes (fuse_key)? */
int kg_fuse_same_key(const kg_variant_t *p, const kg_variant_t *q);
/* Does map node n's value get spliced into its consumer? */
int kg_fuse_is_inlined(const kg_graph_t *g, int n);
/* The matmuls (at most 2) the map chain rooted at n takes as producers. */
void kg_fuse_chain_matmuls(const kg_graph_t *g, int n, int root, int mm[2], int *count);
/* The map root whose epilogue matmul node m becomes, or -1. */
int kg_fuse_epilogue_of(const kg_graph_t *g, int m);
/* Marks own_kernel where a chain would grow past KG_CHAIN_DEPTH or
 * KG_CHAIN_TENSORS. */
void kg_fuse_cut_chains(kg_graph_t *g);
/* Appends node n's expression with its operands replaced (acc<i>, a<k>). */
int kg_fuse_splice(const kg_graph_t *g, int n, kg_kernel_t *k, const int *mm, int num_mm,
                   kg_buf_t *out, kg_diag_t *d);
/* Appends "_<op>" for the nodes a kernel covers (its name). */
void kg_fuse_collect_ops(const kg_graph_t *g, int n, int norm, kg_buf_t *names,
                         int *count);
/* The kernels of map root n whose chain takes the matmuls mm[] in. */
int kg_fuse_epilogue(const kg_graph_t *g, const norms_t *nm, int n, const int *mm,
                     int num_mm, kg_program_t *p, kg_diag_t *d);

/* ---- fuse_norm.c: RMS norms taken in or split ---- */

/* Adds variant var's select range to the one range *sel (*none: no range
 * yet); 0 when they cannot be one range. */
int kg_fuse_join_select(const kg_variant_t *var, int *none, kgrt_expr_t *sel, int64_t *mn,
                        int64_t *mx);
/* An RMS norm node a NORM template can take in. */
int kg_fuse_is_rms(const kg_graph_t *g, int n);
/* Can RMS norm node p be taken in by its consumers? */
int kg_fuse_norm_plan(const kg_graph_t *g, int p, int *none, int *split, kgrt_expr_t *sel,
                      int64_t *mn, int64_t *mx);
/* Is variant v of node n selected only inside norm p's split range? */
int kg_fuse_in_split(const kg_graph_t *g, const norms_t *nm, int p, int n, int v);
/* Variant v of matmul m takes in the norm nm->of[m], as a prologue or a
 * row scale. */
void kg_fuse_take_norm(const kg_graph_t *g, const norms_t *nm, int m, int v,
                       kg_kernel_t *k);
/* Variant v of matmul m writes what the split norm nm->out_of[m] needs. */
void kg_fuse_write_norm(const kg_graph_t *g, const norms_t *nm, int m, int v,
                        kg_kernel_t *k);
/* The matmul around which norm p is split (in *s), or -1. */
int kg_fuse_split_plan(const kg_graph_t *g, const norms_t *nm, int p,
                       const kg_kernel_t *r, kg_kernel_t *s);
/* A new tensor for split norm p's sums, which matmul m computes. */
int kg_fuse_add_sums(kg_graph_t *g, int p, int m);

/* ---- fuse_region.c: sibling matmuls as regions, region epilogues ---- */

/* leader[m]: the first matmul of m's region group (-1: none). */
void kg_fuse_region_groups(const kg_graph_t *g, int *leader);
/* Is variant v of the region group of node n one kernel? */
int kg_fuse_group_variant(const kg_graph_t *g, const int *leader, int n, int v);
/* The region epilogue of the group led by n; the nodes taken (0: none). */
int kg_fuse_region_epi(const kg_graph_t *g, const int *leader, int n, int *rope,
                       int *cache, int *none, kg_kernel_t *sel);
/* The kernel of variant v of the region group led by n. */
void kg_fuse_regions(const kg_graph_t *g, const norms_t *nm, const int *leader, int n,
                     int v, kg_program_t *p);

#endif /* KG_FUSE_INTERNAL_H */
