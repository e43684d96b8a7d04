/* fuse_chain.c - elementwise chains and matmul epilogues: which map nodes
 * are spliced into their consumer's expression (cut where a chain would
 * nest too deep or read too many tensors), which matmuls a chain takes as
 * producers (acc0, acc1 of a pair), the spliced expression, the kernel's
 * name, and an epilogue's kernels.
 * Needs: fuse_norm.c (a norm taken in or written by the matmul).
 * Gives: kg_fuse_is_map, kg_fuse_is_matmul, kg_fuse_is_inlined,
 * kg_fuse_chain_matmuls, kg_fuse_epilogue_of, kg_fuse_cut_chains,
 * kg_fuse_splice, kg_fuse_collect_ops, kg_fuse_epilogue. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "fuse.h"
#include "fuse_internal.h"

/* An elementwise node: its template takes a chain expression. */
int kg_fuse_is_map(const kg_graph_t *g, int node) {
  return node >= 0 && (kg_fuse_roles(g, node, 0) & KG_FUSE_CHAIN);
}

/* The single consumer of tensor t, or -1 (dead nodes are no consumers). */
static int sole_consumer(const kg_graph_t *g, int t) {
  return g->tensors[t].uses == 1 ? g->tensors[t].reader : -1;
}

/* A node that can take an epilogue: every variant's template accepts one,
 * reads x and w at operands 0 and 1 and writes one result the model sees
 * (and, maybe, hidden ones: no op reads them, no output is one). */
int kg_fuse_is_matmul(const kg_graph_t *g, int node) {
  if (node < 0 || g->nodes[node].num_inputs != 2 || g->nodes[node].num_variants < 1)
    return 0;
  for (int i = 1; i < g->nodes[node].num_outputs; i++) {
    const kg_tensor_t *t = &g->tensors[g->nodes[node].outputs[i]];
    if (t->uses > 0 || t->output_index >= 0)
      return 0;
  }
  for (int v = 0; v < g->nodes[node].num_variants; v++)
    if (!(kg_fuse_roles(g, node, v) & KG_FUSE_EPILOGUE))
      return 0;
  return 1;
}

/* Do variants p and q read the same facts besides their holes (fuse_key)? */
int kg_fuse_same_key(const kg_variant_t *p, const kg_variant_t *q) {
  return (!p->fuse_key && !q->fuse_key) ||
         (p->fuse_key && q->fuse_key && strcmp(p->fuse_key, q->fuse_key) == 0);
}

/* Same operands and template facts but w: two matmuls one kernel can do,
 * where every variant's template takes a pair. */
static int same_matmul(const kg_graph_t *g, int a, int b) {
  const kg_node_t *x = &g->nodes[a], *y = &g->nodes[b];
  const kg_tensor_t *wa = &g->tensors[x->inputs[1]], *wb = &g->tensors[y->inputs[1]];
  if (x->inputs[0] != y->inputs[0] || x->num_variants != y->num_variants ||
      wa->rank != wb->rank || wa->dtype.code != wb->dtype.code)
    return 0;
  for (int i = 0; i < wa->rank; i++)
    if (wa->dims[i].sym >= 0 || wb->dims[i].sym >= 0 ||
        wa->dims[i].value != wb->dims[i].value)
      return 0;
  for (int v = 0; v < x->num_variants; v++) {
    const kg_variant_t *p = &x->variants[v], *q = &y->variants[v];
    if (strcmp(p->tmpl, q->tmpl) != 0 || p->num_holes != q->num_holes ||
        !kg_fuse_same_key(p, q) || !(kg_fuse_roles(g, a, v) & KG_FUSE_PAIR))
      return 0;
    for (int h = 0; h < p->num_holes; h++)
      if (strcmp(p->holes[h].name, q->holes[h].name) != 0 ||
          strcmp(p->holes[h].value, q->holes[h].value) != 0)
        return 0;
  }
  return 1;
}

/* Collects into mm[] (at most 2) the matmuls the map chain rooted at n can
 * take as producers: each result used once, by this chain, not a model
 * output, as large as the chain's result. */
void kg_fuse_chain_matmuls(const kg_graph_t *g, int n, int root, int mm[2], int *count) {
  const kg_node_t *node = &g->nodes[n];
  for (int i = 0; i < node->num_inputs; i++) {
    const int t = node->inputs[i], prod = g->tensors[t].producer;
    if (prod >= 0 && kg_fuse_is_map(g, prod) && kg_fuse_is_inlined(g, prod)) {
      kg_fuse_chain_matmuls(g, prod, root, mm, count);
      continue;
    }
    kgrt_expr_t a, b;
    if (!kg_fuse_is_matmul(g, prod) || g->tensors[t].uses != 1 ||
        g->tensors[t].output_index >= 0 || kg_tensor_numel(g, &g->tensors[t], &a) ||
        kg_tensor_numel(g, &g->tensors[g->nodes[root].output], &b) ||
        a.scale != b.scale || memcmp(a.sym, b.sym, sizeof a.sym) != 0)
      continue;
    if (*count == 0 || (*count == 1 && mm[0] != prod && same_matmul(g, mm[0], prod)))
      mm[(*count)++] = prod;
  }
}

/* The map root whose epilogue matmul node m becomes, or -1. */
int kg_fuse_epilogue_of(const kg_graph_t *g, int m) {
  if (!kg_fuse_is_matmul(g, m))
    return -1;
  for (int n = m + 1; n < g->num_nodes; n++) {
    if (g->nodes[n].dead || !kg_fuse_is_map(g, n) || kg_fuse_is_inlined(g, n))
      continue;
    int mm[2], count = 0;
    kg_fuse_chain_matmuls(g, n, n, mm, &count);
    for (int i = 0; i < count; i++)
      if (mm[i] == m)
        return n;
  }
  return -1;
}

/* Does map node n's value get spliced into its consumer? */
int kg_fuse_is_inlined(const kg_graph_t *g, int n) {
  const kg_tensor_t *t = &g->tensors[g->nodes[n].output];
  if (t->output_index >= 0 || g->nodes[n].own_kernel)
    return 0;
  return kg_fuse_is_map(g, n) && kg_fuse_is_map(g, sole_consumer(g, g->nodes[n].output));
}

/* A chain's size: the ops nested deepest in its expression and the
 * distinct tensors it reads. */
typedef struct {
  int depth, num;
  int tensors[KG_MAX_INPUTS];
} chain_size_t;

static int chain_has(const chain_size_t *c, int t) {
  for (int i = 0; i < c->num; i++)
    if (c->tensors[i] == t)
      return 1;
  return 0;
}

/* Marks own_kernel on the map producers that would take a chain past
 * KG_CHAIN_DEPTH or KG_CHAIN_TENSORS: in node order (producers first), each
 * map node takes in its inlinable producers in operand order while the
 * chain stays inside both, and keeps the rest as kernels of their own. */
void kg_fuse_cut_chains(kg_graph_t *g) {
  chain_size_t *size = kg_xcalloc((size_t)g->num_nodes + 1, sizeof *size);
  for (int n = 0; n < g->num_nodes; n++) {
    const kg_node_t *node = &g->nodes[n];
    if (node->dead || !kg_fuse_is_map(g, n))
      continue;
    chain_size_t c = {.depth = 1};
    for (int i = 0; i < node->num_inputs; i++)
      if (!chain_has(&c, node->inputs[i]))
        c.tensors[c.num++] = node->inputs[i];
    for (int i = 0; i < node->num_inputs; i++) {
      const int t = node->inputs[i], prod = g->tensors[t].producer;
      if (prod < 0 || !kg_fuse_is_inlined(g, prod)) /* its sole consumer: n */
        continue;
      chain_size_t next = c;
      next.num = 0; /* c less t, with prod's tensors */
      for (int k = 0; k < c.num; k++)
        if (c.tensors[k] != t)
          next.tensors[next.num++] = c.tensors[k];
      const chain_size_t *in = &size[prod];
      int fits = 1 + in->depth <= KG_CHAIN_DEPTH;
      for (int k = 0; k < in->num && fits; k++)
        if (!chain_has(&next, in->tensors[k])) {
          fits = next.num < KG_CHAIN_TENSORS;
          if (fits)
            next.tensors[next.num++] = in->tensors[k];
        }
      if (!fits) {
        g->nodes[prod].own_kernel = 1;
        continue;
      }
      next.depth = c.depth > 1 + in->depth ? c.depth : 1 + in->depth;
      c = next;
    }
    size[n] = c;
  }
  free(size);
}

/* Appends node n's expression with operands replaced: an inlined producer by
 * its own expression, a matmul taken as the kernel's producer by acc<i> (i
 * its index in mm), any other operand by a<k> (k its index in k->ins). */
int kg_fuse_splice(const kg_graph_t *g, int n, kg_kernel_t *k, const int *mm, int num_mm,
                   kg_buf_t *out, kg_diag_t *d) {
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
    if (prod >= 0 && kg_fuse_is_map(g, prod) && kg_fuse_is_inlined(g, prod)) {
      KG_TRY(kg_fuse_splice(g, prod, k, mm, num_mm, out, d));
      continue;
    }
    int acc = -1;
    for (int i = 0; i < num_mm; i++)
      if (mm[i] == prod)
        acc = i;
    if (acc >= 0) {
      kg_buf_printf(out, "acc%d", acc);
      continue;
    }
    /* an epilogue's operands follow x, the weights and a norm's operands
     * (the template reads only those at the result's index) */
    const int first = k->epilogue_root < 0 ? 0 : kg_kernel_epi_first(g, k);
    int slot = -1;
    for (int i = first; i < k->num_ins; i++)
      if (k->ins[i] == t)
        slot = i;
    if (slot < 0) {
      if (k->num_ins == KG_MAX_INPUTS)
        return kg_node_error(d, g, k->node, "fused kernel %s reads more than %d tensors",
                             k->name, KG_MAX_INPUTS);
      slot = k->num_ins;
      k->ins[k->num_ins++] = t;
    }
    kg_buf_printf(out, "a%d", slot);
  }
  return 0;
}

/* Kernel k's hidden results, of node n's variant v: all of them
 * (KG_HIDDEN_ALL), none, or (KG_HIDDEN_PLAIN) where k is n alone, with an
 * epilogue chain, or leading a region group (one matmul, no norm taken in
 * or written; set k->scratch): the parts of a split K, which the params
 * rule sizes for n's columns. Call once k's matmuls and norms are known. */
void kg_fuse_take_hidden(const kg_graph_t *g, int n, int v, kg_kernel_t *k) {
  const kg_node_t *node = &g->nodes[n];
  const kg_hidden_t h = node->variants[v].hidden;
  if (h == KG_HIDDEN_NONE || node->num_outputs < 2)
    return;
  if (h == KG_HIDDEN_PLAIN) {
    if (k->num_mm > 1 || k->norm >= 0 || k->norm_out >= 0 || k->row_scale >= 0)
      return;
    k->scratch = 1;
  }
  for (int i = 1; i < node->num_outputs; i++)
    k->outs[k->num_outs++] = node->outputs[i];
}

/* Kernel name: <model>_<op>[_<op>...] of the nodes it covers (lower.c
 * appends its content's hash); a norm taken in leads (norm: that node). */
void kg_fuse_collect_ops(const kg_graph_t *g, int n, int norm, kg_buf_t *names,
                         int *count) {
  const kg_node_t *node = &g->nodes[n];
  if (norm >= 0) {
    kg_buf_printf(names, "_%s", g->nodes[norm].op);
    (*count)++;
  }
  for (int i = 0; i < node->num_inputs; i++) {
    int prod = g->tensors[node->inputs[i]].producer;
    if (prod >= 0 && ((kg_fuse_is_map(g, prod) && kg_fuse_is_inlined(g, prod)) ||
                      kg_fuse_epilogue_of(g, prod) >= 0))
      kg_fuse_collect_ops(g, prod, -1, names, count);
  }
  if (*count < 3)
    kg_buf_printf(names, "_%s", node->op);
  (*count)++;
}

static void chain_nodes(const kg_graph_t *g, int n, int *nodes, int max, int *count) {
  const kg_node_t *node = &g->nodes[n];
  for (int i = 0; i < node->num_inputs; i++) {
    const int prod = g->tensors[node->inputs[i]].producer;
    if (prod >= 0 && kg_fuse_is_map(g, prod) && kg_fuse_is_inlined(g, prod))
      chain_nodes(g, prod, nodes, max, count);
  }
  for (int i = 0; i < *count && i < max; i++)
    if (nodes[i] == n)
      return;
  if (*count < max)
    nodes[*count] = n;
  (*count)++;
}

static int cmp_int(const void *a, const void *b) {
  const int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

int kg_fuse_chain_nodes(const kg_graph_t *g, const kg_kernel_t *k, int *nodes, int max,
                        int mm[2], int *num_mm) {
  const int root = k->epilogue_root >= 0                   ? k->epilogue_root
                   : k->expr && kg_fuse_is_map(g, k->node) ? k->node
                                                           : -1;
  int count = 0;
  *num_mm = 0;
  if (root >= 0)
    chain_nodes(g, root, nodes, max, &count);
  if (k->epilogue_root >= 0)
    kg_fuse_chain_matmuls(g, k->epilogue_root, k->epilogue_root, mm, num_mm);
  qsort(nodes, (size_t)(count < max ? count : max), sizeof *nodes, cmp_int);
  return count;
}

/* The kernels of map root n whose chain takes the matmuls mm[] as its
 * producers: one per variant of mm[0], the matmul template with operands x,
 * w (and the second w), then the chain's other operands; the chain is the
 * epilogue expression. */
int kg_fuse_epilogue(const kg_graph_t *g, const norms_t *nm, int n, const int *mm,
                     int num_mm, kg_program_t *p, kg_diag_t *d) {
  const kg_node_t *root = &g->nodes[n], *m = &g->nodes[mm[0]];
  for (int v = 0; v < m->num_variants; v++) {
    kg_kernel_t *k = &p->kernels[p->num_kernels];
    k->node = mm[0];
    k->variant = v;
    k->epilogue_root = n;
    k->num_mm = num_mm;
    k->output = root->output;
    k->outs[k->num_outs++] = root->output;
    k->tmpl = m->variants[v].tmpl;
    k->ins[k->num_ins++] = m->inputs[0];
    for (int i = 0; i < num_mm; i++)
      k->ins[k->num_ins++] = g->nodes[mm[i]].inputs[1];
    kg_fuse_write_norm(g, nm, mm[0], v, k);
    kg_fuse_take_norm(g, nm, mm[0], v, k);
    kg_fuse_take_hidden(g, mm[0], v, k);
    kg_buf_t names, e;
    kg_buf_init(&names);
    int count = 0;
    kg_fuse_collect_ops(g, n, k->norm, &names, &count);
    kg_buf_printf(&names, "_%s", k->tmpl);
    snprintf(k->name, sizeof k->name, "%s%s", g->model, kg_buf_cstr(&names));
    kg_buf_free(&names);
    kg_buf_init(&e);
    int rc = kg_fuse_splice(g, n, k, mm, num_mm, &e, d);
    k->expr = kg_buf_take(&e, NULL);
    if (rc)
      return -1;
    p->num_kernels++;
  }
  return 0;
}
