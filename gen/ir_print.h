/* ir_print.h - the IR as text: --emit=graph and --emit=kernels (docs/compiler.md). */
#ifndef KG_IR_PRINT_H
#define KG_IR_PRINT_H

#include "buf.h"
#include "ir.h"
#include "lower.h"
#include "target.h"

/* The graph as the front end built it (before fusion). */
void kg_print_graph(const kg_graph_t *g, kg_buf_t *out);

/* The plan's steps as target t lowers them: lowered[] and holes[] (the
 * holes kg_lower dumped) have p->num_kernels entries each. */
void kg_print_kernels(const kg_graph_t *g, const kg_program_t *p, const kg_target_t *t,
                      const kg_lowered_t *lowered, const kg_buf_t *holes, kg_buf_t *out);

#endif /* KG_IR_PRINT_H */
