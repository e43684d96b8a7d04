/* table.h - writes the C kernel table (see runtime/kgrt_table.h). */
#ifndef KG_TABLE_H
#define KG_TABLE_H

#include "buf.h"
#include "ir.h"
#include "kgrt_codeobj.h"
#include "lower.h"
#include "target.h"

/* Everything built for one target. */
typedef struct kg_arch_build {
  kg_target_t target;
  kg_lowered_t *lowered; /* one per kernel */
  kg_buf_t source;       /* device HIP */
  kg_buf_t sim_source;
  kg_buf_t image; /* code object */
  kg_buf_t sim_image;
  kgrt_codeobj_t meta; /* read back from image */
  int have_meta;
  const char *compiler;
} kg_arch_build_t;

/* <model>.h */
void kg_table_header(const kg_graph_t *g, const kg_arch_build_t *arches, int n,
                     kg_buf_t *out);
/* <model>.c: syms, io tables, the list of arches */
void kg_table_index(const kg_graph_t *g, const kg_arch_build_t *arches, int n,
                    kg_buf_t *out);
/* <model>_<arch>.c */
void kg_table_arch(const kg_graph_t *g, const kg_program_t *p, const kg_arch_build_t *a,
                   kg_buf_t *out);

#endif /* KG_TABLE_H */
