/* front.c - the Lua front end.
 * Needs: a sandbox (sandbox.c) with kgen's lua/ library embedded.
 * Gives: kg_graph_t, read field by field from kg.graph in array order, so
 * nothing depends on Lua's table iteration order.
 *
 * The graph is the DSL's private state (lua/kgen.lua), out of the model's
 * reach; still, nothing read here is trusted. It is read inside one
 * protected call (a Lua error, memory included, is an error, never an
 * abort), with raw accesses only (no metamethod runs), and every value is
 * checked before use: ids and ordinals in range, kinds and grids from their
 * lists, names C identifiers, code fragments (expressions, hole values) made
 * of the characters expressions have. */
#include "front.h"

#include <lauxlib.h>
#include <lua.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include <stdio.h>

/* The most kgen builds; lua/kgen.lua refuses more at the model's line. */
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

char *kg_front_model_name(const char *path) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t n = strlen(base);
  if (n > 4 && strcmp(base + n - 4, ".lua") == 0)
    n -= 4;
  char *name = kg_xmalloc(n + 2);
  size_t j = 0;
  if (n == 0 || (base[0] >= '0' && base[0] <= '9'))
    name[j++] = '_';
  for (size_t i = 0; i < n; i++) {
    char c = base[i];
    int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    name[j++] = ok ? c : '_';
  }
  name[j] = '\0';
  /* bounded: names past the limit keep a prefix and the hash of the whole */
  if (j > KG_FRONT_MAX_MODEL_NAME) {
    uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a 64 */
    for (size_t i = 0; i < j; i++)
      h = (h ^ (unsigned char)name[i]) * 0x100000001b3ULL;
    snprintf(name + KG_FRONT_MAX_MODEL_NAME - 17, 18, "_%016llx", (unsigned long long)h);
  }
  /* kgen writes kgrt_table.h beside <model>.h */
  if (strcmp(name, "kgrt_table") == 0) {
    name = kg_xrealloc(name, sizeof "kgrt_table_model");
    strcpy(name, "kgrt_table_model");
  }
  return name;
}

/* ---- checked, raw reads ---- */

/* C identifier, at most KG_FRONT_MAX_NAME bytes. */
static int is_ident(const char *s, size_t len) {
  if (len == 0 || len > KG_FRONT_MAX_NAME)
    return 0;
  for (size_t i = 0; i < len; i++) {
    char c = s[i];
    int alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!alpha && !(i > 0 && c >= '0' && c <= '9'))
      return 0;
  }
  return 1;
}

/* A code fragment kgen splices into kernel source (a node's expression, a
 * hole's value): C expression text only. Identifiers, numbers, operators,
 * brackets, spaces and line breaks; no preprocessor (#), no statements or
 * blocks (; { }), no comments, no character or string literals but the empty
 * "" of __builtin_nanf(""). */
static int is_code(const char *s, size_t len) {
  if (len > KG_FRONT_MAX_CODE)
    return 0;
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
        c == '_')
      continue;
    if (c == '/' && i + 1 < len && (s[i + 1] == '/' || s[i + 1] == '*'))
      return 0;
    if (c == '"' && i + 1 < len && s[i + 1] == '"' && i > 0 && s[i - 1] == '(' &&
        i + 2 < len && s[i + 2] == ')') {
      i++;
      continue;
    }
    if (!strchr(" \n\t()[],.+-*/%<>=!&|^~?:$", c) || c == '\0')
      return 0;
  }
  return 1;
}

/* Pushes t[key] of the table at idx without metamethods; its type (LUA_TNIL
 * when idx is not a table). */
static int raw_field(lua_State *L, int idx, const char *key) {
  if (lua_type(L, idx) != LUA_TTABLE) {
    lua_pushnil(L);
    return LUA_TNIL;
  }
  idx = lua_absindex(L, idx);
  lua_pushstring(L, key);
  return lua_rawget(L, idx);
}

/* The length of the list at idx (0 when not a table). */
static lua_Integer raw_len(lua_State *L, int idx) {
  return lua_type(L, idx) == LUA_TTABLE ? (lua_Integer)lua_rawlen(L, idx) : 0;
}

/* t[key] as a new string, NULL when absent or not a string; *bad when it is
 * there but not a string. */
static char *get_string(lua_State *L, int idx, const char *key) {
  char *s = NULL;
  if (raw_field(L, idx, key) == LUA_TSTRING) {
    size_t len;
    const char *v = lua_tolstring(L, -1, &len);
    if (strlen(v) == len)
      s = kg_xstrdup(v);
  }
  lua_pop(L, 1);
  return s;
}

/* t[key] as an identifier (NULL when absent); an error when it is there and
 * not one. */
static int get_ident(lua_State *L, int idx, const char *key, const char *what, char **out,
                     kg_diag_t *d) {
  *out = NULL;
  int t = raw_field(L, idx, key);
  if (t == LUA_TNIL) {
    lua_pop(L, 1);
    return 0;
  }
  size_t len = 0;
  const char *v = t == LUA_TSTRING ? lua_tolstring(L, -1, &len) : NULL;
  if (!v || !is_ident(v, len)) {
    lua_pop(L, 1);
    return kg_error(d, "internal error: %s: %s is not a C identifier of at most %d bytes",
                    what, key, KG_FRONT_MAX_NAME);
  }
  *out = kg_xstrdup(v);
  lua_pop(L, 1);
  return 0;
}

static int64_t get_int(lua_State *L, int idx, const char *key, int64_t dflt) {
  raw_field(L, idx, key);
  int64_t v = lua_isinteger(L, -1) ? (int64_t)lua_tointeger(L, -1) : dflt;
  lua_pop(L, 1);
  return v;
}

static int get_bool(lua_State *L, int idx, const char *key) {
  raw_field(L, idx, key);
  int v = lua_type(L, -1) == LUA_TBOOLEAN && lua_toboolean(L, -1);
  lua_pop(L, 1);
  return v;
}

/* The sym ordinal of the sym record at idx, or -1. */
static int sym_ordinal(lua_State *L, int idx, const kg_graph_t *g) {
  if (lua_type(L, idx) != LUA_TTABLE)
    return -1;
  int64_t o = get_int(L, idx, "ordinal", -1);
  return o >= 0 && o < g->num_syms ? (int)o : -1;
}

/* The tensor id of the tensor record at idx, or -1. */
static int tensor_id(lua_State *L, int idx, const kg_graph_t *g) {
  if (lua_type(L, idx) != LUA_TTABLE)
    return -1;
  int64_t id = get_int(L, idx, "id", -1);
  return id >= 0 && id < g->num_tensors ? (int)id : -1;
}

/* Reads the tensor record at the top of the stack (tensor i). */
static int read_tensor(lua_State *L, const kg_graph_t *g, int i, kg_tensor_t *t,
                       kg_diag_t *d) {
  int top = lua_gettop(L);
  t->io_index = -1;
  t->output_index = -1;
  t->producer = -1;
  t->alias = -1;
  if (lua_type(L, top) != LUA_TTABLE || get_int(L, top, "id", -1) != i)
    return kg_error(d, "internal error: tensor %d is not tensor %d", i, i);
  char *kind = get_string(L, top, "kind");
  int k = !kind                         ? -1
          : strcmp(kind, "input") == 0  ? KG_TENSOR_INPUT
          : strcmp(kind, "weight") == 0 ? KG_TENSOR_WEIGHT
          : strcmp(kind, "value") == 0  ? KG_TENSOR_VALUE
                                        : -1;
  free(kind);
  if (k < 0)
    return kg_error(d, "internal error: tensor %d has no kind", i);
  t->kind = (kg_tensor_kind_t)k;
  KG_TRY(get_ident(L, top, "name", "a tensor", &t->name, d));
  if (t->kind != KG_TENSOR_VALUE && !t->name)
    return kg_error(d, "internal error: tensor %d: an input or weight without a name", i);
  t->persistent = get_bool(L, top, "persistent");
  /* a split weight (kg.weight's split): checked against the ranks and the
   * shape by check_split once the graph's ranks are read */
  const int64_t split = get_int(L, top, "split_dim", 0),
                parts = get_int(L, top, "split_parts", 1);
  if (split < 0 || split >= KGRT_MAX_DIMS || parts < 1 || parts > KG_FRONT_MAX_RANKS ||
      (parts > 1 && t->kind != KG_TENSOR_WEIGHT))
    return kg_error(d, "internal error: tensor %d: a bad split", i);
  t->split = (int)split;
  t->parts = (int)parts;
  raw_field(L, top, "view_of");
  if (lua_type(L, -1) == LUA_TTABLE) {
    t->view = 1;
    t->alias = tensor_id(L, lua_gettop(L), g); /* checked by check_view */
    if (t->alias < 0 || t->alias >= i)
      return kg_error(d, "internal error: tensor %d is a view of no earlier tensor", i);
  }
  lua_pop(L, 1);
  const int64_t off = get_int(L, top, "view_offset", 0);
  t->view_offset = off > 0 ? (uint64_t)off : 0;
  if (off < 0 || (off > 0 && !t->view))
    return kg_error(d, "internal error: tensor %d: a bad view offset", i);
  raw_field(L, top, "dtype");
  char *dt = get_string(L, lua_gettop(L), "name");
  lua_pop(L, 1);
  int bad = kg_dtype_lookup(dt, &t->dtype);
  free(dt);
  if (bad)
    return kg_error(d, "internal error: tensor %d without a dtype", i);
  raw_field(L, top, "shape");
  lua_Integer rank = raw_len(L, -1);
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
      t->dims[k2].sym = sym_ordinal(L, lua_gettop(L), g);
      if (t->dims[k2].sym < 0)
        return kg_error(d, "internal error: tensor %d: dim %d is not an integer or a sym",
                        i, k2);
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return 0;
}

static int cmp_hole(const void *a, const void *b) {
  return strcmp(((const kg_hole_t *)a)->name, ((const kg_hole_t *)b)->name);
}

/* Reads holes (identifier -> code fragment) into a sorted array. */
static int read_holes(lua_State *L, int idx, kg_variant_t *n, const char *op,
                      kg_diag_t *d) {
  raw_field(L, idx, "holes");
  if (lua_type(L, -1) == LUA_TTABLE) {
    int cap = 0;
    lua_pushnil(L);
    while (lua_next(L, -2)) {
      size_t klen = 0, vlen = 0;
      const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tolstring(L, -2, &klen) : NULL;
      const char *v = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &vlen) : NULL;
      if (!k || !is_ident(k, klen))
        return kg_error(d, "internal error: %s: a hole name is not a C identifier", op);
      if (!v || !is_code(v, vlen))
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
      qsort(n->holes, (size_t)n->num_holes, sizeof *n->holes, cmp_hole);
  }
  lua_pop(L, 1);
  return 0;
}

/* A size at the top of the stack, a list of integers and sym records (kgen.lua
 * normalises node.dim_args so), as their product. */
static int read_size(lua_State *L, const kg_graph_t *g, kgrt_expr_t *e, const char *op,
                     kg_diag_t *d) {
  int idx = lua_gettop(L);
  lua_Integer n = raw_len(L, idx);
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
      int sym = sym_ordinal(L, lua_gettop(L), g);
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
  int t = raw_field(L, idx, key);
  int rc = t == LUA_TNIL ? 0 : read_size(L, g, e, op, d);
  lua_pop(L, 1);
  return rc;
}

/* One way to generate the node's kernel, from the table at idx (the node
 * itself, or an entry of node.variants). */
static int read_variant(lua_State *L, int idx, const kg_graph_t *g, const kg_node_t *n,
                        kg_variant_t *v, kg_diag_t *d) {
  v->params_ref = -1;
  if (lua_type(L, idx) != LUA_TTABLE)
    return kg_error(d, "internal error: %s: a variant is not a table", n->op);
  KG_TRY(get_ident(L, idx, "template", n->op, &v->tmpl, d));
  if (!v->tmpl)
    return kg_error(d, "internal error: %s: a kernel without a template", n->op);
  KG_TRY(get_ident(L, idx, "label", n->op, &v->label, d));
  v->fuse_key = get_string(L, idx, "fuse_key");
  char *grid = get_string(L, idx, "grid");
  int gk = !grid                        ? KG_GRID_MAP
           : strcmp(grid, "rows") == 0  ? KG_GRID_ROWS
           : strcmp(grid, "tiles") == 0 ? KG_GRID_TILES
                                        : -1;
  free(grid);
  if (gk < 0)
    return kg_error(d, "internal error: %s: an unknown grid", n->op);
  v->grid = (kg_grid_t)gk;
  v->cols = get_int(L, idx, "cols", 0);
  if (v->cols < 0 || v->cols > INT32_MAX)
    return kg_error(d, "internal error: %s: rows of %lld", n->op, (long long)v->cols);
  int t = raw_field(L, idx, "grid_of");
  v->grid_of = t == LUA_TNIL ? n->output : tensor_id(L, lua_gettop(L), g);
  lua_pop(L, 1);
  if (v->grid_of < 0 || v->grid_of >= g->num_tensors)
    return kg_error(d, "internal error: %s: grid_of is not a tensor", n->op);
  v->tile_units = kg_expr_const(0);
  KG_TRY(read_size_field(L, g, idx, "tile_units", &v->tile_units, n->op, d));
  v->tiles_columns = get_bool(L, idx, "tiles_columns");
  if (v->grid == KG_GRID_TILES && v->tile_units.scale == 0)
    return kg_error(d, "internal error: %s: a tiles grid without tile_units", n->op);
  if (raw_field(L, idx, "dim_args") == LUA_TTABLE) {
    lua_Integer count = raw_len(L, -1);
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
  if (raw_field(L, idx, "select") == LUA_TTABLE) {
    int sel = lua_gettop(L);
    KG_TRY(read_size_field(L, g, sel, "size", &v->select, n->op, d));
    v->select_min = get_int(L, sel, "min", 0); /* sizes are never negative */
    v->select_max = get_int(L, sel, "max", INT64_MAX);
  }
  lua_pop(L, 1);
  KG_TRY(read_holes(L, idx, v, n->op, d));
  if (raw_field(L, idx, "params_info") == LUA_TTABLE)
    v->params_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  else
    lua_pop(L, 1);
  return 0;
}

/* The tensor ids of the list at field key of the node at top, at most max. */
static int read_ids(lua_State *L, int top, const char *key, const kg_graph_t *g, int *ids,
                    int max, int *count, const char *op, kg_diag_t *d) {
  raw_field(L, top, key);
  lua_Integer n = raw_len(L, -1);
  if (n > max)
    return kg_error(d, "%s: more than %d %s", op, max, key);
  *count = (int)n;
  for (int i = 0; i < *count; i++) {
    lua_rawgeti(L, -1, i + 1);
    ids[i] = tensor_id(L, lua_gettop(L), g);
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

static int read_node(lua_State *L, const kg_graph_t *g, kg_node_t *n, kg_diag_t *d) {
  int top = lua_gettop(L);
  if (lua_type(L, top) != LUA_TTABLE)
    return kg_error(d, "internal error: a node is not a table");
  KG_TRY(get_ident(L, top, "op", "a node", &n->op, d));
  if (!n->op)
    return kg_error(d, "internal error: node without op");
  /* the model's file and line of the call (kg_where), for later errors */
  if (raw_field(L, top, "file") == LUA_TSTRING) {
    size_t len = 0;
    const char *f = lua_tolstring(L, -1, &len);
    int printable = len > 0 && len <= 1024;
    for (size_t i = 0; printable && i < len; i++)
      printable = f[i] >= 0x20 && f[i] < 0x7f;
    if (printable)
      n->file = kg_xstrdup(f);
  }
  lua_pop(L, 1);
  const int64_t line = get_int(L, top, "line", 0);
  n->line = line > 0 && line <= INT32_MAX ? (int)line : 0;
  if (raw_field(L, top, "expr") != LUA_TNIL) {
    size_t len = 0;
    const char *e = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &len) : NULL;
    if (!e || !is_code(e, len))
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
  int64_t inplace = get_int(L, top, "inplace", 0);
  if (inplace < 0 || inplace > n->num_inputs || (inplace > 0 && n->num_outputs != 1))
    return kg_error(d, "internal error: %s: bad in-place operand", n->op);
  n->inplace = (int)inplace - 1;
  n->split_norm = get_bool(L, top, "split_norm");
  /* a pipeline stage's rank (on_rank) or a broadcast's root; -1: every rank */
  const int64_t rank = get_int(L, top, "rank", -1);
  if (rank < -1 || rank >= g->ranks)
    return kg_error(d, "internal error: %s: rank %lld of %d", n->op, (long long)rank,
                    g->ranks);
  n->rank = (int)rank;
  /* a collective step: how it combines the ranks' values */
  char *coll = get_string(L, top, "combine");
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
  if (raw_field(L, top, "variants") != LUA_TTABLE) {
    lua_pop(L, 1);
    n->num_variants = 1;
    return read_variant(L, top, g, n, &n->variants[0], d);
  }
  int list = lua_gettop(L);
  const lua_Integer count = raw_len(L, list);
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

/* Pushes the list graph[key]; its length, or an error past `max`. */
static int graph_list(lua_State *L, int graph, const char *key, int max, int *n,
                      const char *path, kg_diag_t *d) {
  raw_field(L, graph, key);
  lua_Integer len = raw_len(L, -1);
  if (len > max)
    return kg_error_at(d, path, 0, "the model has more than %d %s (the most kgen builds)",
                       max, key);
  *n = (int)len;
  return 0;
}

/* Reads the list graph[key] of tensors into tensor ids. */
static int read_id_list(lua_State *L, int graph, const char *key, kg_graph_t *g,
                        int **out, int *count, const char *path, kg_diag_t *d) {
  KG_TRY(graph_list(L, graph, key, KG_FRONT_MAX_IO, count, path, d));
  *out = kg_xcalloc((size_t)*count + 1, sizeof **out);
  for (int i = 0; i < *count; i++) {
    lua_rawgeti(L, -1, i + 1);
    (*out)[i] = tensor_id(L, lua_gettop(L), g);
    lua_pop(L, 1);
    if ((*out)[i] < 0 || g->tensors[(*out)[i]].io_index >= 0)
      return kg_error(d, "internal error: %s %d is not a tensor of its own", key, i);
  }
  lua_pop(L, 1);
  return 0;
}

/* The bytes of n elements of dtype dt (quantized: whole blocks). */
static uint64_t dtype_bytes(const kg_dtype_info_t *dt, int64_t n) {
  return dt->block_elems > 0 ? (uint64_t)(n / dt->block_elems) * dt->block_bytes
                             : (uint64_t)n * dt->size;
}

/* A view reads an earlier tensor's memory: the same dtype and element count
 * (the same constant product and syms), or, with an offset (split), a
 * constant part inside a constant source; it counts as a use of it. */
static int check_view(kg_graph_t *g, int i, kg_diag_t *d) {
  kg_tensor_t *t = &g->tensors[i];
  if (!t->view)
    return 0;
  if (t->alias < 0 || t->alias >= i)
    return kg_error(d, "internal error: a view of a later tensor");
  const kg_tensor_t *s = &g->tensors[t->alias];
  kgrt_expr_t a, b;
  if (s->dtype.code != t->dtype.code || kg_tensor_numel(g, s, &a) ||
      kg_tensor_numel(g, t, &b))
    return kg_error(d, "internal error: a view of another dtype");
  if (t->view_offset > 0 || a.scale != b.scale) {
    for (int x = 0; x < KGRT_EXPR_SYMS; x++)
      if (a.sym[x] >= 0 || b.sym[x] >= 0)
        return kg_error(d, "internal error: a part of a value with run-time dims");
    const uint64_t sb = dtype_bytes(&s->dtype, a.scale),
                   tb = dtype_bytes(&t->dtype, b.scale);
    if (tb > sb || t->view_offset > sb - tb)
      return kg_error(d, "internal error: a view past its source's end");
    g->tensors[t->alias].uses++;
    return 0;
  }
  int used[KGRT_EXPR_SYMS] = {0};
  for (int x = 0; x < KGRT_EXPR_SYMS; x++) {
    int found = a.sym[x] < 0;
    for (int y = 0; y < KGRT_EXPR_SYMS && !found; y++)
      if (!used[y] && b.sym[y] == a.sym[x])
        used[y] = found = 1;
    if (!found)
      return kg_error(d, "internal error: a view over other syms");
  }
  g->tensors[t->alias].uses++;
  return 0;
}

/* Dead nodes: no model output, state, in-place update or live node needs
 * their results (a matmul a split rewrote into parts, say). Marked dead (no
 * kernel), their operand uses dropped, back to front so chains die too. */
/* A split weight's parts divide the ranks, and it is split along a constant
 * dim whose whole (parts times it) stays a dim. */
static int check_split(const kg_graph_t *g, const kg_tensor_t *t, kg_diag_t *d) {
  if (t->parts == 1)
    return 0;
  if (t->parts > g->ranks || g->ranks % t->parts != 0 || t->split >= t->rank ||
      t->dims[t->split].sym >= 0 || t->dims[t->split].value < 1 ||
      t->dims[t->split].value > INT32_MAX / t->parts)
    return kg_error(d, "internal error: weight %s: a bad split", t->name);
  return 0;
}

/* The rank a tensor's value is on: its producer's (through views), -1 for
 * every rank (inputs, weights, broadcasts' results, ops on every rank). */
static int value_rank(const kg_graph_t *g, int t) {
  while (g->tensors[t].view)
    t = g->tensors[t].alias;
  const int p = g->tensors[t].producer;
  if (p < 0 || g->nodes[p].collective == KGRT_COLLECTIVE_BROADCAST)
    return -1;
  return g->nodes[p].rank;
}

/* A pipeline's ranks: every operand is on the rank its op runs on (or on
 * every rank), and every output on every rank: kg.node and kg.output put a
 * broadcast wherever a value crosses ranks. A pipeline splits no weight and
 * combines no partial values (tensor parallel in one model with it: not
 * built). */
static int check_ranks(const kg_graph_t *g, kg_diag_t *d) {
  int placed = 0, tensor_parallel = 0;
  for (int n = 0; n < g->num_nodes; n++) {
    const kg_node_t *node = &g->nodes[n];
    placed |= node->rank >= 0;
    tensor_parallel |= node->collective == KGRT_COLLECTIVE_ALL_REDUCE ||
                       node->collective == KGRT_COLLECTIVE_ALL_GATHER;
    for (int i = 0; i < node->num_inputs; i++) {
      const int r = value_rank(g, node->inputs[i]);
      if (r >= 0 && r != node->rank)
        return kg_error(d, "internal error: %s: operand %d is on rank %d, the op on %d",
                        node->op, i, r, node->rank);
    }
  }
  for (int i = 0; i < g->num_weights; i++)
    tensor_parallel |= g->tensors[g->weights[i]].parts > 1;
  if (placed && tensor_parallel)
    return kg_error(d, "internal error: ops placed on ranks with tensor-parallel ops");
  for (int i = 0; i < g->num_outputs; i++)
    if (value_rank(g, g->outputs[i].tensor) >= 0)
      return kg_error(d, "internal error: output %s is on one rank", g->outputs[i].name);
  return 0;
}

static void mark_dead(kg_graph_t *g) {
  for (int n = g->num_nodes - 1; n >= 0; n--) {
    kg_node_t *node = &g->nodes[n];
    int needed = node->inplace >= 0;
    for (int k = 0; k < node->num_outputs && !needed; k++) {
      const kg_tensor_t *t = &g->tensors[node->outputs[k]];
      needed = t->uses > 0 || t->output_index >= 0 || t->persistent;
    }
    if (needed)
      continue;
    node->dead = 1;
    for (int i = 0; i < node->num_inputs; i++) {
      /* a view used only by this node no longer uses its source */
      int t = node->inputs[i];
      while (t >= 0 && --g->tensors[t].uses == 0 && g->tensors[t].view)
        t = g->tensors[t].alias;
    }
  }
}

static int read_graph(lua_State *L, int graph, kg_graph_t *g, const char *path,
                      kg_diag_t *d) {
  int n;
  if (lua_type(L, graph) != LUA_TTABLE)
    return kg_error(d, "internal error: kgen's graph is not a table");
  const int64_t ranks = get_int(L, graph, "ranks", 1);
  if (ranks < 1 || ranks > KG_FRONT_MAX_RANKS)
    return kg_error(d, "internal error: the model's ranks are %lld", (long long)ranks);
  g->ranks = (int)ranks;
  KG_TRY(graph_list(L, graph, "syms", KG_FRONT_MAX_SYMS, &n, path, d));
  g->syms = kg_xcalloc((size_t)n + 1, sizeof *g->syms);
  for (int i = 0; i < n; i++) {
    lua_rawgeti(L, -1, i + 1);
    g->num_syms = i + 1;
    KG_TRY(get_ident(L, lua_gettop(L), "name", "a sym", &g->syms[i].name, d));
    g->syms[i].max = get_int(L, lua_gettop(L), "max", 0); /* sizes.c checks it */
    g->syms[i].rank = get_bool(L, lua_gettop(L), "rank");
    if (!g->syms[i].name || get_int(L, lua_gettop(L), "ordinal", -1) != i)
      return kg_error(d, "internal error: sym %d is not sym %d", i, i);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);

  KG_TRY(graph_list(L, graph, "tensors", KG_FRONT_MAX_TENSORS, &n, path, d));
  g->tensors = kg_xcalloc((size_t)n + 1, sizeof *g->tensors);
  g->num_tensors = n;
  for (int i = 0; i < n; i++) {
    lua_rawgeti(L, -1, i + 1);
    KG_TRY(read_tensor(L, g, i, &g->tensors[i], d));
    lua_pop(L, 1);
    KG_TRY(check_view(g, i, d));
  }
  lua_pop(L, 1);

  KG_TRY(graph_list(L, graph, "nodes", KG_FRONT_MAX_NODES, &n, path, d));
  g->nodes = kg_xcalloc((size_t)n + 1, sizeof *g->nodes);
  for (int i = 0; i < n; i++) {
    lua_rawgeti(L, -1, i + 1);
    g->num_nodes = i + 1;
    KG_TRY(read_node(L, g, &g->nodes[i], d));
    lua_pop(L, 1);
    kg_node_t *nd = &g->nodes[i];
    for (int k = 0; k < nd->num_outputs; k++) {
      kg_tensor_t *t = &g->tensors[nd->outputs[k]];
      if (t->kind != KG_TENSOR_VALUE || t->producer >= 0)
        return kg_error(d, "internal error: %s: result %d is not a new value", nd->op, k);
      t->producer = i;
    }
    for (int k = 0; k < nd->num_inputs; k++) {
      /* a view is computed where its storage is */
      const kg_tensor_t *t = &g->tensors[kg_tensor_storage(g, nd->inputs[k])];
      if (t->kind == KG_TENSOR_VALUE && t->producer < 0)
        return kg_error(d, "internal error: %s: operand %d is not computed before it",
                        nd->op, k);
    }
    if (nd->inplace >= 0) {
      g->tensors[nd->output].alias = nd->inputs[nd->inplace];
      g->tensors[kg_tensor_storage(g, nd->output)].written = 1;
    }
    for (int k = 0; k < nd->num_inputs; k++)
      g->tensors[nd->inputs[k]].uses++;
  }
  lua_pop(L, 1);
  for (int i = 0; i < g->num_tensors; i++)
    if (g->tensors[i].kind == KG_TENSOR_VALUE && g->tensors[i].producer < 0 &&
        !g->tensors[i].view)
      return kg_error(d, "internal error: tensor %d is a value no op computes", i);

  KG_TRY(read_id_list(L, graph, "inputs", g, &g->inputs, &g->num_inputs, path, d));
  for (int i = 0; i < g->num_inputs; i++) {
    if (g->tensors[g->inputs[i]].kind != KG_TENSOR_INPUT)
      return kg_error(d, "internal error: input %d is not an input", i);
    g->tensors[g->inputs[i]].io_index = i;
  }
  KG_TRY(read_id_list(L, graph, "weights", g, &g->weights, &g->num_weights, path, d));
  for (int i = 0; i < g->num_weights; i++) {
    if (g->tensors[g->weights[i]].kind != KG_TENSOR_WEIGHT)
      return kg_error(d, "internal error: weight %d is not a weight", i);
    g->tensors[g->weights[i]].io_index = i;
    KG_TRY(check_split(g, &g->tensors[g->weights[i]], d));
  }
  for (int i = 0; i < g->num_tensors; i++)
    if (g->tensors[i].kind != KG_TENSOR_VALUE && g->tensors[i].io_index < 0)
      return kg_error(d, "internal error: tensor %d is not a declared input or weight",
                      i);

  KG_TRY(graph_list(L, graph, "outputs", KG_FRONT_MAX_IO, &n, path, d));
  g->outputs = kg_xcalloc((size_t)n + 1, sizeof *g->outputs);
  for (int i = 0; i < n; i++) {
    lua_rawgeti(L, -1, i + 1);
    int o = lua_gettop(L);
    g->num_outputs = i + 1;
    g->outputs[i].tensor = -1;
    KG_TRY(get_ident(L, o, "name", "an output", &g->outputs[i].name, d));
    raw_field(L, o, "tensor");
    g->outputs[i].tensor = tensor_id(L, lua_gettop(L), g);
    lua_pop(L, 2);
    if (!g->outputs[i].name || g->outputs[i].tensor < 0)
      return kg_error(d, "internal error: output %d is not a named tensor", i);
    kg_tensor_t *t = &g->tensors[g->outputs[i].tensor];
    if (t->output_index >= 0)
      return kg_error_at(d, path, 0, "output %s: the tensor is already output %s",
                         g->outputs[i].name, g->outputs[t->output_index].name);
    if (t->view)
      return kg_error_at(
          d, path, 0,
          "output %s: is a view (reshape) of another value; outputs must be "
          "values a kernel computes (output the value itself)",
          g->outputs[i].name);
    if (t->alias >= 0)
      return kg_error_at(
          d, path, 0,
          "output %s: is an in-place update of %s; outputs must be new values",
          g->outputs[i].name,
          g->tensors[kg_tensor_storage(g, t->alias)].name
              ? g->tensors[kg_tensor_storage(g, t->alias)].name
              : "a value");
    if (t->kind != KG_TENSOR_VALUE)
      return kg_error_at(d, path, 0, "output %s: is %s itself; outputs must be computed",
                         g->outputs[i].name,
                         t->kind == KG_TENSOR_INPUT ? "an input" : "a weight");
    t->output_index = i;
  }
  lua_pop(L, 1);
  KG_TRY(check_ranks(g, d));
  /* every name once: inputs, weights and outputs share one namespace */
  for (int i = 0; i < g->num_tensors; i++)
    for (int j = 0; j < i && g->tensors[i].name; j++)
      if (g->tensors[j].name && strcmp(g->tensors[i].name, g->tensors[j].name) == 0)
        return kg_error(d, "internal error: two tensors are named %s",
                        g->tensors[i].name);
  mark_dead(g);
  for (int i = 0; i < g->num_tensors; i++)
    g->tensors[i].reader = -1;
  for (int n = g->num_nodes - 1; n >= 0; n--)
    for (int k = 0; k < g->nodes[n].num_inputs && !g->nodes[n].dead; k++)
      g->tensors[g->nodes[n].inputs[k]].reader = n;
  if (g->num_outputs == 0)
    return kg_error_at(d, path, 0,
                       "the model declares no outputs (use output(name, tensor))");
  return 0;
}

/* The identifiers of the list at field key of the table at idx, after
 * `first` (if not NULL). */
static int read_names(lua_State *L, int idx, const char *key, const char *first,
                      char ***out, int *count, kg_diag_t *d) {
  raw_field(L, idx, key);
  lua_Integer n = raw_len(L, -1);
  if (n > 64)
    return kg_error(d, "internal error: %s: more than 64 names", key);
  *out = kg_xcalloc((size_t)n + 2, sizeof **out);
  *count = 0;
  if (first)
    (*out)[(*count)++] = kg_xstrdup(first);
  for (lua_Integer i = 0; i < n; i++) {
    lua_rawgeti(L, -1, i + 1);
    size_t len = 0;
    const char *v = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &len) : NULL;
    if (!v || !is_ident(v, len))
      return kg_error(d, "internal error: %s: an entry is not a C identifier", key);
    (*out)[(*count)++] = kg_xstrdup(v);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return 0;
}

/* The declaration of template `name` (kg.templates[name], at `decls`). */
static int read_template(lua_State *L, int decls, const char *name, kg_template_t *t,
                         kg_diag_t *d) {
  memset(t, 0, sizeof *t);
  t->name = kg_xstrdup(name);
  if (raw_field(L, decls, name) != LUA_TTABLE) {
    lua_pop(L, 1);
    return kg_error(d, "internal error: template %s is not declared (kg.template)", name);
  }
  const int decl = lua_gettop(L);
  if (raw_field(L, decl, "holes") == LUA_TTABLE) {
    int cap = 0;
    lua_pushnil(L);
    while (lua_next(L, -2)) {
      const int keyed = lua_type(L, -2) == LUA_TSTRING;
      if (lua_type(L, -1) == LUA_TSTRING && (keyed || lua_isinteger(L, -2))) {
        size_t nlen = 0, vlen = 0;
        const char *hn = lua_tolstring(L, keyed ? -2 : -1, &nlen);
        const char *hv = keyed ? lua_tolstring(L, -1, &vlen) : NULL;
        if (!is_ident(hn, nlen) || (hv && !is_code(hv, vlen)))
          return kg_error(d, "internal error: template %s: a bad hole", name);
        if (t->num_holes == cap) {
          cap = cap ? 2 * cap : 16;
          t->holes = kg_xrealloc(t->holes, (size_t)cap * sizeof *t->holes);
        }
        kg_hole_t *h = &t->holes[t->num_holes++];
        h->name = kg_xstrdup(hn);
        h->value = hv ? kg_xstrdup(hv) : NULL;
      }
      lua_pop(L, 1);
    }
    if (t->num_holes)
      qsort(t->holes, (size_t)t->num_holes, sizeof *t->holes, cmp_hole);
    for (int i = 1; i < t->num_holes; i++)
      if (strcmp(t->holes[i - 1].name, t->holes[i].name) == 0)
        return kg_error(d, "internal error: template %s declares hole %s twice", name,
                        t->holes[i].name);
  }
  lua_pop(L, 1);
  KG_TRY(read_names(L, decl, "libs", NULL, &t->libs, &t->num_libs, d));
  char *file = NULL; /* its own text: templates/<file>.hip, default its name */
  KG_TRY(get_ident(L, decl, "file", name, &file, d));
  const int rc =
      read_names(L, decl, "sources", file ? file : name, &t->sources, &t->num_sources, d);
  free(file);
  KG_TRY(rc);
  if (raw_field(L, decl, "fuse") == LUA_TTABLE) {
    const int f = lua_gettop(L);
    t->fuse = (get_bool(L, f, "chain") ? KG_FUSE_CHAIN : 0) |
              (get_bool(L, f, "epilogue") ? KG_FUSE_EPILOGUE : 0) |
              (get_bool(L, f, "pair") ? KG_FUSE_PAIR : 0) |
              (get_bool(L, f, "rms_prologue") ? KG_FUSE_NORM : 0) |
              (get_bool(L, f, "rms") ? KG_FUSE_RMS : 0) |
              (get_bool(L, f, "regions") ? KG_FUSE_REGIONS : 0) |
              (get_bool(L, f, "rotary") ? KG_FUSE_ROTARY : 0) |
              (get_bool(L, f, "cache") ? KG_FUSE_CACHE : 0) |
              (get_bool(L, f, "region_epilogue") ? KG_FUSE_REGION_EPI : 0) |
              (get_bool(L, f, "norm_out") ? KG_FUSE_NORM_OUT : 0) |
              (get_bool(L, f, "row_scale") ? KG_FUSE_ROW_SCALE : 0) |
              (get_bool(L, f, "split_default") ? KG_FUSE_SPLIT_DEFAULT : 0) |
              (get_bool(L, f, "row_sums") ? KG_FUSE_ROW_SUMS : 0);
  }
  lua_pop(L, 1);
  t->weights_before_wait = get_bool(L, decl, "weights_before_wait");
  lua_pop(L, 1);
  if ((t->fuse & KG_FUSE_PAIR) && !(t->fuse & KG_FUSE_EPILOGUE))
    return kg_error(d, "internal error: template %s: a pair without an epilogue", name);
  if ((t->fuse & KG_FUSE_REGION_EPI) && !(t->fuse & KG_FUSE_REGIONS))
    return kg_error(d, "internal error: template %s: a region epilogue without regions",
                    name);
  return 0;
}

/* Every variant's template declaration, read once each (kg.templates at
 * `decls`), in first-use order. */
static int read_templates(lua_State *L, int decls, kg_graph_t *g, kg_diag_t *d) {
  for (int i = 0; i < g->num_nodes; i++)
    for (int v = 0; v < g->nodes[i].num_variants; v++) {
      kg_variant_t *var = &g->nodes[i].variants[v];
      var->decl = -1;
      for (int k = 0; k < g->num_templates && var->decl < 0; k++)
        if (strcmp(g->templates[k].name, var->tmpl) == 0)
          var->decl = k;
      if (var->decl >= 0)
        continue;
      g->templates = kg_xrealloc(g->templates,
                                 (size_t)(g->num_templates + 1) * sizeof *g->templates);
      var->decl = g->num_templates++;
      KG_TRY(read_template(L, decls, var->tmpl, &g->templates[var->decl], d));
    }
  return 0;
}

/* What the protected reader gets and gives. */
typedef struct front_read {
  kg_graph_t *g;
  const char *path;
  kg_diag_t *d;
  int rc;
} front_read_t;

/* Runs protected: argument 1 is a front_read_t, 2 the kgen module. Every
 * allocation of g is hung on g at once, so an error part-way leaks nothing
 * (kg_graph_free takes what was read). */
static int front_read(lua_State *L) {
  front_read_t *r = lua_touserdata(L, 1);
  raw_field(L, 2, "graph");
  r->rc = read_graph(L, lua_gettop(L), r->g, r->path, r->d);
  if (r->rc == 0) {
    raw_field(L, 2, "templates");
    r->rc = read_templates(L, lua_gettop(L), r->g, r->d);
  }
  return 0;
}

/* Runs protected: argument 1 the kgen module, 2 a kg_target_t array, 3 its
 * length. Sets kg.targets = { {name =, wave =, max_block =}, ... }. */
static int front_targets(lua_State *L) {
  const kg_target_t *t = lua_touserdata(L, 2);
  int n = (int)lua_tointeger(L, 3);
  lua_createtable(L, n, 0);
  for (int i = 0; i < n; i++) {
    lua_createtable(L, 0, 3);
    lua_pushstring(L, t[i].name);
    lua_setfield(L, -2, "name");
    lua_pushinteger(L, t[i].wave);
    lua_setfield(L, -2, "wave");
    lua_pushinteger(L, t[i].max_block);
    lua_setfield(L, -2, "max_block");
    lua_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, 1, "targets");
  return 0;
}

/* Runs protected: argument 1 the kgen module. The DSL's names, kg.env(),
 * become the model's globals. */
static int front_env(lua_State *L) {
  lua_getfield(L, 1, "env");
  lua_call(L, 0, 1);
  int env = lua_gettop(L);
  lua_pushnil(L);
  while (lua_next(L, env)) {
    lua_pushvalue(L, -2);
    lua_insert(L, -2);
    lua_setglobal(L, lua_tostring(L, -2));
    lua_pop(L, 1); /* the key's copy: lua_next takes the original */
  }
  return 0;
}

int kg_front_load(kg_sandbox_t *sb, const char *model_path, const kg_target_t *targets,
                  int num_targets, kg_graph_t *g, kg_diag_t *d) {
  lua_State *L = kg_sandbox_lua(sb);
  memset(g, 0, sizeof *g);
  g->model = kg_front_model_name(model_path);
  if (!lua_checkstack(L, 8))
    return kg_error(d, "Lua stack overflow");

  KG_TRY(kg_sandbox_require(sb, "kgen", d));
  int kg = lua_gettop(L);
  int rc = 0;
  lua_pushcfunction(L, front_targets);
  lua_pushvalue(L, kg);
  lua_pushlightuserdata(L, (void *)targets);
  lua_pushinteger(L, num_targets);
  rc = kg_sandbox_pcall(sb, 3, 0, d);
  if (rc == 0) {
    lua_pushcfunction(L, front_env);
    lua_pushvalue(L, kg);
    rc = kg_sandbox_pcall(sb, 1, 0, d);
  }
  if (rc == 0)
    rc = kg_sandbox_seal_globals(sb, d);
  if (rc == 0)
    rc = kg_sandbox_run_model(sb, d);
  if (rc == 0) {
    front_read_t r = {g, model_path, d, 0};
    lua_pushcfunction(L, front_read);
    lua_pushlightuserdata(L, &r);
    lua_pushvalue(L, kg);
    rc = kg_sandbox_pcall(sb, 2, 0, d);
    if (rc == 0)
      rc = r.rc;
  }
  lua_settop(L, kg - 1);
  return rc;
}
