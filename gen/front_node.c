/* front_node.c - reads one tensor or one node of kg.graph: a tensor's
 * kind, dtype, shape, view and split; a node's operands, results, in-place
 * operand, rank, collective, and its variants (template, grid, sizes,
 * select range, holes, params_info).
 * Needs: front_raw.c (front_internal.h).
 * Gives: kg_front_read_tensor, kg_front_read_node, kg_front_cmp_hole. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "buf.h"
#include "front_internal.h"

/* Reads the tensor record at the top of the stack (tensor i). */
int kg_front_read_tensor(lua_State *L, const kg_graph_t *g, int i, kg_tensor_t *t,
                         kg_diag_t *d) {
  int top = lua_gettop(L);
  t->io_index = -1;
  t->output_index = -1;
  t->producer = -1;
  t->alias = -1;
  if (lua_type(L, top) != LUA_TTABLE || kg_front_int(L, top, "id", -1) != i)
    return kg_error(d, "internal error: tensor %d is not tensor %d", i, i);
  char *kind = kg_front_string(L, top, "kind");
  int k = !kind                         ? -1
          : strcmp(kind, "input") == 0  ? KG_TENSOR_INPUT
          : strcmp(kind, "weight") == 0 ? KG_TENSOR_WEIGHT
          : strcmp(kind, "value") == 0  ? KG_TENSOR_VALUE
                                        : -1;
  free(kind);
  if (k < 0)
    return kg_error(d, "internal error: tensor %d has no kind", i);
  t->kind = (kg_tensor_kind_t)k;
  KG_TRY(kg_front_ident(L, top, "name", "a tensor", &t->name, d));
  if (t->kind != KG_TENSOR_VALUE && !t->name)
    return kg_error(d, "internal error: tensor %d: an input or weight without a name", i);
  t->persistent = kg_front_bool(L, top, "persistent");
  /* a split weight (kg.weight's split): checked against the ranks and the
   * shape by check_split once the graph's ranks are read */
  const int64_t split = kg_front_int(L, top, "split_dim", 0),
                parts = kg_front_int(L, top, "split_parts", 1);
  if (split < 0 || split >= KGRT_MAX_DIMS || parts < 1 || parts > KG_FRONT_MAX_RANKS ||
      (parts > 1 && t->kind != KG_TENSOR_WEIGHT))
    return kg_error(d, "internal error: tensor %d: a bad split", i);
  t->split = (int)split;
  t->parts = (int)parts;
  kg_front_field(L, top, "view_of");
  if (lua_type(L, -1) == LUA_TTABLE) {
    t->view = 1;
    t->alias = kg_front_tensor(L, lua_gettop(L), g); /* checked by check_view */
    if (t->alias < 0 || t->alias >= i)
      return kg_error(d, "internal error: tensor %d is a view of no earlier tensor", i);
  }
  lua_pop(L, 1);
  const int64_t off = kg_front_int(L, top, "view_offset", 0);
  t->view_offset = off > 0 ? (uint64_t)off : 0;
  if (off < 0 || (off > 0 && !t->view))
    return kg_error(d, "internal error: tensor %d: a bad view offset", i);
  kg_front_field(L, top, "dtype");
  char *dt = kg_front_string(L, lua_gettop(L), "name");
  lua_pop(L, 1);
  int bad = kg_dtype_lookup(dt, &t->dtype);
  free(dt);
  if (bad)
    return kg_error(d, "internal error: tensor %d without a dtype", i);
  kg_front_field(L, top, "shape");
  lua_Integer rank = kg_front_len(L, -1);
  if (rank < 1 || rank > KGRT_MAX_DIMS)
    return kg_error(d, "internal error: tensor %d has rank %lld", i, (long long)rank);
  t->rank = (int)rank;
  for (int k2 = 0; k2 < t->rank; k2++) {
    lua_rawgeti(L, -1, k2 + 1);
    if (lua_isinteger(L, -1)) {
      t->dims[k2].value = lua_tointeger(L, -1); /* sizes.c checks its range */
      t->dims[k2].sym = -1;
    } else {
      t->dims[k2].value = 0;
      t->dims[k2].sym = kg_front_sym(L, lua_gettop(L), g);
      if (t->dims[k2].sym < 0)
        return kg_error(d, "internal error: tensor %d: dim %d is not an integer or a sym",
                        i, k2);
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return 0;
}

int kg_front_cmp_hole(const void *a, const void *b) {
  return strcmp(((const kg_hole_t *)a)->name, ((const kg_hole_t *)b)->name);
}

/* Reads holes (identifier -> code fragment) into a sorted array. */
static int read_holes(lua_State *L, int idx, kg_variant_t *n, const char *op,
                      kg_diag_t *d) {
  kg_front_field(L, idx, "holes");
  if (lua_type(L, -1) == LUA_TTABLE) {
    int cap = 0;
    lua_pushnil(L);
    while (lua_next(L, -2)) {
      size_t klen = 0, vlen = 0;
      const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tolstring(L, -2, &klen) : NULL;
      const char *v = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &vlen) : NULL;
      if (!k || !kg_front_is_ident(k, klen))
        return kg_error(d, "internal error: %s: a hole name is not a C identifier", op);
      if (!v || !kg_front_is_code(v, vlen))
        return kg_error(d, "internal error: %s: hole %s is not an expression", op, k);
      if (n->num_holes == KG_FRONT_MAX_HOLES)
        return kg_error(d, "internal error: %s: more than %d holes", op,
                        KG_FRONT_MAX_HOLES);
      if (n->num_holes == cap) {
        cap = cap ? cap * 2 : 8;
        n->holes = kg_xrealloc(n->holes, (size_t)cap * sizeof *n->holes);
      }
      n->holes[n->num_holes].name = kg_xstrdup(k);
      n->holes[n->num_holes].value = NULL;
      n->num_holes++;
      n->holes[n->num_holes - 1].value = kg_xstrdup(v);
      lua_pop(L, 1);
    }
    if (n->num_holes)
      qsort(n->holes, (size_t)n->num_holes, sizeof *n->holes, kg_front_cmp_hole);
  }
  lua_pop(L, 1);
  return 0;
}

/* A size at the top of the stack, a list of integers and sym records
 * (lua/kgen/op.lua normalises node.dim_args so), as their product. */
static int read_size(lua_State *L, const kg_graph_t *g, kgrt_expr_t *e, const char *op,
                     kg_diag_t *d) {
  int idx = lua_gettop(L);
  lua_Integer n = kg_front_len(L, idx);
  int ns = 0;
  *e = kg_expr_const(1);
  if (lua_type(L, idx) != LUA_TTABLE || n > 64)
    return kg_error(d, "internal error: %s: a size argument is not a list", op);
  for (lua_Integer i = 0; i < n; i++) {
    lua_rawgeti(L, idx, i + 1);
    if (lua_isinteger(L, -1)) {
      lua_Integer v = lua_tointeger(L, -1);
      if (v < 0 || __builtin_mul_overflow(e->scale, (int64_t)v, &e->scale))
        return kg_error(d, "%s: a size argument overflows 64 bits", op);
    } else {
      int sym = kg_front_sym(L, lua_gettop(L), g);
      if (sym < 0 || ns == KGRT_EXPR_SYMS)
        return kg_error(d, "internal error: %s: a size argument is not a product of dims",
                        op);
      e->sym[ns++] = (int16_t)sym;
    }
    lua_pop(L, 1);
  }
  return 0;
}

/* The size at field `key` of the table at idx (a list, see read_size), or
 * *e unchanged when absent. */
static int read_size_field(lua_State *L, const kg_graph_t *g, int idx, const char *key,
                           kgrt_expr_t *e, const char *op, kg_diag_t *d) {
  int t = kg_front_field(L, idx, key);
  int rc = t == LUA_TNIL ? 0 : read_size(L, g, e, op, d);
  lua_pop(L, 1);
  return rc;
}

/* node.moved_in or moved_out (lua/kgen/op.lua makes them of node.moved): a
 * table of sizes (see read_size) by 1-based operand or result, at most `n`;
 * sets bit i of *mask for each one given. */
static int read_moved(lua_State *L, int top, const kg_graph_t *g, const char *key, int n,
                      kgrt_expr_t *e, unsigned *mask, const char *op, kg_diag_t *d) {
  *mask = 0;
  if (kg_front_field(L, top, key) == LUA_TTABLE) {
    const int t = lua_gettop(L);
    for (int i = 0; i < n; i++) {
      if (lua_rawgeti(L, t, i + 1) != LUA_TNIL) {
        KG_TRY(read_size(L, g, &e[i], op, d));
        *mask |= 1u << i;
      }
      lua_pop(L, 1);
    }
  }
  lua_pop(L, 1);
  return 0;
}

/* One way to generate the node's kernel, from the table at idx (the node
 * itself, or an entry of node.variants). */
static int read_variant(lua_State *L, int idx, const kg_graph_t *g, const kg_node_t *n,
                        kg_variant_t *v, kg_diag_t *d) {
  v->params_ref = -1;
  if (lua_type(L, idx) != LUA_TTABLE)
    return kg_error(d, "internal error: %s: a variant is not a table", n->op);
  KG_TRY(kg_front_ident(L, idx, "template", n->op, &v->tmpl, d));
  if (!v->tmpl)
    return kg_error(d, "internal error: %s: a kernel without a template", n->op);
  KG_TRY(kg_front_ident(L, idx, "label", n->op, &v->label, d));
  v->fuse_key = kg_front_string(L, idx, "fuse_key");
  char *hidden = kg_front_string(L, idx, "hidden");
  int hk = !hidden                        ? KG_HIDDEN_ALL
           : strcmp(hidden, "none") == 0  ? KG_HIDDEN_NONE
           : strcmp(hidden, "plain") == 0 ? KG_HIDDEN_PLAIN
                                          : -1;
  free(hidden);
  if (hk < 0)
    return kg_error(d, "internal error: %s: an unknown hidden rule", n->op);
  v->hidden = (kg_hidden_t)hk;
  char *grid = kg_front_string(L, idx, "grid");
  int gk = !grid                        ? KG_GRID_MAP
           : strcmp(grid, "rows") == 0  ? KG_GRID_ROWS
           : strcmp(grid, "tiles") == 0 ? KG_GRID_TILES
                                        : -1;
  free(grid);
  if (gk < 0)
    return kg_error(d, "internal error: %s: an unknown grid", n->op);
  v->grid = (kg_grid_t)gk;
  v->cols = kg_front_int(L, idx, "cols", 0);
  if (v->cols < 0 || v->cols > INT32_MAX)
    return kg_error(d, "internal error: %s: rows of %lld", n->op, (long long)v->cols);
  int t = kg_front_field(L, idx, "grid_of");
  v->grid_of = t == LUA_TNIL ? n->output : kg_front_tensor(L, lua_gettop(L), g);
  lua_pop(L, 1);
  if (v->grid_of < 0 || v->grid_of >= g->num_tensors)
    return kg_error(d, "internal error: %s: grid_of is not a tensor", n->op);
  v->tile_units = kg_expr_const(0);
  KG_TRY(read_size_field(L, g, idx, "tile_units", &v->tile_units, n->op, d));
  v->tiles_columns = kg_front_bool(L, idx, "tiles_columns");
  if (v->grid == KG_GRID_TILES && v->tile_units.scale == 0)
    return kg_error(d, "internal error: %s: a tiles grid without tile_units", n->op);
  if (kg_front_field(L, idx, "dim_args") == LUA_TTABLE) {
    lua_Integer count = kg_front_len(L, -1);
    if (count > KG_MAX_DIM_ARGS)
      return kg_error(d, "internal error: %s: more than %d size arguments", n->op,
                      KG_MAX_DIM_ARGS);
    v->num_dim_args = (int)count;
    for (int i = 0; i < v->num_dim_args; i++) {
      lua_rawgeti(L, -1, i + 1);
      KG_TRY(read_size(L, g, &v->dim_args[i], n->op, d));
      lua_pop(L, 1);
    }
  }
  lua_pop(L, 1);
  v->select = kg_expr_const(0); /* runs always: min and max stay 0 */
  if (kg_front_field(L, idx, "select") == LUA_TTABLE) {
    int sel = lua_gettop(L);
    KG_TRY(read_size_field(L, g, sel, "size", &v->select, n->op, d));
    v->select_min = kg_front_int(L, sel, "min", 0); /* sizes are never negative */
    v->select_max = kg_front_int(L, sel, "max", INT64_MAX);
  }
  lua_pop(L, 1);
  KG_TRY(read_holes(L, idx, v, n->op, d));
  if (kg_front_field(L, idx, "params_info") == LUA_TTABLE)
    v->params_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  else
    lua_pop(L, 1);
  return 0;
}

/* The tensor ids of the list at field key of the node at top, at most max. */
static int read_ids(lua_State *L, int top, const char *key, const kg_graph_t *g, int *ids,
                    int max, int *count, const char *op, kg_diag_t *d) {
  kg_front_field(L, top, key);
  lua_Integer n = kg_front_len(L, -1);
  if (n > max)
    return kg_error(d, "%s: more than %d %s", op, max, key);
  *count = (int)n;
  for (int i = 0; i < *count; i++) {
    lua_rawgeti(L, -1, i + 1);
    ids[i] = kg_front_tensor(L, lua_gettop(L), g);
    lua_pop(L, 1);
    if (ids[i] < 0)
      return kg_error(d, "internal error: %s: %s %d is not a tensor", op, key, i);
  }
  lua_pop(L, 1);
  return 0;
}

/* A collective node: one float operand (a broadcast's may be i32), one
 * result of its dtype, of the same shape (all_reduce, broadcast) or with ranks times its
 * constant first dim (all_gather); no kernel, no in-place update. */
static int check_collective(const kg_graph_t *g, const kg_node_t *n, kg_diag_t *d) {
  if (n->num_inputs != 1 || n->num_outputs != 1 || n->inplace >= 0)
    return kg_error(d, "internal error: %s: a collective takes one operand to one result",
                    n->op);
  const kg_tensor_t *x = &g->tensors[n->inputs[0]], *y = &g->tensors[n->output];
  int ok =
      x->dtype.size > 0 &&
      (x->dtype.code != KGRT_DTYPE_I32 || n->collective == KGRT_COLLECTIVE_BROADCAST) &&
      x->dtype.code == y->dtype.code && x->rank == y->rank;
  /* all_gather: the first dim that differs is ranks times x's (a constant),
   * every dim before it 1 */
  int gathered = n->collective == KGRT_COLLECTIVE_ALL_GATHER && g->ranks > 1 ? 0 : -1;
  while (ok && gathered >= 0 && gathered < x->rank &&
         x->dims[gathered].sym == y->dims[gathered].sym &&
         x->dims[gathered].value == y->dims[gathered].value)
    gathered++;
  for (int k = 0; ok && k < x->rank; k++) {
    const kg_dim_t *a = &x->dims[k], *b = &y->dims[k];
    if (k == gathered)
      ok = a->sym < 0 && b->sym < 0 && a->value > 0 &&
           b->value == a->value * (int64_t)g->ranks;
    else
      ok = a->sym == b->sym && a->value == b->value &&
           (gathered < 0 || k > gathered || (a->sym < 0 && a->value == 1));
  }
  ok = ok && (gathered < 0 || gathered < x->rank);
  if (!ok)
    return kg_error(d, "internal error: %s: the result does not match the operand",
                    n->op);
  return 0;
}

int kg_front_read_node(lua_State *L, const kg_graph_t *g, kg_node_t *n, kg_diag_t *d) {
  int top = lua_gettop(L);
  if (lua_type(L, top) != LUA_TTABLE)
    return kg_error(d, "internal error: a node is not a table");
  KG_TRY(kg_front_ident(L, top, "op", "a node", &n->op, d));
  if (!n->op)
    return kg_error(d, "internal error: node without op");
  /* the model's file and line of the call (kg_where), for later errors */
  if (kg_front_field(L, top, "file") == LUA_TSTRING) {
    size_t len = 0;
    const char *f = lua_tolstring(L, -1, &len);
    int printable = len > 0 && len <= 1024;
    for (size_t i = 0; printable && i < len; i++)
      printable = f[i] >= 0x20 && f[i] < 0x7f;
    if (printable)
      n->file = kg_xstrdup(f);
  }
  lua_pop(L, 1);
  const int64_t line = kg_front_int(L, top, "line", 0);
  n->line = line > 0 && line <= INT32_MAX ? (int)line : 0;
  if (kg_front_field(L, top, "expr") != LUA_TNIL) {
    size_t len = 0;
    const char *e = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &len) : NULL;
    if (!e || !kg_front_is_code(e, len))
      return kg_error(d, "internal error: %s: the expression is not C expression text",
                      n->op);
    n->expr = kg_xstrdup(e);
  }
  lua_pop(L, 1);
  KG_TRY(
      read_ids(L, top, "inputs", g, n->inputs, KG_MAX_INPUTS, &n->num_inputs, n->op, d));
  KG_TRY(read_ids(L, top, "outputs", g, n->outputs, KG_MAX_OUTPUTS, &n->num_outputs,
                  n->op, d));
  if (n->num_outputs < 1)
    return kg_error(d, "internal error: %s has no results", n->op);
  n->output = n->outputs[0];
  int64_t inplace = kg_front_int(L, top, "inplace", 0);
  if (inplace < 0 || inplace > n->num_inputs || (inplace > 0 && n->num_outputs != 1))
    return kg_error(d, "internal error: %s: bad in-place operand", n->op);
  n->inplace = (int)inplace - 1;
  n->split_norm = kg_front_bool(L, top, "split_norm");
  KG_TRY(read_moved(L, top, g, "moved_in", n->num_inputs, n->moved_in, &n->moved_in_mask,
                    n->op, d));
  KG_TRY(read_moved(L, top, g, "moved_out", n->num_outputs, n->moved_out,
                    &n->moved_out_mask, n->op, d));
  /* a pipeline stage's rank (on_rank) or a broadcast's root; -1: every rank */
  const int64_t rank = kg_front_int(L, top, "rank", -1);
  if (rank < -1 || rank >= g->ranks)
    return kg_error(d, "internal error: %s: rank %lld of %d", n->op, (long long)rank,
                    g->ranks);
  n->rank = (int)rank;
  /* a collective step: how it combines the ranks' values */
  char *coll = kg_front_string(L, top, "combine");
  if (coll) {
    n->collective = strcmp(coll, "sum") == 0           ? KGRT_COLLECTIVE_ALL_REDUCE
                    : strcmp(coll, "rank_concat") == 0 ? KGRT_COLLECTIVE_ALL_GATHER
                    : strcmp(coll, "from_rank") == 0   ? KGRT_COLLECTIVE_BROADCAST
                                                       : KGRT_COLLECTIVE_NONE;
    free(coll);
    if (n->collective == KGRT_COLLECTIVE_NONE)
      return kg_error(d, "internal error: %s: an unknown collective", n->op);
    if ((n->collective == KGRT_COLLECTIVE_BROADCAST) != (n->rank >= 0))
      return kg_error(
          d, "internal error: %s: a broadcast has a root, other collectives no rank",
          n->op);
    return check_collective(g, n, d);
  }
  if (kg_front_field(L, top, "variants") != LUA_TTABLE) {
    lua_pop(L, 1);
    n->num_variants = 1;
    return read_variant(L, top, g, n, &n->variants[0], d);
  }
  int list = lua_gettop(L);
  const lua_Integer count = kg_front_len(L, list);
  if (count < 1 || count > KG_MAX_VARIANTS)
    return kg_error(d, "internal error: %s has %lld variants", n->op, (long long)count);
  n->num_variants = (int)count;
  for (int i = 0; i < n->num_variants; i++) {
    lua_rawgeti(L, list, i + 1);
    KG_TRY(read_variant(L, lua_gettop(L), g, n, &n->variants[i], d));
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return 0;
}
