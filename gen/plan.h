/* plan.h - memory planning: one arena for every intermediate (see plan.c). */
#ifndef KG_PLAN_H
#define KG_PLAN_H

#include "diag.h"
#include "ir.h"

#define KG_ARENA_ALIGN 256

int kg_plan(kg_graph_t *g, kg_program_t *p, kg_diag_t *d);

#endif /* KG_PLAN_H */
