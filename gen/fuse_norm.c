/* fuse_norm.c - RMS norms read only by matmuls: taken in as the matmuls'
 * prologue (KG_FUSE_NORM), or split around them where the norm's operand is
 * another matmul's epilogue result (that matmul writes z and the sums,
 * KG_FUSE_NORM_OUT; the consumers scale their rows, KG_FUSE_ROW_SCALE);
 * the select ranges where the norm's own kernel still runs.
 * Needs: fuse_chain.c (chains and matmuls).
 * Gives: kg_fuse_join_select, kg_fuse_is_rms, kg_fuse_norm_plan,
 * kg_fuse_in_split, kg_fuse_take_norm, kg_fuse_write_norm,
 * kg_fuse_split_plan, kg_fuse_add_sums. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "fuse.h"
#include "fuse_internal.h"

/* Adds variant var's select range to the one range *sel .. (*none: no range
 * yet): the same select expression, and ranges that touch or overlap (a
 * node's variants that are not fused, say M 2..8 and M >= 9, run for their
 * union). 0 when they cannot be one range; a variant that runs always
 * (scale 0) cannot. */
int kg_fuse_join_select(const kg_variant_t *var, int *none, kgrt_expr_t *sel, int64_t *mn,
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
int kg_fuse_is_rms(const kg_graph_t *g, int n) {
  const kg_node_t *node = &g->nodes[n];
  const char *r = node->num_variants == 1 ? kg_node_hole(g, n, 0, "R_T") : NULL;
  return (kg_fuse_roles(g, n, 0) & KG_FUSE_RMS) && node->num_variants == 1 &&
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
int kg_fuse_norm_plan(const kg_graph_t *g, int p, int *none, int *split, kgrt_expr_t *sel,
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
        if (i != 0 || !kg_fuse_is_matmul(g, n))
          return 0;
        reads = 1;
      }
    if (!reads)
      continue;
    consumers++;
    int takes = 0, scales = 0;
    for (int v = 0; v < node->num_variants; v++) {
      const kg_variant_t *var = &node->variants[v];
      scales |= (kg_fuse_roles(g, n, v) & KG_FUSE_ROW_SCALE) != 0;
      if (kg_fuse_roles(g, n, v) & KG_FUSE_NORM) {
        takes = 1;
        continue;
      }
      /* runs always (nothing to take in), or apart from the others' range */
      if (!kg_fuse_join_select(var, none, sel, mn, mx))
        return 0;
    }
    have += takes;
    scale += takes || scales;
  }
  *split = have < consumers;
  return consumers > 0 && scale == consumers && consumers == g->tensors[t].uses;
}

/* Is variant v of node n selected only inside norm p's split range? */
int kg_fuse_in_split(const kg_graph_t *g, const norms_t *nm, int p, int n, int v) {
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
void kg_fuse_take_norm(const kg_graph_t *g, const norms_t *nm, int m, int v,
                       kg_kernel_t *k) {
  const int p = nm->of[m];
  k->norm = p >= 0 && (kg_fuse_roles(g, m, v) & KG_FUSE_NORM) ? p : -1;
  k->row_scale = -1;
  if (k->norm >= 0) {
    const kg_node_t *nn = &g->nodes[k->norm];
    k->ins[0] = nn->inputs[0];
    if (nn->num_inputs == 2)
      k->ins[k->num_ins++] = nn->inputs[1];
  } else if (p >= 0 && (kg_fuse_roles(g, m, v) & KG_FUSE_ROW_SCALE) &&
             kg_fuse_in_split(g, nm, p, m, v)) {
    k->row_scale = p;
    k->ins[k->num_ins++] =
        kg_fuse_roles(g, m, v) & KG_FUSE_ROW_SUMS ? g->nodes[p].inputs[0] : nm->part[p];
  }
}

/* Variant v of matmul m writes what the split norm nm->out_of[m] needs
 * beside its result: z and the sums (outs; KG_FUSE_ROW_SUMS: z alone, its
 * consumers add the squares themselves), reading the norm's weight (it
 * follows w). */
void kg_fuse_write_norm(const kg_graph_t *g, const norms_t *nm, int m, int v,
                        kg_kernel_t *k) {
  const int p = nm->out_of[m];
  k->norm_out = p >= 0 && (kg_fuse_roles(g, m, v) & KG_FUSE_NORM_OUT) &&
                        kg_fuse_in_split(g, nm, p, m, v)
                    ? p
                    : -1;
  if (k->norm_out < 0)
    return;
  const kg_node_t *nn = &g->nodes[p];
  if (nn->num_inputs == 2)
    k->ins[k->num_ins++] = nn->inputs[1];
  k->outs[k->num_outs++] = nn->output;
  if (!(kg_fuse_roles(g, m, v) & KG_FUSE_ROW_SUMS))
    k->outs[k->num_outs++] = nm->part[p];
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
    const unsigned ro = kg_fuse_roles(g, mm, v);
    if (var->select.scale != 0 && !overlaps(var, s))
      continue; /* runs elsewhere */
    if ((ro & (KG_FUSE_NORM_OUT | need)) != (KG_FUSE_NORM_OUT | need) ||
        ((ro & KG_FUSE_NORM) && nm->of[mm] >= 0) || var->select_min < s->select_min ||
        var->select_max > s->select_max ||
        !kg_fuse_join_select(var, &none, &sel, &lo, &hi))
      return 0;
  }
  if (none || lo != s->select_min || hi != s->select_max)
    return 0;
  for (int c = p + 1; c < g->num_nodes; c++)
    if (nm->of[c] == p)
      for (int v = 0; v < g->nodes[c].num_variants; v++) {
        const kg_variant_t *var = &g->nodes[c].variants[v];
        const unsigned ro = kg_fuse_roles(g, c, v);
        if (var->select.scale != 0 && !overlaps(var, s))
          continue;
        if ((ro & (KG_FUSE_ROW_SCALE | need)) != (KG_FUSE_ROW_SCALE | need) ||
            var->select.scale == 0 || var->select_min < s->select_min ||
            var->select_max > s->select_max)
          return 0;
        for (int u = 0; !(ro & KG_FUSE_ROW_SUMS) && u < m->num_variants; u++) {
          const kg_variant_t *pv = &m->variants[u];
          if ((kg_fuse_roles(g, mm, u) & KG_FUSE_ROW_SUMS) && overlaps(pv, s) &&
              pv->select_max >= var->select_min && pv->select_min <= var->select_max)
            return 0; /* it would read sums no one writes */
        }
      }
  return 1;
}

/* Can RMS norm p, which runs as a kernel for the consumers' variants in
 * range r (kg_fuse_norm_plan), be split there instead, in all of r or in its lowest
 * part (where the GEMVs of one row run)? The model allows it (rmsnorm's
 * split) or the templates split by default; its operand h is the result of
 * one matmul's epilogue (no pair) whose variants selected there write the
 * norm's z = h times its weight and h's sums of squares per
 * KG_NORM_PART_COLS columns (split_fits). The matmul, or -1; *s, the range
 * split: r, or r from its start to the end of one of the matmul's variants
 * (the norm's kernel then runs above it). */
int kg_fuse_split_plan(const kg_graph_t *g, const norms_t *nm, int p,
                       const kg_kernel_t *r, kg_kernel_t *s) {
  const kg_node_t *nn = &g->nodes[p];
  const kg_tensor_t *h = &g->tensors[nn->inputs[0]];
  const int root = h->producer;
  int mm[2], num_mm = 0;
  if (h->rank < 1 || h->dims[h->rank - 1].sym >= 0 ||
      h->dims[h->rank - 1].value % KG_NORM_PART_COLS != 0 || root < 0 ||
      g->nodes[root].dead || !kg_fuse_is_map(g, root) || kg_fuse_is_inlined(g, root))
    return -1;
  kg_fuse_chain_matmuls(g, root, root, mm, &num_mm);
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
int kg_fuse_add_sums(kg_graph_t *g, int p, int m) {
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
