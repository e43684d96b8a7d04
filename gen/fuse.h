/* fuse.h - groups graph nodes into kernels (see fuse.c). */
#ifndef KG_FUSE_H
#define KG_FUSE_H

#include "diag.h"
#include "ir.h"

/* The kernels of g into out. Marks first the map nodes that a fused chain
 * must not take in (node.own_kernel): at most KG_CHAIN_DEPTH ops nested in
 * one expression (clang refuses brackets nested past 256) and at most
 * KG_CHAIN_TENSORS tensors read by one chain (an epilogue's chain shares
 * the kernel's KG_MAX_INPUTS operands with x, two weights and a norm's
 * weight); a long chain becomes several kernels instead of an error. */
int kg_fuse(kg_graph_t *g, kg_program_t *out, kg_diag_t *d);

/* The map nodes kernel k's expression fuses (a chain, or a matmul's
 * epilogue), in call order, its root last: how many (at most max kept);
 * and in mm[] the matmuls that epilogue takes (k->node, then a pair's
 * other one), num_mm of them. */
int kg_fuse_chain_nodes(const kg_graph_t *g, const kg_kernel_t *k, int *nodes, int max,
                        int mm[2], int *num_mm);

#define KG_CHAIN_DEPTH 64
#define KG_CHAIN_TENSORS (KG_MAX_INPUTS - 4)

#endif /* KG_FUSE_H */
