/* fuse.h - groups graph nodes into kernels (see fuse.c). */
#ifndef KG_FUSE_H
#define KG_FUSE_H

#include "diag.h"
#include "ir.h"

int kg_fuse(const kg_graph_t *g, kg_program_t *out, kg_diag_t *d);

#endif /* KG_FUSE_H */
