/* sizes.c - the sizes kgen plans, checked against what kgrt loads (see
 * sizes.h). Requires: the graph (front.c); then the plan (plan.c); then each
 * target's lowered kernels (lower.c). Every product is taken with
 * __builtin_mul_overflow: a size that does not fit is an error, never a
 * wrapped number in a table. */
#include "sizes.h"

#include <stdio.h>

/* "input x", "weight w", "a result of matmul" */
static const char *tensor_what(const kg_graph_t *g, const kg_tensor_t *t, char *buf,
                               size_t size) {
  if (t->name)
    snprintf(buf, size, "%s %s", t->kind == KG_TENSOR_WEIGHT ? "weight" : "input",
             t->name);
  else if (t->producer >= 0)
    snprintf(buf, size, "a result of %s", g->nodes[t->producer].op);
  else
    snprintf(buf, size, "a value");
  return buf;
}

/* The model's file and line of node n's call where known, else path and 0. */
static const char *where(const kg_graph_t *g, int n, const char *path, int *line) {
  *line = 0;
  if (n < 0 || n >= g->num_nodes || !g->nodes[n].file)
    return path;
  *line = g->nodes[n].line;
  return g->nodes[n].file;
}

int kg_sizes_graph(const kg_graph_t *g, const char *path, kg_diag_t *d) {
  for (int i = 0; i < g->num_syms; i++)
    if (g->syms[i].max < 1 || g->syms[i].max > KGRT_MAX_DIM)
      return kg_error_at(d, path, 0, "sym %s: max %lld is not in 1 .. 2^31 - 1",
                         g->syms[i].name ? g->syms[i].name : "?",
                         (long long)g->syms[i].max);
  for (int i = 0; i < g->num_tensors; i++) {
    const kg_tensor_t *t = &g->tensors[i];
    char buf[160];
    const char *what = tensor_what(g, t, buf, sizeof buf);
    int line;
    const char *file = where(g, t->producer, path, &line);
    for (int k = 0; k < t->rank; k++) {
      const kg_dim_t *dim = &t->dims[k];
      if (dim->sym >= g->num_syms ||
          (dim->sym >= 0 && (g->syms[dim->sym].rank || g->syms[dim->sym].count)) ||
          (dim->sym < 0 && (dim->value < 1 || dim->value > KGRT_MAX_DIM)))
        return kg_error_at(d, file, line,
                           "%s: dim %d is %lld, not in 1 .. 2^31 - 1 (or a sym)", what,
                           k + 1, (long long)(dim->sym < 0 ? dim->value : dim->sym));
    }
    int syms = 0;
    for (int k = 0; k < t->rank; k++)
      syms += t->dims[k].sym >= 0;
    if (syms > KGRT_EXPR_SYMS)
      return kg_error_at(
          d, file, line,
          "%s: %d symbolic dims, more than %d (a size kgrt evaluates holds "
          "at most %d syms)",
          what, syms, KGRT_EXPR_SYMS, KGRT_EXPR_SYMS);
    kgrt_expr_t numel;
    int64_t n;
    uint64_t bytes;
    if (kg_tensor_numel(g, t, &numel) || kg_expr_max(g, &numel, &n) ||
        (uint64_t)n > KGRT_MAX_ELEMENTS || kg_tensor_bytes_max(g, t, &bytes) ||
        bytes > KGRT_MAX_BUFFER_BYTES)
      return kg_error_at(d, file, line,
                         "%s: more than 2^48 elements or bytes with every sym at its max",
                         what);
  }
  return 0;
}

int kg_sizes_plan(const kg_program_t *p, const char *path, kg_diag_t *d) {
  if (p->arena_bytes > KGRT_MAX_BUFFER_BYTES)
    return kg_error_at(d, path, 0,
                       "the plan needs an arena of %llu bytes for the values live at "
                       "once, more than 2^48",
                       (unsigned long long)p->arena_bytes);
  return 0;
}

int kg_sizes_grids(const kg_graph_t *g, const kg_program_t *p,
                   const kg_lowered_t *lowered, const char *arch, const char *path,
                   kg_diag_t *d) {
  for (int k = 0; k < p->num_kernels; k++) {
    const kg_lowered_t *lw = &lowered[k];
    int64_t units;
    uint64_t groups = 0, threads = 0;
    int bad = kg_expr_max(g, &lw->units, &units) != 0 || lw->per_block == 0;
    if (!bad && units > 0) {
      groups = ((uint64_t)units + lw->per_block - 1) / lw->per_block;
      bad = __builtin_mul_overflow(groups, (uint64_t)lw->repeat, &groups) ||
            __builtin_mul_overflow(groups, (uint64_t)lw->block, &threads) ||
            threads > UINT32_MAX;
    }
    int line;
    const char *file = where(g, p->kernels[k].node, path, &line);
    if (bad)
      return kg_error_at(d, file, line,
                         "%s: kernel %s (%s) needs more than 2^32 - 1 threads in one "
                         "launch with every sym at its max",
                         arch, p->kernels[k].name, g->nodes[p->kernels[k].node].op);
  }
  return 0;
}
