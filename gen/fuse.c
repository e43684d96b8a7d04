/* fuse.c - from graph nodes to kernels.
 * Requires: a graph whose nodes are in topological (call) order.
 * Gives: kg_program_t.kernels in execution order. A map node whose result is
 * used once, by another map node, and is not a model output is spliced into
 * that consumer's expression; so a chain like silu(a) * b becomes one kernel.
 * Other nodes become one kernel each. */
#include "fuse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

static int is_map(const kg_graph_t *g, int node) {
  return node >= 0 && strcmp(g->nodes[node].variants[0].tmpl, "map") == 0;
}

/* The single consumer of tensor t, or -1. */
static int sole_consumer(const kg_graph_t *g, int t) {
  if (g->tensors[t].uses != 1)
    return -1;
  for (int i = 0; i < g->num_nodes; i++)
    for (int k = 0; k < g->nodes[i].num_inputs; k++)
      if (g->nodes[i].inputs[k] == t)
        return i;
  return -1;
}

/* Does map node n's value get spliced into its consumer? */
static int is_inlined(const kg_graph_t *g, int n) {
  const kg_tensor_t *t = &g->tensors[g->nodes[n].output];
  if (t->output_index >= 0)
    return 0;
  return is_map(g, n) && is_map(g, sole_consumer(g, g->nodes[n].output));
}

/* Appends node n's expression with operands replaced: an inlined producer by
 * its own expression, any other operand by a<k> (k its index in k->ins). */
static int splice(const kg_graph_t *g, int n, kg_kernel_t *k, kg_buf_t *out,
                  kg_diag_t *d) {
  const kg_node_t *node = &g->nodes[n];
  for (const char *p = node->expr; *p; p++) {
    if (*p != '$' || p[1] < '0' || p[1] > '9') {
      kg_buf_putc(out, *p);
      continue;
    }
    int idx = (int)strtol(p + 1, (char **)&p, 10);
    p--;
    if (idx >= node->num_inputs)
      return kg_error(d, "internal: %s expression names operand $%d", node->op, idx);
    int t = node->inputs[idx];
    int prod = g->tensors[t].producer;
    if (prod >= 0 && is_inlined(g, prod)) {
      KG_TRY(splice(g, prod, k, out, d));
      continue;
    }
    int slot = -1;
    for (int i = 0; i < k->num_ins; i++)
      if (k->ins[i] == t)
        slot = i;
    if (slot < 0) {
      if (k->num_ins == KG_MAX_INPUTS)
        return kg_error(d, "fused kernel %s reads more than %d tensors", k->name,
                        KG_MAX_INPUTS);
      slot = k->num_ins;
      k->ins[k->num_ins++] = t;
    }
    kg_buf_printf(out, "a%d", slot);
  }
  return 0;
}

/* Kernel name: <model>_<index>_<op>[_<op>...] of the nodes it covers. */
static void collect_ops(const kg_graph_t *g, int n, kg_buf_t *names, int *count) {
  const kg_node_t *node = &g->nodes[n];
  for (int i = 0; i < node->num_inputs; i++) {
    int prod = g->tensors[node->inputs[i]].producer;
    if (prod >= 0 && is_inlined(g, prod))
      collect_ops(g, prod, names, count);
  }
  if (*count < 3)
    kg_buf_printf(names, "_%s", node->op);
  (*count)++;
}

int kg_fuse(const kg_graph_t *g, kg_program_t *p, kg_diag_t *d) {
  memset(p, 0, sizeof *p);
  int cap = 1;
  for (int n = 0; n < g->num_nodes; n++)
    cap += g->nodes[n].num_variants;
  p->kernels = kg_xcalloc((size_t)cap, sizeof *p->kernels);
  for (int n = 0; n < g->num_nodes; n++) {
    if (is_map(g, n) && is_inlined(g, n))
      continue;
    const kg_node_t *node = &g->nodes[n];
    for (int v = 0; v < node->num_variants; v++) {
      kg_kernel_t *k = &p->kernels[p->num_kernels];
      k->node = n;
      k->variant = v;
      k->output = node->output;
      if (node->inplace < 0)
        for (int i = 0; i < node->num_outputs; i++)
          k->outs[k->num_outs++] = node->outputs[i];
      k->tmpl = node->variants[v].tmpl;
      kg_buf_t names;
      kg_buf_init(&names);
      int count = 0;
      collect_ops(g, n, &names, &count);
      if (node->num_variants > 1) /* matmul_gemv, matmul_gemm */
        kg_buf_printf(&names, "_%s", k->tmpl);
      snprintf(k->name, sizeof k->name, "%s_%d%s", g->model, p->num_kernels,
               kg_buf_cstr(&names));
      kg_buf_free(&names);
      if (is_map(g, n)) {
        kg_buf_t e;
        kg_buf_init(&e);
        int rc = splice(g, n, k, &e, d);
        k->expr = kg_buf_take(&e, NULL);
        if (rc)
          return -1;
      } else {
        for (int i = 0; i < node->num_inputs; i++)
          k->ins[k->num_ins++] = node->inputs[i];
      }
      p->num_kernels++;
    }
  }
  return 0;
}
