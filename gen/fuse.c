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
 * after the wait).
 * Needs: fuse_chain.c, fuse_norm.c, fuse_region.c (fuse_internal.h). */
#include "fuse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "fuse_internal.h"

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

int kg_fuse(kg_graph_t *g, kg_program_t *p, kg_diag_t *d) {
  memset(p, 0, sizeof *p);
  kg_fuse_cut_chains(g);
  int cap = 1;
  for (int n = 0; n < g->num_nodes; n++)
    cap += g->nodes[n].num_variants + 1; /* collectives have none */
  p->kernels = kg_xcalloc((size_t)cap, sizeof *p->kernels);
  /* RMS norms taken in by the matmuls that read them: nm.of[matmul] is
   * the norm node; a norm's own kernel runs only for the variants that do
   * not take it in (taken_sel), or not at all (taken_gone); where those are
   * split (kg_fuse_split_plan), the kernel that writes the norm's operand also
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
    if (g->nodes[n].dead || !kg_fuse_is_rms(g, n) ||
        !kg_fuse_norm_plan(g, n, &none, &only_split, &taken_sel[n].select,
                           &taken_sel[n].select_min, &taken_sel[n].select_max))
      continue;
    for (int m = n + 1; m < num_nodes; m++)
      if (!g->nodes[m].dead && g->nodes[m].num_inputs > 0 &&
          g->nodes[m].inputs[0] == g->nodes[n].output)
        nm.of[m] = n;
    kg_kernel_t split;
    const int prod = none ? -1 : kg_fuse_split_plan(g, &nm, n, &taken_sel[n], &split);
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
        if (nm.part[n] < 0 && !(kg_fuse_roles(g, prod, v) & KG_FUSE_ROW_SUMS) &&
            kg_fuse_in_split(g, &nm, n, prod, v))
          nm.part[n] = kg_fuse_add_sums(g, n, prod);
      if (split.select_max == taken_sel[n].select_max) {
        taken_gone[n] = 1;
        taken_sel[n].has_select = 0;
      } else {
        taken_sel[n].select_min = split.select_max + 1;
      }
    }
  }
  int *leader = kg_xcalloc((size_t)g->num_nodes + 1, sizeof *leader);
  kg_fuse_region_groups(g, leader);
  /* the ROTARY and CACHE nodes a region epilogue takes in run only where
   * their group's variants that are no regions run, like a norm */
  for (int n = 0; n < g->num_nodes; n++) {
    int rope[KG_MAX_REGIONS] = {-1, -1, -1}, cache[KG_MAX_REGIONS] = {-1, -1, -1}, none;
    kg_kernel_t sel;
    if (leader[n] != n || !kg_fuse_region_epi(g, leader, n, rope, cache, &none, &sel))
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
    if (kg_fuse_is_map(g, n) && kg_fuse_is_inlined(g, n))
      continue;
    if (kg_fuse_epilogue_of(g, n) >= 0) /* emitted with its chain */
      continue;
    const kg_node_t *node = &g->nodes[n];
    if (kg_fuse_is_map(g, n)) {
      int mm[2], num_mm = 0;
      kg_fuse_chain_matmuls(g, n, n, mm, &num_mm);
      if (num_mm > 0) {
        KG_TRY(kg_fuse_epilogue(g, nm, n, mm, num_mm, p, d));
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
      if (kg_fuse_group_variant(g, leader, n, v)) {
        if (leader[n] == n)
          kg_fuse_regions(g, nm, leader, n, v, p);
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
        k->outs[k->num_outs++] = node->output;
      k->tmpl = node->variants[v].tmpl;
      kg_buf_t names;
      kg_buf_init(&names);
      int count = 0;
      const int norm =
          nm->of[n] >= 0 && (kg_fuse_roles(g, n, v) & KG_FUSE_NORM) ? nm->of[n] : -1;
      kg_fuse_collect_ops(g, n, norm, &names, &count);
      if (node->num_variants > 1) /* matmul_gemv, attention_decode */
        kg_buf_printf(&names, "_%s",
                      node->variants[v].label ? node->variants[v].label : k->tmpl);
      snprintf(k->name, sizeof k->name, "%s%s", g->model, kg_buf_cstr(&names));
      kg_buf_free(&names);
      if (kg_fuse_is_map(g, n)) {
        kg_buf_t e;
        kg_buf_init(&e);
        int rc = kg_fuse_splice(g, n, k, NULL, 0, &e, d);
        k->expr = kg_buf_take(&e, NULL);
        if (rc)
          return -1;
      } else {
        for (int i = 0; i < node->num_inputs; i++)
          k->ins[k->num_ins++] = node->inputs[i];
        if (kg_fuse_is_matmul(g, n))
          kg_fuse_take_norm(g, nm, n, v, k);
      }
      if (node->inplace < 0)
        kg_fuse_take_hidden(g, n, v, k);
      p->num_kernels++;
    }
  }
  return 0;
}
