/* front.h - the Lua front end: runs a model in the sandbox and reads the
 * graph it built back into C (kg_graph_t). */
#ifndef KG_FRONT_H
#define KG_FRONT_H

#include "diag.h"
#include "ir.h"
#include "sandbox.h"
#include "target.h"

/* Installs the DSL as the model's globals, runs the model, and reads the graph.
 * The ops check block attributes against `targets` (the build's). The
 * sandbox stays alive: nodes keep registry refs into it. */
int kg_front_load(kg_sandbox_t *sb, const char *model_path, const kg_target_t *targets,
                  int num_targets, kg_graph_t *out, kg_diag_t *d);

/* --list-ops: each op of the DSL with its doc, in the library's order, on
 * stdout. */
int kg_front_list_ops(kg_sandbox_t *sb, kg_diag_t *d);

/* Model name from its path: the file name without .lua, made a C identifier;
 * past 64 bytes, its first 47 and "_" and 16 hex digits of its FNV-1a hash;
 * "kgrt_table" (the name of the ABI header kgen writes beside it) becomes
 * "kgrt_table_model". */
char *kg_front_model_name(const char *path);

#endif /* KG_FRONT_H */
