/* params.h - the templates' parameter rules, resolved once per kernel and
 * target while the sandbox is open (kg.template_params in Lua): what
 * lowering needs from Lua, as plain data, so that lowering runs no Lua. */
#ifndef KG_PARAMS_H
#define KG_PARAMS_H

#include "diag.h"
#include "ir.h"
#include "lower.h"
#include "sandbox.h"
#include "target.h"

/* Runs the params rule of each of p's kernels for target t (collective
 * steps have none: zeroed). out: p->num_kernels entries, freed with
 * kg_params_free. */
int kg_params_resolve(kg_sandbox_t *sb, const kg_graph_t *g, const kg_program_t *p,
                      const kg_target_t *t, kg_params_t *out, kg_diag_t *d);
void kg_params_free(kg_params_t *params, int n);

#endif /* KG_PARAMS_H */
