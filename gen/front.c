/* front.c - the Lua front end.
 * Needs: a sandbox (sandbox.c) with kgen's lua/ library embedded.
 * Gives: kg_graph_t, read field by field from kg.graph in array order, so
 * nothing depends on Lua's table iteration order. */
#include "front.h"

#include <lauxlib.h>
#include <lua.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

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
  return name;
}

/* Field helpers: each reads t[key] of the table at `idx` and pops it. */
static char *get_string(lua_State *L, int idx, const char *key) {
  lua_getfield(L, idx, key);
  char *s = lua_type(L, -1) == LUA_TSTRING ? kg_xstrdup(lua_tostring(L, -1)) : NULL;
  lua_pop(L, 1);
  return s;
}

static int64_t get_int(lua_State *L, int idx, const char *key, int64_t dflt) {
  lua_getfield(L, idx, key);
  int64_t v = lua_isinteger(L, -1) ? (int64_t)lua_tointeger(L, -1) : dflt;
  lua_pop(L, 1);
  return v;
}

static int table_id(lua_State *L, int idx) {
  return (int)get_int(L, idx, "id", -1);
}

static int lookup_dtype(const char *name, kg_dtype_info_t *out) {
  static const kg_dtype_info_t known[] = {
      {KGRT_DTYPE_F32, "f32", "float", 4, 0, 0},
      {KGRT_DTYPE_F16, "f16", "kg_f16", 2, 0, 0},
      {KGRT_DTYPE_BF16, "bf16", "kg_bf16", 2, 0, 0},
      {KGRT_DTYPE_I32, "i32", "int", 4, 0, 0},
      {KGRT_DTYPE_Q8_0, "q8_0", "unsigned short", 0, 32, 34},
      {KGRT_DTYPE_Q4_0, "q4_0", "unsigned short", 0, 32, 18},
      {KGRT_DTYPE_Q4_K, "q4_k", "unsigned short", 0, 256, 144},
      {KGRT_DTYPE_Q6_K, "q6_k", "unsigned short", 0, 256, 210},
  };
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
    if (name && strcmp(name, known[i].name) == 0) {
      *out = known[i];
      return 0;
    }
  return -1;
}

/* Reads the tensor table at the top of the stack. */
static int read_tensor(lua_State *L, kg_tensor_t *t, kg_diag_t *d) {
  int top = lua_gettop(L);
  char *kind = get_string(L, top, "kind");
  t->kind = !kind                         ? KG_TENSOR_VALUE
            : strcmp(kind, "input") == 0  ? KG_TENSOR_INPUT
            : strcmp(kind, "weight") == 0 ? KG_TENSOR_WEIGHT
                                          : KG_TENSOR_VALUE;
  free(kind);
  t->name = get_string(L, top, "name");
  lua_getfield(L, top, "persistent");
  t->persistent = lua_toboolean(L, -1);
  lua_pop(L, 1);
  t->io_index = -1;
  t->output_index = -1;
  t->producer = -1;
  t->alias = -1;
  lua_getfield(L, top, "view_of");
  if (lua_istable(L, -1)) {
    t->view = 1;
    t->alias = table_id(L, lua_gettop(L)); /* checked by read_graph */
  }
  lua_pop(L, 1);
  const int64_t off = get_int(L, top, "view_offset", 0);
  t->view_offset = off > 0 ? (uint64_t)off : 0;
  if (off < 0 || (off > 0 && !t->view))
    return kg_error(d, "internal: a bad view offset");
  lua_getfield(L, top, "dtype");
  char *dt = lua_istable(L, -1) ? get_string(L, lua_gettop(L), "name") : NULL;
  lua_pop(L, 1);
  int bad = lookup_dtype(dt, &t->dtype);
  free(dt);
  if (bad)
    return kg_error(d, "internal: tensor without a dtype");
  lua_getfield(L, top, "shape");
  t->rank = (int)luaL_len(L, -1);
  if (t->rank < 1 || t->rank > KGRT_MAX_DIMS)
    return kg_error(d, "internal: tensor rank %d", t->rank);
  for (int i = 0; i < t->rank; i++) {
    lua_geti(L, -1, i + 1);
    if (lua_isinteger(L, -1)) {
      t->dims[i].value = lua_tointeger(L, -1);
      t->dims[i].sym = -1;
    } else {
      t->dims[i].value = 0;
      t->dims[i].sym = (int)get_int(L, lua_gettop(L), "ordinal", -1);
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return 0;
}

static int cmp_hole(const void *a, const void *b) {
  return strcmp(((const kg_hole_t *)a)->name, ((const kg_hole_t *)b)->name);
}

/* Reads holes (string -> string) into a sorted array. */
static void read_holes(lua_State *L, int idx, kg_variant_t *n) {
  lua_getfield(L, idx, "holes");
  if (lua_istable(L, -1)) {
    int cap = 0;
    lua_pushnil(L);
    while (lua_next(L, -2)) {
      if (lua_type(L, -2) == LUA_TSTRING && lua_type(L, -1) == LUA_TSTRING) {
        if (n->num_holes == cap) {
          cap = cap ? cap * 2 : 8;
          n->holes = kg_xrealloc(n->holes, (size_t)cap * sizeof *n->holes);
        }
        n->holes[n->num_holes].name = kg_xstrdup(lua_tostring(L, -2));
        n->holes[n->num_holes].value = kg_xstrdup(lua_tostring(L, -1));
        n->num_holes++;
      }
      lua_pop(L, 1);
    }
    if (n->num_holes)
      qsort(n->holes, (size_t)n->num_holes, sizeof *n->holes, cmp_hole);
  }
  lua_pop(L, 1);
}

/* A size at the top of the stack, a list of integers and syms (kgen.lua
 * normalises node.dim_args so), as their product. */
static int read_size(lua_State *L, kgrt_expr_t *e, const char *op, kg_diag_t *d) {
  int idx = lua_gettop(L);
  int n = (int)luaL_len(L, idx), ns = 0;
  *e = kg_expr_const(1);
  for (int i = 0; i < n; i++) {
    lua_geti(L, idx, i + 1);
    if (lua_isinteger(L, -1)) {
      if (__builtin_mul_overflow(e->scale, (int64_t)lua_tointeger(L, -1), &e->scale))
        return kg_error(d, "%s: a size argument overflows 64 bits", op);
    } else {
      int64_t sym = lua_istable(L, -1) ? get_int(L, lua_gettop(L), "ordinal", -1) : -1;
      if (sym < 0 || ns == KGRT_EXPR_SYMS)
        return kg_error(d, "internal: %s: a size argument is not a product of dims", op);
      e->sym[ns++] = (int16_t)sym;
    }
    lua_pop(L, 1);
  }
  return 0;
}

/* The size at field `key` of the table at idx (a list, see read_size), or
 * *e unchanged when absent. */
static int read_size_field(lua_State *L, int idx, const char *key, kgrt_expr_t *e,
                           const char *op, kg_diag_t *d) {
  lua_getfield(L, idx, key);
  int rc = lua_istable(L, -1) ? read_size(L, e, op, d) : 0;
  lua_pop(L, 1);
  return rc;
}

/* One way to generate the node's kernel, from the table at idx (the node
 * itself, or an entry of node.variants). */
static int read_variant(lua_State *L, int idx, const kg_graph_t *g, const kg_node_t *n,
                        kg_variant_t *v, kg_diag_t *d) {
  v->tmpl = get_string(L, idx, "template");
  if (!v->tmpl)
    return kg_error(d, "internal: %s: a kernel without a template", n->op);
  v->label = get_string(L, idx, "label");
  char *grid = get_string(L, idx, "grid");
  v->grid = !grid                        ? KG_GRID_MAP
            : strcmp(grid, "rows") == 0  ? KG_GRID_ROWS
            : strcmp(grid, "tiles") == 0 ? KG_GRID_TILES
                                         : KG_GRID_MAP;
  free(grid);
  v->cols = get_int(L, idx, "cols", 0);
  v->params_ref = -1;
  lua_getfield(L, idx, "grid_of");
  v->grid_of = lua_istable(L, -1) ? table_id(L, lua_gettop(L)) : n->output;
  lua_pop(L, 1);
  if (v->grid_of < 0 || v->grid_of >= g->num_tensors)
    return kg_error(d, "internal: %s: grid_of is not a tensor", n->op);
  v->tile_units = kg_expr_const(0);
  KG_TRY(read_size_field(L, idx, "tile_units", &v->tile_units, n->op, d));
  if (v->grid == KG_GRID_TILES && v->tile_units.scale == 0)
    return kg_error(d, "internal: %s: a tiles grid without tile_units", n->op);
  lua_getfield(L, idx, "dim_args");
  if (lua_istable(L, -1)) {
    v->num_dim_args = (int)luaL_len(L, -1);
    if (v->num_dim_args > KG_MAX_DIM_ARGS)
      return kg_error(d, "internal: %s: more than %d size arguments", n->op,
                      KG_MAX_DIM_ARGS);
    for (int i = 0; i < v->num_dim_args; i++) {
      lua_geti(L, -1, i + 1);
      KG_TRY(read_size(L, &v->dim_args[i], n->op, d));
      lua_pop(L, 1);
    }
  }
  lua_pop(L, 1);
  v->select = kg_expr_const(0);
  lua_getfield(L, idx, "select");
  if (lua_istable(L, -1)) {
    int sel = lua_gettop(L);
    KG_TRY(read_size_field(L, sel, "size", &v->select, n->op, d));
    v->select_min = get_int(L, sel, "min", 0); /* sizes are never negative */
    v->select_max = get_int(L, sel, "max", INT64_MAX);
  }
  lua_pop(L, 1);
  read_holes(L, idx, v);
  lua_getfield(L, idx, "params_info");
  if (lua_istable(L, -1))
    v->params_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  else
    lua_pop(L, 1);
  return 0;
}

static int read_node(lua_State *L, const kg_graph_t *g, kg_node_t *n, kg_diag_t *d) {
  int top = lua_gettop(L);
  n->op = get_string(L, top, "op");
  n->expr = get_string(L, top, "expr");
  if (!n->op)
    return kg_error(d, "internal: node without op");
  lua_getfield(L, top, "inputs");
  n->num_inputs = (int)luaL_len(L, -1);
  if (n->num_inputs > KG_MAX_INPUTS)
    return kg_error(d, "%s: more than %d operands", n->op, KG_MAX_INPUTS);
  for (int i = 0; i < n->num_inputs; i++) {
    lua_geti(L, -1, i + 1);
    n->inputs[i] = table_id(L, lua_gettop(L));
    lua_pop(L, 1);
    if (n->inputs[i] < 0 || n->inputs[i] >= g->num_tensors)
      return kg_error(d, "internal: %s operand %d is not a tensor", n->op, i);
  }
  lua_pop(L, 1);
  lua_getfield(L, top, "outputs");
  n->num_outputs = (int)luaL_len(L, -1);
  if (n->num_outputs < 1 || n->num_outputs > KG_MAX_OUTPUTS)
    return kg_error(d, "internal: %s has %d results", n->op, n->num_outputs);
  for (int i = 0; i < n->num_outputs; i++) {
    lua_geti(L, -1, i + 1);
    n->outputs[i] = table_id(L, lua_gettop(L));
    lua_pop(L, 1);
    if (n->outputs[i] < 0 || n->outputs[i] >= g->num_tensors)
      return kg_error(d, "internal: %s result %d is not a tensor", n->op, i);
  }
  lua_pop(L, 1);
  n->output = n->outputs[0];
  n->inplace = (int)get_int(L, top, "inplace", 0) - 1;
  if (n->inplace >= n->num_inputs || (n->inplace >= 0 && n->num_outputs != 1))
    return kg_error(d, "internal: %s: bad in-place operand", n->op);
  lua_getfield(L, top, "variants");
  if (!lua_istable(L, -1)) {
    lua_pop(L, 1);
    n->num_variants = 1;
    return read_variant(L, top, g, n, &n->variants[0], d);
  }
  int list = lua_gettop(L);
  const lua_Integer count = luaL_len(L, list);
  if (count < 1 || count > KG_MAX_VARIANTS)
    return kg_error(d, "internal: %s has %lld variants", n->op, (long long)count);
  n->num_variants = (int)count;
  for (int i = 0; i < n->num_variants; i++) {
    lua_geti(L, list, i + 1);
    KG_TRY(read_variant(L, lua_gettop(L), g, n, &n->variants[i], d));
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return 0;
}

/* Reads the list graph[key] of tensors into tensor ids. */
static int read_id_list(lua_State *L, int graph, const char *key, int **out) {
  lua_getfield(L, graph, key);
  int n = (int)luaL_len(L, -1);
  *out = kg_xcalloc((size_t)n, sizeof **out);
  for (int i = 0; i < n; i++) {
    lua_geti(L, -1, i + 1);
    (*out)[i] = table_id(L, lua_gettop(L));
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return n;
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
    return kg_error(d, "internal: a view of a later tensor");
  const kg_tensor_t *s = &g->tensors[t->alias];
  kgrt_expr_t a, b;
  if (s->dtype.code != t->dtype.code || kg_tensor_numel(g, s, &a) ||
      kg_tensor_numel(g, t, &b))
    return kg_error(d, "internal: a view of another dtype");
  if (t->view_offset > 0 || a.scale != b.scale) {
    for (int x = 0; x < KGRT_EXPR_SYMS; x++)
      if (a.sym[x] >= 0 || b.sym[x] >= 0)
        return kg_error(d, "internal: a part of a value with run-time dims");
    const uint64_t sb = dtype_bytes(&s->dtype, a.scale),
                   tb = dtype_bytes(&t->dtype, b.scale);
    if (tb > sb || t->view_offset > sb - tb)
      return kg_error(d, "internal: a view past its source's end");
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
      return kg_error(d, "internal: a view over other syms");
  }
  g->tensors[t->alias].uses++;
  return 0;
}

/* Dead nodes: no model output, state, in-place update or live node needs
 * their results (a matmul a split rewrote into parts, say). Marked dead (no
 * kernel), their operand uses dropped, back to front so chains die too. */
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
  lua_getfield(L, graph, "syms");
  g->num_syms = (int)luaL_len(L, -1);
  g->syms = kg_xcalloc((size_t)g->num_syms, sizeof *g->syms);
  for (int i = 0; i < g->num_syms; i++) {
    lua_geti(L, -1, i + 1);
    g->syms[i].name = get_string(L, lua_gettop(L), "name");
    g->syms[i].max = get_int(L, lua_gettop(L), "max", 1);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);

  lua_getfield(L, graph, "tensors");
  g->num_tensors = (int)luaL_len(L, -1);
  g->tensors = kg_xcalloc((size_t)g->num_tensors, sizeof *g->tensors);
  for (int i = 0; i < g->num_tensors; i++) {
    lua_geti(L, -1, i + 1);
    KG_TRY(read_tensor(L, &g->tensors[i], d));
    lua_pop(L, 1);
    KG_TRY(check_view(g, i, d));
  }
  lua_pop(L, 1);

  lua_getfield(L, graph, "nodes");
  g->num_nodes = (int)luaL_len(L, -1);
  g->nodes = kg_xcalloc((size_t)g->num_nodes, sizeof *g->nodes);
  for (int i = 0; i < g->num_nodes; i++) {
    lua_geti(L, -1, i + 1);
    KG_TRY(read_node(L, g, &g->nodes[i], d));
    lua_pop(L, 1);
    kg_node_t *n = &g->nodes[i];
    for (int k = 0; k < n->num_outputs; k++)
      g->tensors[n->outputs[k]].producer = i;
    if (n->inplace >= 0) {
      g->tensors[n->output].alias = n->inputs[n->inplace];
      g->tensors[kg_tensor_storage(g, n->output)].written = 1;
    }
    for (int k = 0; k < n->num_inputs; k++)
      g->tensors[n->inputs[k]].uses++;
  }
  lua_pop(L, 1);

  g->num_inputs = read_id_list(L, graph, "inputs", &g->inputs);
  for (int i = 0; i < g->num_inputs; i++)
    g->tensors[g->inputs[i]].io_index = i;
  g->num_weights = read_id_list(L, graph, "weights", &g->weights);
  for (int i = 0; i < g->num_weights; i++)
    g->tensors[g->weights[i]].io_index = i;

  lua_getfield(L, graph, "outputs");
  g->num_outputs = (int)luaL_len(L, -1);
  g->outputs = kg_xcalloc((size_t)g->num_outputs, sizeof *g->outputs);
  for (int i = 0; i < g->num_outputs; i++) {
    lua_geti(L, -1, i + 1);
    int o = lua_gettop(L);
    g->outputs[i].name = get_string(L, o, "name");
    lua_getfield(L, o, "tensor");
    g->outputs[i].tensor = table_id(L, lua_gettop(L));
    lua_pop(L, 2);
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
      return kg_error_at(
          d, path, 0, "output %s: is an %s itself; outputs must be computed",
          g->outputs[i].name, t->kind == KG_TENSOR_INPUT ? "input" : "weight");
    t->output_index = i;
  }
  lua_pop(L, 1);
  mark_dead(g);
  if (g->num_outputs == 0)
    return kg_error_at(d, path, 0,
                       "the model declares no outputs (use output(name, tensor))");
  return 0;
}

/* The strings of the list at field key of the table at idx, after `first`
 * (if not NULL). */
static int read_names(lua_State *L, int idx, const char *key, const char *first,
                      char ***out) {
  lua_getfield(L, idx, key);
  int n = lua_istable(L, -1) ? (int)luaL_len(L, -1) : 0;
  if (n < 0 || n > 64)
    n = 0;
  *out = kg_xcalloc((size_t)n + 1, sizeof **out);
  int count = 0;
  if (first)
    (*out)[count++] = kg_xstrdup(first);
  for (int i = 0; i < n; i++) {
    lua_geti(L, -1, i + 1);
    if (lua_type(L, -1) == LUA_TSTRING)
      (*out)[count++] = kg_xstrdup(lua_tostring(L, -1));
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return count;
}

static int get_bool(lua_State *L, int idx, const char *key) {
  lua_getfield(L, idx, key);
  int v = lua_toboolean(L, -1);
  lua_pop(L, 1);
  return v;
}

/* The declaration of template `name` (kg.templates[name], at `decls`). */
static int read_template(lua_State *L, int decls, const char *name, kg_template_t *t,
                         kg_diag_t *d) {
  memset(t, 0, sizeof *t);
  t->name = kg_xstrdup(name);
  lua_getfield(L, decls, name);
  if (!lua_istable(L, -1)) {
    lua_pop(L, 1);
    return kg_error(d, "internal: template %s is not declared (kg.template)", name);
  }
  const int decl = lua_gettop(L);
  lua_getfield(L, decl, "holes");
  if (lua_istable(L, -1)) {
    int cap = 0;
    lua_pushnil(L);
    while (lua_next(L, -2)) {
      const int keyed = lua_type(L, -2) == LUA_TSTRING;
      if (lua_type(L, -1) == LUA_TSTRING && (keyed || lua_isinteger(L, -2))) {
        if (t->num_holes == cap) {
          cap = cap ? 2 * cap : 16;
          t->holes = kg_xrealloc(t->holes, (size_t)cap * sizeof *t->holes);
        }
        kg_hole_t *h = &t->holes[t->num_holes++];
        h->name = kg_xstrdup(lua_tostring(L, keyed ? -2 : -1));
        h->value = keyed ? kg_xstrdup(lua_tostring(L, -1)) : NULL;
      }
      lua_pop(L, 1);
    }
    if (t->num_holes)
      qsort(t->holes, (size_t)t->num_holes, sizeof *t->holes, cmp_hole);
    for (int i = 1; i < t->num_holes; i++)
      if (strcmp(t->holes[i - 1].name, t->holes[i].name) == 0) {
        lua_pop(L, 2);
        return kg_error(d, "internal: template %s declares hole %s twice", name,
                        t->holes[i].name);
      }
  }
  lua_pop(L, 1);
  t->num_libs = read_names(L, decl, "libs", NULL, &t->libs);
  t->num_sources = read_names(L, decl, "sources", name, &t->sources);
  lua_getfield(L, decl, "fuse");
  if (lua_istable(L, -1)) {
    const int f = lua_gettop(L);
    t->fuse = (get_bool(L, f, "chain") ? KG_FUSE_CHAIN : 0) |
              (get_bool(L, f, "epilogue") ? KG_FUSE_EPILOGUE : 0) |
              (get_bool(L, f, "pair") ? KG_FUSE_PAIR : 0) |
              (get_bool(L, f, "rms_prologue") ? KG_FUSE_NORM : 0) |
              (get_bool(L, f, "rms") ? KG_FUSE_RMS : 0);
  }
  lua_pop(L, 1);
  t->weights_before_wait = get_bool(L, decl, "weights_before_wait");
  lua_pop(L, 1);
  if ((t->fuse & KG_FUSE_PAIR) && !(t->fuse & KG_FUSE_EPILOGUE))
    return kg_error(d, "internal: template %s: a pair without an epilogue", name);
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

int kg_front_load(kg_sandbox_t *sb, const char *model_path, kg_graph_t *g, kg_diag_t *d) {
  lua_State *L = kg_sandbox_lua(sb);
  memset(g, 0, sizeof *g);
  g->model = kg_front_model_name(model_path);

  /* globals = kg.env() */
  KG_TRY(kg_sandbox_require(sb, "kgen", d));
  int kg = lua_gettop(L);
  lua_getfield(L, kg, "env");
  KG_TRY(kg_sandbox_pcall(sb, 0, 1, d));
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    lua_pushvalue(L, -2);
    lua_insert(L, -2);
    lua_setglobal(L, lua_tostring(L, -2));
    lua_pop(L, 1);
  }
  lua_pop(L, 1);

  KG_TRY(kg_sandbox_run_model(sb, d));

  lua_getfield(L, kg, "graph");
  int rc = read_graph(L, lua_gettop(L), g, model_path, d);
  if (rc == 0) {
    lua_getfield(L, kg, "templates");
    rc = read_templates(L, lua_gettop(L), g, d);
  }
  lua_settop(L, kg - 1);
  return rc;
}
