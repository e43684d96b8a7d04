/* ir_print.c - the text of --emit=graph (the graph the front end built: syms,
 * tensors, nodes with their variants) and --emit=kernels (the kernels fusion
 * made of it, as one target lowers them: the nodes each takes in and in
 * which role, its arguments, its grid and the holes its template expanded
 * with). Tensors are %N (their index), nodes #N; both texts are deterministic
 * and read nothing but the IR. */
#include "ir_print.h"

#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "fuse.h"

/* 4, T, 2 * T * B: a size expression over the graph's syms. */
static void put_expr(const kg_graph_t *g, const kgrt_expr_t *e, kg_buf_t *out) {
  int any = 0;
  if (e->scale != 1) {
    kg_buf_printf(out, "%" PRId64, e->scale);
    any = 1;
  }
  for (int i = 0; i < KGRT_EXPR_SYMS; i++)
    if (e->sym[i] >= 0) {
      const int s = e->sym[i];
      kg_buf_printf(out, "%s%s", any ? " * " : "",
                    s < g->num_syms ? g->syms[s].name : "?");
      any = 1;
    }
  if (!any)
    kg_buf_puts(out, "1");
}

/* ", when T in [0, 8]" or ", when T >= 9": a variant's or step's select. */
static void put_select(const kg_graph_t *g, const kgrt_expr_t *e, int64_t min,
                       int64_t max, kg_buf_t *out) {
  kg_buf_puts(out, "when ");
  put_expr(g, e, out);
  if (max == INT64_MAX)
    kg_buf_printf(out, " >= %" PRId64, min);
  else
    kg_buf_printf(out, " in [%" PRId64 ", %" PRId64 "]", min, max);
}

static void put_type(const kg_graph_t *g, const kg_tensor_t *t, kg_buf_t *out) {
  kg_buf_printf(out, "%s[", t->dtype.name);
  for (int i = 0; i < t->rank; i++) {
    if (i)
      kg_buf_puts(out, ", ");
    if (t->dims[i].sym >= 0 && t->dims[i].sym < g->num_syms)
      kg_buf_puts(out, g->syms[t->dims[i].sym].name);
    else
      kg_buf_printf(out, "%" PRId64, t->dims[i].value);
  }
  kg_buf_putc(out, ']');
}

static void put_text(const char *s, kg_buf_t *out) {
  kg_buf_putc(out, '"');
  for (; *s; s++)
    if (*s == '"' || *s == '\\')
      kg_buf_printf(out, "\\%c", *s);
    else if (*s == '\n')
      kg_buf_puts(out, "\\n");
    else
      kg_buf_putc(out, *s);
  kg_buf_putc(out, '"');
}

/* A tensor's facts after its type: where its memory is, state, split,
 * which output it is. */
static void put_facts(const kg_graph_t *g, const kg_tensor_t *t, kg_buf_t *out) {
  if (t->view)
    kg_buf_printf(out, " (view of %%%d at +%" PRIu64 ")", t->alias, t->view_offset);
  else if (t->alias >= 0)
    kg_buf_printf(out, " (updates %%%d)", t->alias);
  if (t->persistent)
    kg_buf_puts(out, " (state)");
  if (t->parts > 1)
    kg_buf_printf(out, " (part of %d along dim %d)", t->parts, t->split);
  if (t->output_index >= 0)
    kg_buf_printf(out, " (output %s)", g->outputs[t->output_index].name);
}

static void put_tensor(const kg_graph_t *g, int i, kg_buf_t *out) {
  const kg_tensor_t *t = &g->tensors[i];
  static const char *const kinds[] = {"input", "weight", "value"};
  kg_buf_printf(out, "%%%d = %s", i, kinds[t->kind]);
  if (t->name)
    kg_buf_printf(out, " %s", t->name);
  kg_buf_puts(out, ": ");
  put_type(g, t, out);
  put_facts(g, t, out);
  kg_buf_putc(out, '\n');
}

static void put_variant(const kg_graph_t *g, const kg_variant_t *v, kg_buf_t *out) {
  const int labelled = v->label && strcmp(v->label, v->tmpl) != 0;
  kg_buf_printf(out, "    variant %s%s%s%s: ", v->tmpl, labelled ? " (" : "",
                labelled ? v->label : "", labelled ? ")" : "");
  if (v->grid == KG_GRID_MAP)
    kg_buf_puts(out, "elements");
  else if (v->grid == KG_GRID_ROWS)
    kg_buf_printf(out, "rows of %" PRId64 " of %%%d", v->cols, v->grid_of);
  else {
    kg_buf_puts(out, "tiles of ");
    put_expr(g, &v->tile_units, out);
    kg_buf_puts(out, v->tiles_columns ? " columns" : " rows");
  }
  if (v->select.scale != 0) {
    kg_buf_puts(out, ", ");
    put_select(g, &v->select, v->select_min, v->select_max, out);
  }
  for (int i = 0; i < v->num_dim_args; i++) {
    kg_buf_puts(out, i ? ", " : ", args ");
    put_expr(g, &v->dim_args[i], out);
  }
  kg_buf_putc(out, '\n');
  for (int i = 0; i < v->num_holes; i++) {
    kg_buf_printf(out, "      %s = ", v->holes[i].name);
    put_text(v->holes[i].value, out);
    kg_buf_putc(out, '\n');
  }
}

void kg_print_graph(const kg_graph_t *g, kg_buf_t *out) {
  kg_buf_printf(out, "graph %s: %d tensors, %d nodes, ranks %d\n", g->model,
                g->num_tensors, g->num_nodes, g->ranks);
  for (int i = 0; i < g->num_syms; i++) {
    const kg_sym_t *s = &g->syms[i];
    kg_buf_printf(out, "sym %s: max %" PRId64 "%s%s\n", s->name, s->max,
                  s->rank ? ", rank" : "", s->count ? ", count" : "");
  }
  for (int i = 0; i < g->num_tensors; i++)
    if (g->tensors[i].kind != KG_TENSOR_VALUE)
      put_tensor(g, i, out);
  for (int n = 0; n < g->num_nodes; n++) {
    const kg_node_t *node = &g->nodes[n];
    kg_buf_printf(out, "#%d", n);
    for (int i = 0; i < node->num_outputs; i++) {
      const kg_tensor_t *t = &g->tensors[node->outputs[i]];
      kg_buf_printf(out, "%s%%%d: ", i ? ", " : " ", node->outputs[i]);
      put_type(g, t, out);
      put_facts(g, t, out);
    }
    kg_buf_printf(out, " = %s(", node->op);
    for (int i = 0; i < node->num_inputs; i++)
      kg_buf_printf(out, "%s%%%d", i ? ", " : "", node->inputs[i]);
    kg_buf_putc(out, ')');
    if (node->file)
      kg_buf_printf(out, "  ; %s:%d", node->file, node->line);
    kg_buf_putc(out, '\n');
    if (node->dead)
      kg_buf_puts(out, "    dead: nothing reads its results\n");
    if (node->collective != KGRT_COLLECTIVE_NONE)
      kg_buf_puts(out, "    a collective step, no kernel\n");
    if (node->rank >= 0)
      kg_buf_printf(out, "    rank %d\n", node->rank);
    if (node->inplace >= 0)
      kg_buf_printf(out, "    updates operand %d in place\n", node->inplace);
    if (node->expr) {
      kg_buf_puts(out, "    expr ");
      put_text(node->expr, out);
      kg_buf_putc(out, '\n');
    }
    for (int v = 0; v < node->num_variants; v++)
      put_variant(g, &node->variants[v], out);
  }
}

/* The nodes kernel k computes, each with its role. */
static void put_roles(const kg_graph_t *g, const kg_kernel_t *k, kg_buf_t *out) {
  const kg_node_t *n = &g->nodes[k->node];
  kg_buf_printf(out, "  anchor #%d %s", k->node, n->op);
  if (n->num_variants > 1)
    kg_buf_printf(out, " (variant %d)", k->variant);
  kg_buf_putc(out, '\n');
  int chain[64], mm[2], num_mm;
  const int num_chain = kg_fuse_chain_nodes(g, k, chain, 64, mm, &num_mm);
  for (int i = 0; i < num_mm; i++)
    if (mm[i] != k->node)
      kg_buf_printf(out, "  pair #%d %s\n", mm[i], g->nodes[mm[i]].op);
  if (num_chain > 0) {
    kg_buf_puts(out, k->epilogue_root >= 0 ? "  epilogue" : "  chain");
    for (int i = 0; i < num_chain && i < 64; i++)
      kg_buf_printf(out, "%s #%d %s", i ? "," : "", chain[i], g->nodes[chain[i]].op);
    kg_buf_puts(out, num_chain > 64 ? ", ...\n" : "\n");
  }
  if (k->norm >= 0)
    kg_buf_printf(out, "  prologue #%d %s\n", k->norm, g->nodes[k->norm].op);
  if (k->norm_out >= 0)
    kg_buf_printf(out, "  norm_out #%d %s\n", k->norm_out, g->nodes[k->norm_out].op);
  if (k->row_scale >= 0)
    kg_buf_printf(out, "  row_scale #%d %s\n", k->row_scale, g->nodes[k->row_scale].op);
  /* region r: the node whose weight is k's weight r (ins[1 + r]), its
   * result rotated and stored as the kernel takes them */
  for (int r = 0; r < k->num_regions; r++) {
    int m = -1;
    for (int c = 0; c < g->num_nodes && m < 0; c++)
      if (!g->nodes[c].dead && g->nodes[c].num_inputs >= 2 &&
          g->nodes[c].inputs[1] == k->ins[1 + r])
        m = c;
    kg_buf_printf(out, "  region %d", r);
    if (m >= 0)
      kg_buf_printf(out, " #%d %s", m, g->nodes[m].op);
    if (k->rope[r] >= 0)
      kg_buf_printf(out, ", rotary #%d %s", k->rope[r], g->nodes[k->rope[r]].op);
    if (k->cache[r] >= 0)
      kg_buf_printf(out, ", cache #%d %s", k->cache[r], g->nodes[k->cache[r]].op);
    kg_buf_putc(out, '\n');
  }
  if (k->expr) {
    kg_buf_puts(out, "  expr ");
    put_text(k->expr, out);
    kg_buf_putc(out, '\n');
  }
  if (k->has_select) {
    kg_buf_puts(out, "  runs ");
    put_select(g, &k->select, k->select_min, k->select_max, out);
    kg_buf_putc(out, '\n');
  }
}

static void put_args(const kg_graph_t *g, const kg_lowered_t *lw, kg_buf_t *out) {
  for (int i = 0; i < lw->num_args; i++) {
    const kg_larg_t *a = &lw->args[i];
    kg_buf_printf(out, "  arg %d%s%s: ", i, a->name[0] ? " " : "", a->name);
    if (a->kind == KGRT_ARG_BUFFER) {
      const kg_tensor_t *v = &g->tensors[a->view];
      kg_buf_printf(out, "%s %%%d ", a->is_const ? "read" : "write", a->view);
      if (v->name)
        kg_buf_printf(out, "%s ", v->name);
      put_type(g, v, out);
      if (a->tensor != a->view)
        kg_buf_printf(out, " in %%%d at +%" PRIu64, a->tensor, a->offset);
      const kg_tensor_t *s = &g->tensors[a->tensor];
      if (s->kind == KG_TENSOR_VALUE && s->in_arena)
        kg_buf_printf(out, ", arena +%" PRIu64, s->arena_offset);
      if (a->moved.scale != 0) {
        kg_buf_puts(out, ", moves ");
        put_expr(g, &a->moved, out);
        kg_buf_puts(out, " bytes");
      }
    } else {
      kg_buf_puts(out, "i64 ");
      put_expr(g, &a->value, out);
    }
    kg_buf_putc(out, '\n');
  }
}

/* The holes' text, with the kernel's name for the placeholder lowering
 * gives KERNEL until kernels are named by content. */
static void put_holes(const kg_buf_t *holes, const char *name, kg_buf_t *out) {
  static const char mark[] = "@KERNEL@";
  const char *s = holes->data ? holes->data : "";
  for (const char *m; (m = strstr(s, mark)) != NULL; s = m + sizeof mark - 1) {
    kg_buf_put(out, s, (size_t)(m - s));
    kg_buf_puts(out, name);
  }
  kg_buf_puts(out, s);
}

void kg_print_kernels(const kg_graph_t *g, const kg_program_t *p, const kg_target_t *t,
                      const kg_lowered_t *lowered, const kg_buf_t *holes, kg_buf_t *out) {
  kg_buf_printf(out, "kernels %s for %s (wave %d): %d step%s, arena %" PRIu64 " bytes\n",
                g->model, t->name, t->wave, p->num_kernels,
                p->num_kernels == 1 ? "" : "s", p->arena_bytes);
  for (int i = 0; i < p->num_kernels; i++) {
    const kg_kernel_t *k = &p->kernels[i];
    const kg_lowered_t *lw = &lowered[i];
    kg_buf_printf(out, "\nstep %d: ", i);
    if (k->collective != KGRT_COLLECTIVE_NONE) {
      kg_buf_printf(out, "collective #%d %s\n", k->node, g->nodes[k->node].op);
      put_args(g, lw, out);
      continue;
    }
    kg_buf_printf(out, "kernel %s, template %s", lw->name, k->tmpl);
    if (lw->code != i)
      kg_buf_printf(out, ", the code of step %d", lw->code);
    kg_buf_putc(out, '\n');
    if (k->rank >= 0)
      kg_buf_printf(out, "  rank %d\n", k->rank);
    put_roles(g, k, out);
    put_args(g, lw, out);
    kg_buf_printf(out, "  grid: ceil(");
    put_expr(g, &lw->units, out);
    kg_buf_printf(out, " / %u) x %u workgroups of %d", lw->per_block, lw->repeat,
                  lw->block);
    if (lw->dyn_shared)
      kg_buf_printf(out, ", %u bytes of dynamic shared memory", lw->dyn_shared);
    if (lw->select.scale != 0) {
      kg_buf_puts(out, ", ");
      put_select(g, &lw->select, lw->select_min, lw->select_max, out);
    }
    if (lw->flags & KGRT_KERNEL_EARLY_LAUNCH)
      kg_buf_puts(out, ", early launch");
    if (lw->flags & ~KGRT_KERNEL_EARLY_LAUNCH)
      kg_buf_printf(out, ", flags 0x%x", lw->flags & ~KGRT_KERNEL_EARLY_LAUNCH);
    kg_buf_putc(out, '\n');
    kg_buf_puts(out, "  holes:\n");
    put_holes(&holes[i], lw->name, out);
  }
}
