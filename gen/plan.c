/* plan.c - memory planning.
 * Requires: kernels in execution order (fuse.c).
 * Gives: an arena offset for every kernel output that is not a model output,
 * and the arena size. Sizes are taken with every symbol at its max, so the
 * runtime allocates the arena once. Persistent values (state a kernel keeps
 * across runs) come first, each in its own range, and the runtime zeroes that
 * part at load (arena_zero_bytes). Every other value lives from the kernel
 * that writes it to the last kernel that reads it; a freed range is reused
 * first fit, lowest offset first, so the plan is deterministic. */
#include "plan.h"

#include <stdlib.h>
#include <string.h>

#include "buf.h"

typedef struct range {
  uint64_t off, size;
} range_t;

static uint64_t align_up(uint64_t v, uint64_t a) {
  return (v + a - 1) / a * a;
}

/* A value's bytes at the syms' maxima, rounded up to KG_ARENA_ALIGN; -1 when
 * they do not fit 2^48 (gen/sizes.c checked every tensor; this keeps the
 * sums below from wrapping whatever the caller checked). */
static int value_size(const kg_graph_t *g, const kg_tensor_t *t, uint64_t *out) {
  uint64_t bytes;
  if (kg_tensor_bytes_max(g, t, &bytes) || bytes > KGRT_MAX_BUFFER_BYTES)
    return -1;
  *out = align_up(bytes, KG_ARENA_ALIGN);
  return 0;
}

/* a + b, or -1 past 2^48 + 2^48 (never near wrapping) */
static int add_size(uint64_t a, uint64_t b, uint64_t *out) {
  if (__builtin_add_overflow(a, b, out) || *out > 2 * KGRT_MAX_BUFFER_BYTES)
    return -1;
  return 0;
}

/* Gives value `tv` (written by kernel k) the lowest free range from `base`
 * on that fits among the live ones, and adds it to them. Model outputs have
 * buffers. */
static int place(kg_graph_t *g, const kg_kernel_t *k, int tv, range_t *live, int *live_t,
                 int *num_live, uint64_t base, uint64_t *top, kg_diag_t *d) {
  kg_tensor_t *t = &g->tensors[tv];
  int nlive = *num_live;
  if (t->output_index >= 0 || t->in_arena) /* a node's other variant placed it */
    return 0;
  uint64_t size, end;
  if (value_size(g, t, &size))
    return kg_node_error(d, g, k->node,
                         "kernel %s: a value of more than 2^48 bytes, or more than %d "
                         "symbolic dims",
                         k->name, KGRT_EXPR_SYMS);
  /* first fit among the gaps between live ranges (sorted by offset) */
  for (int i = 1; i < nlive; i++)
    for (int j = i; j > 0 && live[j - 1].off > live[j].off; j--) {
      range_t r = live[j];
      live[j] = live[j - 1];
      live[j - 1] = r;
      int x = live_t[j];
      live_t[j] = live_t[j - 1];
      live_t[j - 1] = x;
    }
  uint64_t off = base; /* live ranges end at most at *top, <= 2^49 */
  for (int i = 0; i < nlive; i++) {
    if (off + size <= live[i].off)
      break;
    if (live[i].off + live[i].size > off)
      off = live[i].off + live[i].size;
  }
  if (add_size(off, size, &end))
    return kg_node_error(d, g, k->node,
                         "kernel %s: the arena passes 2^49 bytes with its result (too "
                         "many large values live at once)",
                         k->name);
  t->in_arena = 1;
  t->arena_offset = off;
  if (end > *top)
    *top = end;
  live[nlive].off = off;
  live[nlive].size = size;
  live_t[nlive++] = tv;
  *num_live = nlive;
  return 0;
}

int kg_plan(kg_graph_t *g, kg_program_t *p, kg_diag_t *d) {
  int nk = p->num_kernels;
  /* persistent values first, in tensor order */
  uint64_t zero = 0;
  for (int t = 0; t < g->num_tensors; t++) {
    kg_tensor_t *v = &g->tensors[t];
    if (!v->persistent || v->output_index >= 0)
      continue;
    uint64_t size;
    if (value_size(g, v, &size) || add_size(zero, size, &zero))
      return kg_node_error(d, g, v->producer, "the persistent values pass 2^48 bytes");
    v->in_arena = 1;
    v->arena_offset = zero - size;
  }
  int *last_use = kg_xmalloc((size_t)g->num_tensors * sizeof *last_use);
  for (int t = 0; t < g->num_tensors; t++)
    last_use[t] = -1;
  for (int k = 0; k < nk; k++)
    for (int i = 0; i < p->kernels[k].num_ins; i++)
      last_use[kg_tensor_storage(g, p->kernels[k].ins[i])] = k;

  size_t cap = (size_t)nk * KG_MAX_OUTPUTS + 1;
  range_t *live = kg_xcalloc(cap, sizeof *live); /* by tensor order */
  int *live_t = kg_xcalloc(cap, sizeof *live_t);
  int nlive = 0;
  uint64_t top = zero;
  int rc = 0;
  for (int k = 0; k < nk && rc == 0; k++) {
    /* values whose last reader ran before this kernel are dead */
    int w = 0;
    for (int i = 0; i < nlive; i++)
      if (last_use[live_t[i]] >= k) {
        live[w] = live[i];
        live_t[w++] = live_t[i];
      }
    nlive = w;
    for (int o = 0; o < p->kernels[k].num_outs && rc == 0; o++)
      rc = place(g, &p->kernels[k], p->kernels[k].outs[o], live, live_t, &nlive, zero,
                 &top, d);
  }
  free(last_use);
  free(live);
  free(live_t);
  p->arena_bytes = top;
  p->arena_align = KG_ARENA_ALIGN;
  p->arena_zero_bytes = zero;
  return rc;
}
