/* fuse.c - from graph nodes to kernels.
 * Requires: a graph whose nodes are in topological (call) order.
 * Gives: kg_program_t.kernels in execution order. A map node whose result is
 * used once, by another map node, and is not a model output is spliced into
 * that consumer's expression; so a chain like silu(a) * b becomes one kernel.
 * A matmul whose result is used once, by such a chain of the same size,
 * becomes the chain's producer instead: the chain is the matmul kernel's
 * epilogue (acc0 in the expression), and two matmuls of the same x and
 * shape (float weights) feeding one chain (silu(x wg^T) * (x wu^T)) share
 * one kernel (acc0, acc1). Matmuls of one x with no epilogue (the Q, K and
 * V projections) are one kernel where their variants' template takes them
 * as regions of one N (KG_FUSE_REGIONS), each region its own weight and
 * result. Such a region's result may be taken further where the template
 * declares a region epilogue (KG_FUSE_REGION_EPI): a ROTARY op on it (RoPE
 * on q and k) and a CACHE op storing it (the KV write), so that one kernel
 * computes q, k and v, rotates q and k and writes k and v to their caches;
 * the taken ops then run only for the variants that are no regions (none
 * where every variant's template takes them). Other nodes become one kernel each, or one
 * per variant. Fused code only fills a template's holes (EXPR, EPI, EPI_IN): nothing is
 * spliced in front of a template's body, which lower.c relies on for early launch (a
 * template that calls kg_dep_wait() reads its fused operands where it reads the rest,
 * after the wait). */
#include "fuse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

/* The fusion roles of the template of node's variant v. */
static unsigned roles(const kg_graph_t *g, int node, int v) {
  if (v >= g->nodes[node].num_variants) /* a collective step: no template */
    return 0;
  return g->templates[g->nodes[node].variants[v].decl].fuse;
}

/* An elementwise node: its template takes a chain expression. */
static int is_map(const kg_graph_t *g, int node) {
  return node >= 0 && (roles(g, node, 0) & KG_FUSE_CHAIN);
}

/* The single consumer of tensor t, or -1 (dead nodes are no consumers). */
static int sole_consumer(const kg_graph_t *g, int t) {
  return g->tensors[t].uses == 1 ? g->tensors[t].reader : -1;
}

/* A node that can take an epilogue: every variant's template accepts one,
 * reads x and w at operands 0 and 1 and writes one result. */
static int is_matmul(const kg_graph_t *g, int node) {
  if (node < 0 || g->nodes[node].num_inputs != 2 || g->nodes[node].num_outputs != 1 ||
      g->nodes[node].num_variants < 1)
    return 0;
  for (int v = 0; v < g->nodes[node].num_variants; v++)
    if (!(roles(g, node, v) & KG_FUSE_EPILOGUE))
      return 0;
  return 1;
}

/* Do variants p and q read the same facts besides their holes (fuse_key)? */
static int same_key(const kg_variant_t *p, const kg_variant_t *q) {
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
        !same_key(p, q) || !(roles(g, a, v) & KG_FUSE_PAIR))
      return 0;
    for (int h = 0; h < p->num_holes; h++)
      if (strcmp(p->holes[h].name, q->holes[h].name) != 0 ||
          strcmp(p->holes[h].value, q->holes[h].value) != 0)
        return 0;
  }
  return 1;
}

static int is_inlined(const kg_graph_t *g, int n);

/* The RMS norms kernels take in: of[m], the norm matmul m reads as x (its
 * variants with KG_FUSE_NORM take it as a prologue, those with
 * KG_FUSE_ROW_SCALE, where it is split, as a row scale); out_of[m], the
 * split norm that reads m's epilogue result; for a split norm p, split[p]
 * (else 0), part[p] the tensor of its sums where a producer's variant
 * writes them (else -1), and range[p] the select range where it is split
 * (the consumers' variants without the prologue: all of them, or the
 * lowest ones). */
typedef struct norms {
  int *of, *out_of, *part;
  char *split;
  kg_kernel_t *range;
} norms_t;

/* Adds variant var's select range to the one range *sel .. (*none: no range
 * yet): the same select expression, and ranges that touch or overlap (a
 * node's variants that are not fused, say M 2..8 and M >= 9, run for their
 * union). 0 when they cannot be one range; a variant that runs always
 * (scale 0) cannot. */
static int join_select(const kg_variant_t *var, int *none, kgrt_expr_t *sel, int64_t *mn,
                       int64_t *mx) {
  if (var->select.scale == 0)
    return 0;
  if (*none) {
    *sel = var->select;
    *mn = var->select_min;
    *mx = var->select_max;
    *none = 0;
    return 1;
  }
  if (var->select.scale != sel->scale ||
      memcmp(var->select.sym, sel->sym, sizeof sel->sym) != 0 ||
      var->select_min - 1 > *mx || var->select_max < *mn - 1) /* (max may be 2^63 - 1) */
    return 0;
  if (var->select_min < *mn)
    *mn = var->select_min;
  if (var->select_max > *mx)
    *mx = var->select_max;
  return 1;
}

/* An RMS norm node a NORM template can take in: its template says it is one
 * (rms), it has one variant and one result, no residual (R_T), and its
 * result is no model output. */
static int is_rms(const kg_graph_t *g, int n) {
  const kg_node_t *node = &g->nodes[n];
  const char *r = node->num_variants == 1 ? kg_node_hole(g, n, 0, "R_T") : NULL;
  return (roles(g, n, 0) & KG_FUSE_RMS) && node->num_variants == 1 &&
         node->num_outputs == 1 && (!r || !*r) && kg_node_hole(g, n, 0, "EPS") &&
         g->tensors[node->output].output_index < 0 && node->num_inputs >= 1 &&
         node->num_inputs <= 2;
}

/* Can RMS norm node p be taken in by its consumers? Every consumer is a
 * matmul reading p's result as x, some variant of each takes the prologue
 * (NORM; *split: or, for every consumer with none that does, a variant
 * scales its rows, KG_FUSE_ROW_SCALE, and the norm may only be split), and
 * the variants that do not (they read p's result: p's kernel must run for
 * them) share one select range, which *sel gets (*none: none exist; p
 * needs no kernel). */
static int norm_plan(const kg_graph_t *g, int p, int *none, int *split, kgrt_expr_t *sel,
                     int64_t *mn, int64_t *mx) {
  const int t = g->nodes[p].output;
  int consumers = 0, have = 0, scale = 0;
  *none = 1;
  for (int n = p + 1; n < g->num_nodes; n++) {
    const kg_node_t *node = &g->nodes[n];
    int reads = 0;
    if (node->dead)
      continue;
    for (int i = 0; i < node->num_inputs; i++)
      if (node->inputs[i] == t) {
        if (i != 0 || !is_matmul(g, n))
          return 0;
        reads = 1;
      }
    if (!reads)
      continue;
    consumers++;
    int takes = 0, scales = 0;
    for (int v = 0; v < node->num_variants; v++) {
      const kg_variant_t *var = &node->variants[v];
      scales |= (roles(g, n, v) & KG_FUSE_ROW_SCALE) != 0;
      if (roles(g, n, v) & KG_FUSE_NORM) {
        takes = 1;
        continue;
      }
      /* runs always (nothing to take in), or apart from the others' range */
      if (!join_select(var, none, sel, mn, mx))
        return 0;
    }
    have += takes;
    scale += takes || scales;
  }
  *split = have < consumers;
  return consumers > 0 && scale == consumers && consumers == g->tensors[t].uses;
}

/* Collects into mm[] (at most 2) the matmuls the map chain rooted at n can
 * take as producers: each result used once, by this chain, not a model
 * output, as large as the chain's result. */
static void chain_matmuls(const kg_graph_t *g, int n, int root, int mm[2], int *count) {
  const kg_node_t *node = &g->nodes[n];
  for (int i = 0; i < node->num_inputs; i++) {
    const int t = node->inputs[i], prod = g->tensors[t].producer;
    if (prod >= 0 && is_map(g, prod) && is_inlined(g, prod)) {
      chain_matmuls(g, prod, root, mm, count);
      continue;
    }
    kgrt_expr_t a, b;
    if (!is_matmul(g, prod) || g->tensors[t].uses != 1 ||
        g->tensors[t].output_index >= 0 || kg_tensor_numel(g, &g->tensors[t], &a) ||
        kg_tensor_numel(g, &g->tensors[g->nodes[root].output], &b) ||
        a.scale != b.scale || memcmp(a.sym, b.sym, sizeof a.sym) != 0)
      continue;
    if (*count == 0 || (*count == 1 && mm[0] != prod && same_matmul(g, mm[0], prod)))
      mm[(*count)++] = prod;
  }
}

/* The map root whose epilogue matmul node m becomes, or -1. */
static int epilogue_of(const kg_graph_t *g, int m) {
  if (!is_matmul(g, m))
    return -1;
  for (int n = m + 1; n < g->num_nodes; n++) {
    if (g->nodes[n].dead || !is_map(g, n) || is_inlined(g, n))
      continue;
    int mm[2], count = 0;
    chain_matmuls(g, n, n, mm, &count);
    for (int i = 0; i < count; i++)
      if (mm[i] == m)
        return n;
  }
  return -1;
}

/* Does map node n's value get spliced into its consumer? */
static int is_inlined(const kg_graph_t *g, int n) {
  const kg_tensor_t *t = &g->tensors[g->nodes[n].output];
  if (t->output_index >= 0 || g->nodes[n].own_kernel)
    return 0;
  return is_map(g, n) && is_map(g, sole_consumer(g, g->nodes[n].output));
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
static void cut_chains(kg_graph_t *g) {
  chain_size_t *size = kg_xcalloc((size_t)g->num_nodes + 1, sizeof *size);
  for (int n = 0; n < g->num_nodes; n++) {
    const kg_node_t *node = &g->nodes[n];
    if (node->dead || !is_map(g, n))
      continue;
    chain_size_t c = {.depth = 1};
    for (int i = 0; i < node->num_inputs; i++)
      if (!chain_has(&c, node->inputs[i]))
        c.tensors[c.num++] = node->inputs[i];
    for (int i = 0; i < node->num_inputs; i++) {
      const int t = node->inputs[i], prod = g->tensors[t].producer;
      if (prod < 0 || !is_inlined(g, prod)) /* its sole consumer: n */
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
static int splice(const kg_graph_t *g, int n, kg_kernel_t *k, const int *mm, int num_mm,
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
    if (prod >= 0 && is_map(g, prod) && is_inlined(g, prod)) {
      KG_TRY(splice(g, prod, k, mm, num_mm, out, d));
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

/* Kernel name: <model>_<op>[_<op>...] of the nodes it covers (lower.c
 * appends its content's hash); a norm taken in leads (norm: that node). */
static void collect_ops(const kg_graph_t *g, int n, int norm, kg_buf_t *names,
                        int *count) {
  const kg_node_t *node = &g->nodes[n];
  if (norm >= 0) {
    kg_buf_printf(names, "_%s", g->nodes[norm].op);
    (*count)++;
  }
  for (int i = 0; i < node->num_inputs; i++) {
    int prod = g->tensors[node->inputs[i]].producer;
    if (prod >= 0 &&
        ((is_map(g, prod) && is_inlined(g, prod)) || epilogue_of(g, prod) >= 0))
      collect_ops(g, prod, -1, names, count);
  }
  if (*count < 3)
    kg_buf_printf(names, "_%s", node->op);
  (*count)++;
}

/* Is variant v of node n selected only inside norm p's split range? */
static int in_split(const kg_graph_t *g, const norms_t *nm, int p, int n, int v) {
  const kg_variant_t *var = &g->nodes[n].variants[v];
  const kg_kernel_t *r = &nm->range[p];
  return nm->split[p] && var->select.scale == r->select.scale &&
         memcmp(var->select.sym, r->select.sym, sizeof r->select.sym) == 0 &&
         var->select_min >= r->select_min && var->select_max <= r->select_max;
}

/* Variant v of matmul node m takes in the RMS norm nm->of[m] (>= 0) when
 * its template can: as a prologue, x is the norm's operand, and its weight
 * (if any) follows w (k->ins[1 + num_mm]); where the norm is split, as a
 * row scale: x stays the norm's result (z, which the producer wrote), and
 * the sums (KG_FUSE_ROW_SUMS: the norm's operand, whose squares it adds
 * itself) follow w and any weight of a norm the kernel writes. */
static void take_norm(const kg_graph_t *g, const norms_t *nm, int m, int v,
                      kg_kernel_t *k) {
  const int p = nm->of[m];
  k->norm = p >= 0 && (roles(g, m, v) & KG_FUSE_NORM) ? p : -1;
  k->row_scale = -1;
  if (k->norm >= 0) {
    const kg_node_t *nn = &g->nodes[k->norm];
    k->ins[0] = nn->inputs[0];
    if (nn->num_inputs == 2)
      k->ins[k->num_ins++] = nn->inputs[1];
  } else if (p >= 0 && (roles(g, m, v) & KG_FUSE_ROW_SCALE) && in_split(g, nm, p, m, v)) {
    k->row_scale = p;
    k->ins[k->num_ins++] =
        roles(g, m, v) & KG_FUSE_ROW_SUMS ? g->nodes[p].inputs[0] : nm->part[p];
  }
}

/* Variant v of matmul m writes what the split norm nm->out_of[m] needs
 * beside its result: z and the sums (outs; KG_FUSE_ROW_SUMS: z alone, its
 * consumers add the squares themselves), reading the norm's weight (it
 * follows w). */
static void write_norm(const kg_graph_t *g, const norms_t *nm, int m, int v,
                       kg_kernel_t *k) {
  const int p = nm->out_of[m];
  k->norm_out =
      p >= 0 && (roles(g, m, v) & KG_FUSE_NORM_OUT) && in_split(g, nm, p, m, v) ? p : -1;
  if (k->norm_out < 0)
    return;
  const kg_node_t *nn = &g->nodes[p];
  if (nn->num_inputs == 2)
    k->ins[k->num_ins++] = nn->inputs[1];
  k->outs[k->num_outs++] = nn->output;
  if (!(roles(g, m, v) & KG_FUSE_ROW_SUMS))
    k->outs[k->num_outs++] = nm->part[p];
}

/* The kernels of map root n whose chain takes the matmuls mm[] as its
 * producers: one per variant of mm[0], the matmul template with operands x,
 * w (and the second w), then the chain's other operands; the chain is the
 * epilogue expression. */
static int fuse_epilogue(const kg_graph_t *g, const norms_t *nm, int n, const int *mm,
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
    write_norm(g, nm, mm[0], v, k);
    take_norm(g, nm, mm[0], v, k);
    kg_buf_t names, e;
    kg_buf_init(&names);
    int count = 0;
    collect_ops(g, n, k->norm, &names, &count);
    kg_buf_printf(&names, "_%s", k->tmpl);
    snprintf(k->name, sizeof k->name, "%s%s", g->model, kg_buf_cstr(&names));
    kg_buf_free(&names);
    kg_buf_init(&e);
    int rc = splice(g, n, k, mm, num_mm, &e, d);
    k->expr = kg_buf_take(&e, NULL);
    if (rc)
      return -1;
    p->num_kernels++;
  }
  return 0;
}

/* Can variant v of matmuls a and b be regions of one kernel: a template
 * that takes regions, the same holes but N (the columns, each its own), the
 * same select. */
static int region_variant(const kg_graph_t *g, int a, int b, int v) {
  const kg_variant_t *p = &g->nodes[a].variants[v], *q = &g->nodes[b].variants[v];
  if (!(roles(g, a, v) & KG_FUSE_REGIONS) || strcmp(p->tmpl, q->tmpl) != 0 ||
      p->num_holes != q->num_holes || !same_key(p, q) ||
      p->select.scale != q->select.scale ||
      memcmp(p->select.sym, q->select.sym, sizeof p->select.sym) != 0 ||
      p->select_min != q->select_min || p->select_max != q->select_max)
    return 0;
  for (int h = 0; h < p->num_holes; h++)
    if (strcmp(p->holes[h].name, q->holes[h].name) != 0 ||
        (strcmp(p->holes[h].name, "N") != 0 &&
         strcmp(p->holes[h].value, q->holes[h].value) != 0))
      return 0;
  return 1;
}

/* A matmul that can lead or join a region group: no epilogue, w a model
 * weight [N, K] with constant dims. */
static int region_candidate(const kg_graph_t *g, int n) {
  if (n < 0 || g->nodes[n].dead || !is_matmul(g, n) || epilogue_of(g, n) >= 0)
    return 0;
  const kg_tensor_t *w = &g->tensors[g->nodes[n].inputs[1]];
  return w->rank == 2 && w->dims[0].sym < 0 && w->dims[1].sym < 0 &&
         g->tensors[kg_tensor_storage(g, g->nodes[n].inputs[1])].kind == KG_TENSOR_WEIGHT;
}

/* Is matmul b a region sibling of matmul a: the same x, w of a's dtype and
 * K, some variant both can run as regions. */
static int region_sibling(const kg_graph_t *g, int a, int b) {
  const kg_node_t *x = &g->nodes[a], *y = &g->nodes[b];
  if (!region_candidate(g, b) || x->inputs[0] != y->inputs[0] ||
      x->num_variants != y->num_variants || x->rank != y->rank)
    return 0;
  const kg_tensor_t *wa = &g->tensors[x->inputs[1]], *wb = &g->tensors[y->inputs[1]];
  if (wa->dtype.code != wb->dtype.code || wa->dims[1].value != wb->dims[1].value)
    return 0;
  for (int v = 0; v < x->num_variants; v++)
    if (region_variant(g, a, b, v))
      return 1;
  return 0;
}

/* Groups matmuls into regions: leader[m] is the first matmul of m's group
 * (m itself when it leads one, -1 when in none); members[] of a leader n
 * are its group in node order, *count of them. */
static void region_groups(const kg_graph_t *g, int *leader) {
  for (int n = 0; n < g->num_nodes; n++)
    leader[n] = -1;
  for (int n = 0; n < g->num_nodes; n++) {
    if (leader[n] >= 0 || !region_candidate(g, n))
      continue;
    int count = 1;
    for (int m = n + 1; m < g->num_nodes && count < KG_MAX_REGIONS; m++)
      if (leader[m] < 0 && region_sibling(g, n, m)) {
        leader[m] = n;
        count++;
      }
    if (count > 1)
      leader[n] = n;
  }
}

/* Is variant v of the region group of node n one kernel: every member's
 * variant v runs as a region of the leader's. */
static int group_variant(const kg_graph_t *g, const int *leader, int n, int v) {
  if (leader[n] < 0)
    return 0;
  for (int m = leader[n]; m < g->num_nodes; m++)
    if (leader[m] == leader[n] && !region_variant(g, leader[n], m, v))
      return 0;
  return 1;
}

/* The one live node that reads tensor t, directly or through whole views
 * of it (each read once), and at which operand (*slot); else -1. */
static int sole_reader(const kg_graph_t *g, int t, int *slot) {
  for (;;) {
    if (g->tensors[t].uses != 1 || g->tensors[t].output_index >= 0)
      return -1;
    for (int i = 0; i < g->num_nodes; i++)
      for (int k = 0; k < g->nodes[i].num_inputs && !g->nodes[i].dead; k++)
        if (g->nodes[i].inputs[k] == t) {
          *slot = k;
          return i;
        }
    int next = -1;
    for (int v = t + 1; v < g->num_tensors && next < 0; v++)
      if (g->tensors[v].view && g->tensors[v].alias == t)
        next = v;
    kgrt_expr_t a, b; /* a whole view: from the start, every element */
    if (next < 0 || g->tensors[next].view_offset != 0 ||
        kg_tensor_numel(g, &g->tensors[t], &a) ||
        kg_tensor_numel(g, &g->tensors[next], &b) || a.scale != b.scale ||
        memcmp(a.sym, b.sym, sizeof a.sym) != 0)
      return -1;
    t = next;
  }
}

/* Do nodes a and b give the same values for the holes in names (variant 0)? */
static int same_holes(const kg_graph_t *g, int a, int b, const char *const *names) {
  for (; *names; names++) {
    const char *x = kg_node_hole(g, a, 0, *names), *y = kg_node_hole(g, b, 0, *names);
    if (!x || !y || strcmp(x, y) != 0)
      return 0;
  }
  return 1;
}

/* A node a region epilogue can take as role `role`: one variant, that role,
 * one result, its operands as the role says. */
static int epi_node(const kg_graph_t *g, int c, unsigned role) {
  if (c < 0)
    return 0;
  const kg_node_t *node = &g->nodes[c];
  if (node->dead || node->num_variants != 1 || !(roles(g, c, 0) & role) ||
      node->num_outputs != 1)
    return 0;
  if (role == KG_FUSE_ROTARY) {
    const char *pass = kg_node_hole(g, c, 0, "PASS");
    return node->num_inputs == 2 && pass && !*pass && node->inplace < 0;
  }
  return node->num_inputs == 3 && node->inplace == 0 &&
         node->variants[0].num_dim_args == 2;
}

/* Does any live node from `from` up to (not with) `to` read the memory of
 * tensor t? */
static int read_between(const kg_graph_t *g, int from, int to, int t) {
  const int s = kg_tensor_storage(g, t);
  for (int i = from; i < to; i++)
    for (int k = 0; k < g->nodes[i].num_inputs && !g->nodes[i].dead; k++)
      if (kg_tensor_storage(g, g->nodes[i].inputs[k]) == s)
        return 1;
  return 0;
}

/* The region epilogue of the group led by n: rope[r] and cache[r], the
 * ROTARY and CACHE nodes its member r's result goes through (-1: none), the
 * ropes at one positions tensor of the group's rows and the caches at one
 * (the same, or the slots of a paged cache), ropes of the same holes and
 * caches of the same holes, a cache read by nothing between n and its
 * write. *sel (*none: no variant) is where the variants that are no regions
 * run: the taken nodes run there only. Returns the nodes taken (0: none). */
static int region_epi(const kg_graph_t *g, const int *leader, int n, int *rope,
                      int *cache, int *none, kg_kernel_t *sel) {
  static const char *const rope_holes[] = {"D", "HALF", "HALF_LAYOUT", "REV", NULL};
  static const char *const cache_holes[] = {"C_T", "SLOTS", "D", NULL};
  const kg_node_t *node = &g->nodes[n];
  int r = 0, taken = 0, pos = -1, cpos = -1, first_rope = -1, first_cache = -1, fused = 0;
  *none = 1;
  for (int v = 0; v < node->num_variants; v++) {
    const kg_variant_t *var = &node->variants[v];
    if (group_variant(g, leader, n, v) && (roles(g, n, v) & KG_FUSE_REGION_EPI)) {
      fused = 1;
      continue;
    }
    /* runs always (the taken nodes would run twice), or apart */
    if (!join_select(var, none, &sel->select, &sel->select_min, &sel->select_max))
      return 0;
  }
  if (!fused || node->num_variants < 1 || node->variants[0].num_dim_args < 1)
    return 0;
  for (int m = n; m < g->num_nodes; m++) {
    if (leader[m] != n)
      continue;
    int slot = -1, c = sole_reader(g, g->nodes[m].output, &slot);
    rope[r] = cache[r] = -1;
    if (slot == 0 && epi_node(g, c, KG_FUSE_ROTARY)) {
      rope[r] = c;
      if (first_rope < 0)
        first_rope = c;
      if (!same_holes(g, first_rope, c, rope_holes) ||
          (pos >= 0 && pos != g->nodes[c].inputs[1]))
        return 0;
      pos = g->nodes[c].inputs[1];
      taken++;
      c = sole_reader(g, g->nodes[c].output, &slot);
    }
    if (slot == 1 && epi_node(g, c, KG_FUSE_CACHE)) {
      cache[r] = c;
      if (first_cache < 0)
        first_cache = c;
      if (!same_holes(g, first_cache, c, cache_holes) ||
          (cpos >= 0 && cpos != g->nodes[c].inputs[2]) ||
          read_between(g, n, c, g->nodes[c].inputs[0]))
        return 0;
      cpos = g->nodes[c].inputs[2];
      taken++;
    }
    r++;
  }
  static const char *const dims[] = {"D", NULL};
  const kgrt_expr_t *m = &node->variants[0].dim_args[0];
  if (taken == 0 || (first_rope >= 0 && first_cache >= 0 &&
                     !same_holes(g, first_rope, first_cache, dims)))
    return 0;
  /* each index tensor: made before the group, one i32 a row */
  for (int i = 0; i < 2; i++) {
    const int t = i ? cpos : pos;
    kgrt_expr_t rows;
    if (t >= 0 &&
        (g->tensors[t].producer >= n || kg_tensor_numel(g, &g->tensors[t], &rows) ||
         rows.scale != m->scale || memcmp(rows.sym, m->sym, sizeof rows.sym) != 0))
      return 0;
  }
  return taken;
}

/* The kernel of variant v of the region group led by n: x, each member's
 * weight (then a norm's weight), each member's result; with a region
 * epilogue (region_epi), the positions and each region's cache after the
 * norm's weight, and a region's result is its rope's, none for a cache. */
static void fuse_regions(const kg_graph_t *g, const norms_t *nm, const int *leader, int n,
                         int v, kg_program_t *p) {
  kg_kernel_t *k = &p->kernels[p->num_kernels++];
  const kg_node_t *node = &g->nodes[n];
  int rope[KG_MAX_REGIONS], cache[KG_MAX_REGIONS], none;
  kg_kernel_t sel;
  const int epi = (roles(g, n, v) & KG_FUSE_REGION_EPI) &&
                  region_epi(g, leader, n, rope, cache, &none, &sel) > 0;
  k->node = n;
  k->variant = v;
  k->epilogue_root = -1;
  k->num_mm = 1;
  k->tmpl = node->variants[v].tmpl;
  k->ins[k->num_ins++] = node->inputs[0];
  for (int m = n; m < g->num_nodes; m++)
    if (leader[m] == n) {
      const int r = k->num_regions++;
      k->ins[k->num_ins++] = g->nodes[m].inputs[1];
      k->rope[r] = epi ? rope[r] : -1;
      k->cache[r] = epi ? cache[r] : -1;
      if (k->cache[r] < 0)
        k->outs[k->num_outs++] =
            k->rope[r] >= 0 ? g->nodes[k->rope[r]].output : g->nodes[m].output;
    }
  k->output = k->num_outs > 0 ? k->outs[0] : node->output;
  k->norm_out = -1;
  take_norm(g, nm, n, v, k);
  kg_buf_t names;
  kg_buf_init(&names);
  if (epi) {
    /* the ropes' positions (else the caches'), then the caches' slots where
     * they are another tensor (region_epi) */
    int pos = -1, slots = -1;
    for (int r = 0; r < k->num_regions; r++) {
      if (k->rope[r] >= 0 && pos < 0)
        pos = g->nodes[k->rope[r]].inputs[1];
      if (k->cache[r] >= 0 && slots < 0)
        slots = g->nodes[k->cache[r]].inputs[2];
    }
    k->ins[k->num_ins++] = pos >= 0 ? pos : slots;
    if (pos >= 0 && slots >= 0 && slots != pos)
      k->ins[k->num_ins++] = slots;
    for (int r = 0; r < k->num_regions; r++)
      if (k->cache[r] >= 0) {
        k->writable |= 1u << k->num_ins;
        k->ins[k->num_ins++] = g->nodes[k->cache[r]].inputs[0];
      }
    int named_rope = 0, named_cache = 0; /* each taken op once in the name */
    for (int r = 0; r < k->num_regions; r++) {
      if (k->rope[r] >= 0 && !named_rope++)
        kg_buf_printf(&names, "_%s", g->nodes[k->rope[r]].op);
      if (k->cache[r] >= 0 && !named_cache++)
        kg_buf_printf(&names, "_%s", g->nodes[k->cache[r]].op);
    }
  }
  const char *label = node->variants[v].label ? node->variants[v].label : k->tmpl;
  snprintf(k->name, sizeof k->name, "%s%s_matmul%d%s_%s", g->model,
           k->norm >= 0 ? "_rmsnorm" : "", k->num_regions, kg_buf_cstr(&names), label);
  kg_buf_free(&names);
}

static int fuse_nodes(const kg_graph_t *g, const norms_t *nm, const char *taken_gone,
                      const kg_kernel_t *taken_sel, const int *leader, kg_program_t *p,
                      kg_diag_t *d);

/* The rank kernel k runs on: its nodes' (kg_node_t.rank). A value crosses
 * ranks only through a broadcast, so the nodes one kernel fuses are on one
 * rank, or on every rank (-1) and read there only; a broadcast step's rank
 * is its root. */
static int kernel_rank(const kg_graph_t *g, kg_kernel_t *k, kg_diag_t *d) {
  if (k->collective != KGRT_COLLECTIVE_NONE) {
    k->rank = g->nodes[k->node].rank;
    return 0;
  }
  int nodes[5 + 2 * KG_MAX_REGIONS + KG_MAX_OUTPUTS], n = 0;
  nodes[n++] = k->node;
  nodes[n++] = k->epilogue_root;
  nodes[n++] = k->norm;
  nodes[n++] = k->norm_out;
  nodes[n++] = k->row_scale;
  for (int r = 0; r < KG_MAX_REGIONS; r++) {
    nodes[n++] = r < k->num_regions ? k->rope[r] : -1;
    nodes[n++] = r < k->num_regions ? k->cache[r] : -1;
  }
  for (int i = 0; i < k->num_outs; i++)
    nodes[n++] = g->tensors[k->outs[i]].producer;
  k->rank = -1;
  for (int i = 0; i < n; i++) {
    const int r = nodes[i] >= 0 ? g->nodes[nodes[i]].rank : -1;
    if (r >= 0 && k->rank >= 0 && r != k->rank)
      return kg_error(d, "internal: kernel %s fuses ops of ranks %d and %d", k->name,
                      k->rank, r);
    if (r >= 0)
      k->rank = r;
  }
  return 0;
}

/* Does variant var run somewhere in r's range (the same select)? */
static int overlaps(const kg_variant_t *var, const kg_kernel_t *r) {
  return var->select.scale == r->select.scale &&
         memcmp(var->select.sym, r->select.sym, sizeof r->select.sym) == 0 &&
         var->select_max >= r->select_min && var->select_min <= r->select_max;
}

/* Can RMS norm p be split in range s (select_min .. select_max of the norm's
 * run range r), around producer matmul mm? Every variant of mm that runs in
 * s runs only there, writes the norm's z and sums (KG_FUSE_NORM_OUT, not
 * taking a norm in itself), and together they cover s; every consumer's
 * variant that runs in s runs only there and scales its rows
 * (KG_FUSE_ROW_SCALE), adding the squares itself (KG_FUSE_ROW_SUMS) where
 * a variant of mm that writes no sums may run; and each of those templates
 * splits by default (KG_FUSE_SPLIT_DEFAULT) unless the model asks for the
 * split (ask). */
static int split_fits(const kg_graph_t *g, const norms_t *nm, int p, int mm,
                      const kg_kernel_t *s, int ask) {
  const kg_node_t *m = &g->nodes[mm];
  const unsigned need = ask ? 0 : KG_FUSE_SPLIT_DEFAULT;
  int none = 1;
  kgrt_expr_t sel;
  int64_t lo = 0, hi = 0;
  for (int v = 0; v < m->num_variants; v++) {
    const kg_variant_t *var = &m->variants[v];
    const unsigned ro = roles(g, mm, v);
    if (var->select.scale != 0 && !overlaps(var, s))
      continue; /* runs elsewhere */
    if ((ro & (KG_FUSE_NORM_OUT | need)) != (KG_FUSE_NORM_OUT | need) ||
        ((ro & KG_FUSE_NORM) && nm->of[mm] >= 0) || var->select_min < s->select_min ||
        var->select_max > s->select_max || !join_select(var, &none, &sel, &lo, &hi))
      return 0;
  }
  if (none || lo != s->select_min || hi != s->select_max)
    return 0;
  for (int c = p + 1; c < g->num_nodes; c++)
    if (nm->of[c] == p)
      for (int v = 0; v < g->nodes[c].num_variants; v++) {
        const kg_variant_t *var = &g->nodes[c].variants[v];
        const unsigned ro = roles(g, c, v);
        if (var->select.scale != 0 && !overlaps(var, s))
          continue;
        if ((ro & (KG_FUSE_ROW_SCALE | need)) != (KG_FUSE_ROW_SCALE | need) ||
            var->select.scale == 0 || var->select_min < s->select_min ||
            var->select_max > s->select_max)
          return 0;
        for (int u = 0; !(ro & KG_FUSE_ROW_SUMS) && u < m->num_variants; u++) {
          const kg_variant_t *pv = &m->variants[u];
          if ((roles(g, mm, u) & KG_FUSE_ROW_SUMS) && overlaps(pv, s) &&
              pv->select_max >= var->select_min && pv->select_min <= var->select_max)
            return 0; /* it would read sums no one writes */
        }
      }
  return 1;
}

/* Can RMS norm p, which runs as a kernel for the consumers' variants in
 * range r (norm_plan), be split there instead, in all of r or in its lowest
 * part (where the GEMVs of one row run)? The model allows it (rmsnorm's
 * split) or the templates split by default; its operand h is the result of
 * one matmul's epilogue (no pair) whose variants selected there write the
 * norm's z = h times its weight and h's sums of squares per
 * KG_NORM_PART_COLS columns (split_fits). The matmul, or -1; *s, the range
 * split: r, or r from its start to the end of one of the matmul's variants
 * (the norm's kernel then runs above it). */
static int split_plan(const kg_graph_t *g, const norms_t *nm, int p, const kg_kernel_t *r,
                      kg_kernel_t *s) {
  const kg_node_t *nn = &g->nodes[p];
  const kg_tensor_t *h = &g->tensors[nn->inputs[0]];
  const int root = h->producer;
  int mm[2], num_mm = 0;
  if (h->rank < 1 || h->dims[h->rank - 1].sym >= 0 ||
      h->dims[h->rank - 1].value % KG_NORM_PART_COLS != 0 || root < 0 ||
      g->nodes[root].dead || !is_map(g, root) || is_inlined(g, root))
    return -1;
  chain_matmuls(g, root, root, mm, &num_mm);
  if (num_mm != 1)
    return -1;
  const kg_node_t *m = &g->nodes[mm[0]];
  int found = 0;
  *s = *r;
  if (split_fits(g, nm, p, mm[0], s, nn->split_norm))
    return mm[0];
  /* the longest split from r's start that ends where a variant of mm does */
  for (int v = 0; v < m->num_variants; v++) {
    kg_kernel_t c = *r;
    c.select_max = m->variants[v].select_max;
    if (!overlaps(&m->variants[v], r) || c.select_max >= r->select_max ||
        (found && c.select_max <= s->select_max) ||
        !split_fits(g, nm, p, mm[0], &c, nn->split_norm))
      continue;
    *s = c;
    found = 1;
  }
  return found ? mm[0] : -1;
}

/* A new tensor for split norm p's sums: f32 [rows of its operand, columns
 * / KG_NORM_PART_COLS], a value matmul m computes. */
static int add_sums(kg_graph_t *g, int p, int m) {
  const kg_tensor_t *h = &g->tensors[g->nodes[p].inputs[0]];
  kg_tensor_t t = *h;
  t.name = NULL;
  t.kind = KG_TENSOR_VALUE;
  t.io_index = t.output_index = -1;
  kg_dtype_lookup("f32", &t.dtype);
  t.dims[t.rank - 1].value /= KG_NORM_PART_COLS;
  t.producer = m;
  t.persistent = t.view = t.written = t.in_arena = 0;
  t.alias = t.reader = -1;
  t.view_offset = t.arena_offset = 0;
  t.split = 0;
  t.parts = 1;
  t.uses = 0;
  for (int c = p + 1; c < g->num_nodes; c++)
    t.uses += !g->nodes[c].dead && g->nodes[c].num_inputs > 0 &&
              g->nodes[c].inputs[0] == g->nodes[p].output;
  g->tensors = kg_xrealloc(g->tensors, (size_t)(g->num_tensors + 1) * sizeof *g->tensors);
  g->tensors[g->num_tensors] = t;
  return g->num_tensors++;
}

int kg_fuse(kg_graph_t *g, kg_program_t *p, kg_diag_t *d) {
  memset(p, 0, sizeof *p);
  cut_chains(g);
  int cap = 1;
  for (int n = 0; n < g->num_nodes; n++)
    cap += g->nodes[n].num_variants + 1; /* collectives have none */
  p->kernels = kg_xcalloc((size_t)cap, sizeof *p->kernels);
  /* RMS norms taken in by the matmuls that read them: nm.of[matmul] is
   * the norm node; a norm's own kernel runs only for the variants that do
   * not take it in (taken_sel), or not at all (taken_gone); where those are
   * split (split_plan), the kernel that writes the norm's operand also
   * writes what they need, and no norm kernel runs */
  const int num_nodes = g->num_nodes;
  norms_t nm;
  nm.of = kg_xcalloc((size_t)num_nodes + 1, sizeof *nm.of);
  nm.out_of = kg_xcalloc((size_t)num_nodes + 1, sizeof *nm.out_of);
  nm.part = kg_xcalloc((size_t)num_nodes + 1, sizeof *nm.part);
  nm.split = kg_xcalloc((size_t)num_nodes + 1, 1);
  nm.range = kg_xcalloc((size_t)num_nodes + 1, sizeof *nm.range);
  char *taken_gone = kg_xcalloc((size_t)num_nodes + 1, 1);
  kg_kernel_t *taken_sel = kg_xcalloc((size_t)num_nodes + 1, sizeof *taken_sel);
  for (int n = 0; n < num_nodes; n++)
    nm.of[n] = nm.out_of[n] = nm.part[n] = -1;
  for (int n = 0; n < num_nodes; n++) {
    int none, only_split;
    if (g->nodes[n].dead || !is_rms(g, n) ||
        !norm_plan(g, n, &none, &only_split, &taken_sel[n].select,
                   &taken_sel[n].select_min, &taken_sel[n].select_max))
      continue;
    for (int m = n + 1; m < num_nodes; m++)
      if (!g->nodes[m].dead && g->nodes[m].num_inputs > 0 &&
          g->nodes[m].inputs[0] == g->nodes[n].output)
        nm.of[m] = n;
    kg_kernel_t split;
    const int prod = none ? -1 : split_plan(g, &nm, n, &taken_sel[n], &split);
    if (prod < 0 && only_split) { /* some consumer cannot take it in: a kernel */
      for (int m = n + 1; m < num_nodes; m++)
        if (nm.of[m] == n)
          nm.of[m] = -1;
      continue;
    }
    taken_gone[n] = (char)none;
    taken_sel[n].has_select = !none;
    if (prod >= 0) {
      nm.out_of[prod] = n;
      nm.split[n] = 1;
      nm.range[n] = split;
      /* the sums, where a variant of the producer writes them */
      for (int v = 0; v < g->nodes[prod].num_variants; v++)
        if (nm.part[n] < 0 && !(roles(g, prod, v) & KG_FUSE_ROW_SUMS) &&
            in_split(g, &nm, n, prod, v))
          nm.part[n] = add_sums(g, n, prod);
      if (split.select_max == taken_sel[n].select_max) {
        taken_gone[n] = 1;
        taken_sel[n].has_select = 0;
      } else {
        taken_sel[n].select_min = split.select_max + 1;
      }
    }
  }
  int *leader = kg_xcalloc((size_t)g->num_nodes + 1, sizeof *leader);
  region_groups(g, leader);
  /* the ROTARY and CACHE nodes a region epilogue takes in run only where
   * their group's variants that are no regions run, like a norm */
  for (int n = 0; n < g->num_nodes; n++) {
    int rope[KG_MAX_REGIONS] = {-1, -1, -1}, cache[KG_MAX_REGIONS] = {-1, -1, -1}, none;
    kg_kernel_t sel;
    if (leader[n] != n || !region_epi(g, leader, n, rope, cache, &none, &sel))
      continue;
    for (int r = 0; r < KG_MAX_REGIONS; r++)
      for (int c = 0; c < 2; c++) {
        const int t = c ? cache[r] : rope[r];
        if (t < 0)
          continue;
        taken_gone[t] = (char)none;
        taken_sel[t] = sel;
        taken_sel[t].has_select = !none;
      }
  }
  int rc = fuse_nodes(g, &nm, taken_gone, taken_sel, leader, p, d);
  for (int k = 0; rc == 0 && k < p->num_kernels; k++)
    rc = kernel_rank(g, &p->kernels[k], d);
  free(leader);
  free(nm.of);
  free(nm.out_of);
  free(nm.part);
  free(nm.split);
  free(nm.range);
  free(taken_gone);
  free(taken_sel);
  return rc;
}

static int fuse_nodes(const kg_graph_t *g, const norms_t *nm, const char *taken_gone,
                      const kg_kernel_t *taken_sel, const int *leader, kg_program_t *p,
                      kg_diag_t *d) {
  for (int n = 0; n < g->num_nodes; n++) {
    if (taken_gone[n] || g->nodes[n].dead)
      continue;
    if (is_map(g, n) && is_inlined(g, n))
      continue;
    if (epilogue_of(g, n) >= 0) /* emitted with its chain */
      continue;
    const kg_node_t *node = &g->nodes[n];
    if (is_map(g, n)) {
      int mm[2], num_mm = 0;
      chain_matmuls(g, n, n, mm, &num_mm);
      if (num_mm > 0) {
        KG_TRY(fuse_epilogue(g, nm, n, mm, num_mm, p, d));
        continue;
      }
    }
    if (node->collective != KGRT_COLLECTIVE_NONE) { /* a plan step, no kernel */
      kg_kernel_t *k = &p->kernels[p->num_kernels++];
      k->collective = node->collective;
      k->node = n;
      k->epilogue_root = -1;
      k->norm = k->norm_out = k->row_scale = -1;
      k->output = node->output;
      k->outs[k->num_outs++] = node->output;
      k->ins[k->num_ins++] = node->inputs[0];
      snprintf(k->name, sizeof k->name, "%s_%s", g->model, node->op);
      continue;
    }
    for (int v = 0; v < node->num_variants; v++) {
      /* a region group's variant: one kernel, where its leader is */
      if (group_variant(g, leader, n, v)) {
        if (leader[n] == n)
          fuse_regions(g, nm, leader, n, v, p);
        continue;
      }
      kg_kernel_t *k = &p->kernels[p->num_kernels];
      k->node = n;
      k->variant = v;
      k->epilogue_root = -1;
      k->norm = k->norm_out = k->row_scale = -1;
      if (taken_sel[n].has_select) { /* for the consumers that do not take it in */
        k->has_select = 1;
        k->select = taken_sel[n].select;
        k->select_min = taken_sel[n].select_min;
        k->select_max = taken_sel[n].select_max;
      }
      k->output = node->output;
      if (node->inplace < 0)
        for (int i = 0; i < node->num_outputs; i++)
          k->outs[k->num_outs++] = node->outputs[i];
      k->tmpl = node->variants[v].tmpl;
      kg_buf_t names;
      kg_buf_init(&names);
      int count = 0;
      const int norm = nm->of[n] >= 0 && (roles(g, n, v) & KG_FUSE_NORM) ? nm->of[n] : -1;
      collect_ops(g, n, norm, &names, &count);
      if (node->num_variants > 1) /* matmul_gemv, attention_decode */
        kg_buf_printf(&names, "_%s",
                      node->variants[v].label ? node->variants[v].label : k->tmpl);
      snprintf(k->name, sizeof k->name, "%s%s", g->model, kg_buf_cstr(&names));
      kg_buf_free(&names);
      if (is_map(g, n)) {
        kg_buf_t e;
        kg_buf_init(&e);
        int rc = splice(g, n, k, NULL, 0, &e, d);
        k->expr = kg_buf_take(&e, NULL);
        if (rc)
          return -1;
      } else {
        for (int i = 0; i < node->num_inputs; i++)
          k->ins[k->num_ins++] = node->inputs[i];
        if (is_matmul(g, n))
          take_norm(g, nm, n, v, k);
      }
      p->num_kernels++;
    }
  }
  return 0;
}
