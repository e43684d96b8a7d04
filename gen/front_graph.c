/* front_graph.c - reads kg.graph (syms, tensors, nodes, inputs, weights,
 * outputs) and checks it whole: views, split weights, ranks, one name per
 * tensor, outputs that are values a kernel computes; marks dead nodes and
 * each value's reader.
 * Needs: front_raw.c, front_node.c (front_internal.h).
 * Gives: kg_front_read_graph. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <lua.h>

#include "buf.h"
#include "front_internal.h"

/* Pushes the list graph[key]; its length, or an error past `max`. */
static int graph_list(lua_State *L, int graph, const char *key, int max, int *n,
                      const char *path, kg_diag_t *d) {
  kg_front_field(L, graph, key);
  lua_Integer len = kg_front_len(L, -1);
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
    (*out)[i] = kg_front_tensor(L, lua_gettop(L), g);
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

/* Dead nodes: no model output, state, in-place update or live node needs
 * their results (a matmul a split rewrote into parts, say). Marked dead (no
 * kernel), their operand uses dropped, back to front so chains die too. A
 * persistent result after the first (the counts a kernel keeps for itself)
 * keeps no node. */
static void mark_dead(kg_graph_t *g) {
  for (int n = g->num_nodes - 1; n >= 0; n--) {
    kg_node_t *node = &g->nodes[n];
    int needed = node->inplace >= 0;
    for (int k = 0; k < node->num_outputs && !needed; k++) {
      const kg_tensor_t *t = &g->tensors[node->outputs[k]];
      needed = t->uses > 0 || t->output_index >= 0 || (t->persistent && k == 0);
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

int kg_front_read_graph(lua_State *L, int graph, kg_graph_t *g, const char *path,
                        kg_diag_t *d) {
  int n = 0;
  if (lua_type(L, graph) != LUA_TTABLE)
    return kg_error(d, "internal error: kgen's graph is not a table");
  const int64_t ranks = kg_front_int(L, graph, "ranks", 1);
  if (ranks < 1 || ranks > KG_FRONT_MAX_RANKS)
    return kg_error(d, "internal error: the model's ranks are %lld", (long long)ranks);
  g->ranks = (int)ranks;
  KG_TRY(graph_list(L, graph, "syms", KG_FRONT_MAX_SYMS, &n, path, d));
  g->syms = kg_xcalloc((size_t)n + 1, sizeof *g->syms);
  for (int i = 0; i < n; i++) {
    lua_rawgeti(L, -1, i + 1);
    g->num_syms = i + 1;
    KG_TRY(kg_front_ident(L, lua_gettop(L), "name", "a sym", &g->syms[i].name, d));
    g->syms[i].max = kg_front_int(L, lua_gettop(L), "max", 0); /* sizes.c checks it */
    g->syms[i].rank = kg_front_bool(L, lua_gettop(L), "rank");
    g->syms[i].count = kg_front_bool(L, lua_gettop(L), "count");
    if (!g->syms[i].name || kg_front_int(L, lua_gettop(L), "ordinal", -1) != i)
      return kg_error(d, "internal error: sym %d is not sym %d", i, i);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);

  KG_TRY(graph_list(L, graph, "tensors", KG_FRONT_MAX_TENSORS, &n, path, d));
  g->tensors = kg_xcalloc((size_t)n + 1, sizeof *g->tensors);
  g->num_tensors = n;
  for (int i = 0; i < n; i++) {
    lua_rawgeti(L, -1, i + 1);
    KG_TRY(kg_front_read_tensor(L, g, i, &g->tensors[i], d));
    lua_pop(L, 1);
    KG_TRY(check_view(g, i, d));
  }
  lua_pop(L, 1);

  KG_TRY(graph_list(L, graph, "nodes", KG_FRONT_MAX_NODES, &n, path, d));
  g->nodes = kg_xcalloc((size_t)n + 1, sizeof *g->nodes);
  for (int i = 0; i < n; i++) {
    lua_rawgeti(L, -1, i + 1);
    g->num_nodes = i + 1;
    KG_TRY(kg_front_read_node(L, g, &g->nodes[i], d));
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
    KG_TRY(kg_front_ident(L, o, "name", "an output", &g->outputs[i].name, d));
    kg_front_field(L, o, "tensor");
    g->outputs[i].tensor = kg_front_tensor(L, lua_gettop(L), g);
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
