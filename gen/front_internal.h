/* front_internal.h - what the front end's files share (internal to gen/):
 * its limits, the checked raw reads of Lua tables (front_raw.c) and the
 * readers of each part of kg.graph. front.c runs the model and reads the
 * graph in one protected call; front_graph.c reads the graph and checks it
 * whole, with front_node.c for each tensor and node; front_template.c reads
 * the templates' declarations.
 * Needs: Lua 5.4, diag.h, ir.h. */
#ifndef KG_FRONT_INTERNAL_H
#define KG_FRONT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <lua.h>

#include "diag.h"
#include "ir.h"

/* The most kgen builds; lua/kgen/ refuses more at the model's line
 * (kgen/state.lua). */
#define KG_FRONT_MAX_SYMS 64
#define KG_FRONT_MAX_TENSORS 65536
#define KG_FRONT_MAX_NODES 16384
#define KG_FRONT_MAX_IO 4096
#define KG_FRONT_MAX_RANKS 64      /* kg.max_ranks */
#define KG_FRONT_MAX_NAME 128      /* bytes of a tensor, sym or op name */
#define KG_FRONT_MAX_MODEL_NAME 64 /* bytes of the model's name (files, symbols) */
#define KG_FRONT_MAX_CODE                                                                \
  (4 * 1024 * 1024)           /* bytes of an expression or hole value (a                 \
                               rope table at D 4098 takes 92 KiB) */
#define KG_FRONT_MAX_HOLES 64 /* holes of one variant */

/* ---- front_raw.c: checked, raw reads (no metamethod runs) ---- */

/* C identifier, at most KG_FRONT_MAX_NAME bytes. */
int kg_front_is_ident(const char *s, size_t len);
/* A code fragment kgen splices into kernel source: C expression text only. */
int kg_front_is_code(const char *s, size_t len);
/* Pushes t[key] of the table at idx; its type (LUA_TNIL when not a table). */
int kg_front_field(lua_State *L, int idx, const char *key);
/* The length of the list at idx (0 when not a table). */
lua_Integer kg_front_len(lua_State *L, int idx);
/* t[key] as a new string, NULL when absent or not a string. */
char *kg_front_string(lua_State *L, int idx, const char *key);
/* t[key] as an identifier (NULL when absent); an error when it is there and
 * not one. */
int kg_front_ident(lua_State *L, int idx, const char *key, const char *what, char **out,
                   kg_diag_t *d);
/* t[key] as an integer, else dflt. */
int64_t kg_front_int(lua_State *L, int idx, const char *key, int64_t dflt);
/* t[key] is true. */
int kg_front_bool(lua_State *L, int idx, const char *key);
/* The sym ordinal of the sym record at idx, or -1. */
int kg_front_sym(lua_State *L, int idx, const kg_graph_t *g);
/* The tensor id of the tensor record at idx, or -1. */
int kg_front_tensor(lua_State *L, int idx, const kg_graph_t *g);

/* ---- front_node.c ---- */

/* Orders kg_hole_t by name (qsort). */
int kg_front_cmp_hole(const void *a, const void *b);
/* Reads the tensor record at the top of the stack (tensor i). */
int kg_front_read_tensor(lua_State *L, const kg_graph_t *g, int i, kg_tensor_t *t,
                         kg_diag_t *d);
/* Reads the node record at the top of the stack: its operands, results,
 * variants or collective. */
int kg_front_read_node(lua_State *L, const kg_graph_t *g, kg_node_t *n, kg_diag_t *d);

/* ---- front_graph.c ---- */

/* Reads kg.graph (at `graph`) into g and checks it whole; `path` names the
 * model in errors. */
int kg_front_read_graph(lua_State *L, int graph, kg_graph_t *g, const char *path,
                        kg_diag_t *d);

/* ---- front_template.c ---- */

/* Every variant's template declaration from kg.templates (at `decls`). */
int kg_front_read_templates(lua_State *L, int decls, kg_graph_t *g, kg_diag_t *d);

#endif /* KG_FRONT_INTERNAL_H */
