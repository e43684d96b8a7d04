/* fuse_region.c - sibling matmuls of one x as regions of one kernel
 * (KG_FUSE_REGIONS), and a rotary and a cache op on each region's result
 * as its region epilogue (KG_FUSE_REGION_EPI).
 * Needs: fuse_chain.c, fuse_norm.c (a norm taken in).
 * Gives: kg_fuse_region_groups, kg_fuse_group_variant, kg_fuse_region_epi,
 * kg_fuse_regions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "fuse.h"
#include "fuse_internal.h"

/* Can variant v of matmuls a and b be regions of one kernel: a template
 * that takes regions, the same holes but N (the columns, each its own), the
 * same select. */
static int region_variant(const kg_graph_t *g, int a, int b, int v) {
  const kg_variant_t *p = &g->nodes[a].variants[v], *q = &g->nodes[b].variants[v];
  if (!(kg_fuse_roles(g, a, v) & KG_FUSE_REGIONS) || strcmp(p->tmpl, q->tmpl) != 0 ||
      p->num_holes != q->num_holes || !kg_fuse_same_key(p, q) ||
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
  if (n < 0 || g->nodes[n].dead || !kg_fuse_is_matmul(g, n) ||
      kg_fuse_epilogue_of(g, n) >= 0)
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
void kg_fuse_region_groups(const kg_graph_t *g, int *leader) {
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
int kg_fuse_group_variant(const kg_graph_t *g, const int *leader, int n, int v) {
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
  if (node->dead || node->num_variants != 1 || !(kg_fuse_roles(g, c, 0) & role) ||
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
int kg_fuse_region_epi(const kg_graph_t *g, const int *leader, int n, int *rope,
                       int *cache, int *none, kg_kernel_t *sel) {
  static const char *const rope_holes[] = {"D", "HALF", "HALF_LAYOUT", "REV", NULL};
  static const char *const cache_holes[] = {"C_T", "SLOTS", "D", NULL};
  const kg_node_t *node = &g->nodes[n];
  int r = 0, taken = 0, pos = -1, cpos = -1, first_rope = -1, first_cache = -1, fused = 0;
  *none = 1;
  for (int v = 0; v < node->num_variants; v++) {
    const kg_variant_t *var = &node->variants[v];
    if (kg_fuse_group_variant(g, leader, n, v) &&
        (kg_fuse_roles(g, n, v) & KG_FUSE_REGION_EPI)) {
      fused = 1;
      continue;
    }
    /* runs always (the taken nodes would run twice), or apart */
    if (!kg_fuse_join_select(var, none, &sel->select, &sel->select_min, &sel->select_max))
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
 * weight (then a norm's weight), each member's result, then n's hidden
 * results where the variant takes them (a split K's parts and counts); with
 * a region epilogue (kg_fuse_region_epi), the positions and each region's
 * cache after the norm's weight, and a region's result is its rope's, none
 * for a cache. */
void kg_fuse_regions(const kg_graph_t *g, const norms_t *nm, const int *leader, int n,
                     int v, kg_program_t *p) {
  kg_kernel_t *k = &p->kernels[p->num_kernels++];
  const kg_node_t *node = &g->nodes[n];
  int rope[KG_MAX_REGIONS], cache[KG_MAX_REGIONS], none;
  kg_kernel_t sel;
  const int epi = (kg_fuse_roles(g, n, v) & KG_FUSE_REGION_EPI) &&
                  kg_fuse_region_epi(g, leader, n, rope, cache, &none, &sel) > 0;
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
  kg_fuse_take_norm(g, nm, n, v, k);
  kg_fuse_take_hidden(g, n, v, k); /* after the regions' results */
  kg_buf_t names;
  kg_buf_init(&names);
  if (epi) {
    /* the ropes' positions (else the caches'), then the caches' slots where
     * they are another tensor (kg_fuse_region_epi) */
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
