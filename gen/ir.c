/* ir.c - freeing the IR, and size expressions over symbolic dims. */
#include "ir.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kg_graph_free(kg_graph_t *g) {
  for (int i = 0; i < g->num_syms; i++)
    free(g->syms[i].name);
  for (int i = 0; i < g->num_nodes; i++) {
    kg_node_t *n = &g->nodes[i];
    free(n->op);
    free(n->file);
    free(n->expr);
    for (int v = 0; v < n->num_variants; v++) {
      kg_variant_t *var = &n->variants[v];
      free(var->tmpl);
      free(var->label);
      free(var->fuse_key);
      for (int k = 0; k < var->num_holes; k++) {
        free(var->holes[k].name);
        free(var->holes[k].value);
      }
      free(var->holes);
    }
  }
  for (int i = 0; i < g->num_outputs; i++)
    free(g->outputs[i].name);
  for (int i = 0; i < g->num_templates; i++) {
    kg_template_t *t = &g->templates[i];
    free(t->name);
    for (int k = 0; k < t->num_holes; k++) {
      free(t->holes[k].name);
      free(t->holes[k].value);
    }
    for (int k = 0; k < t->num_libs; k++)
      free(t->libs[k]);
    for (int k = 0; k < t->num_sources; k++)
      free(t->sources[k]);
    free(t->holes);
    free(t->libs);
    free(t->sources);
  }
  free(g->templates);
  for (int i = 0; i < g->num_tensors; i++)
    free(g->tensors[i].name);
  free(g->model);
  free(g->syms);
  free(g->tensors);
  free(g->nodes);
  free(g->inputs);
  free(g->weights);
  free(g->outputs);
}

void kg_program_free(kg_program_t *p) {
  for (int i = 0; i < p->num_kernels; i++)
    free(p->kernels[i].expr);
  free(p->kernels);
  p->kernels = NULL;
  p->num_kernels = 0;
}

int kg_kernel_epi_first(const kg_graph_t *g, const kg_kernel_t *k) {
  const int w = k->norm >= 0 ? k->norm : k->norm_out;
  return 1 + k->num_mm + (w >= 0 && g->nodes[w].num_inputs == 2) + (k->row_scale >= 0);
}

int kg_dtype_lookup(const char *name, kg_dtype_info_t *out) {
  static const kg_dtype_info_t known[] = {
      {KGRT_DTYPE_F32, "f32", "float", 4, 0, 0},
      {KGRT_DTYPE_F16, "f16", "kg_f16", 2, 0, 0},
      {KGRT_DTYPE_BF16, "bf16", "kg_bf16", 2, 0, 0},
      {KGRT_DTYPE_I32, "i32", "int", 4, 0, 0},
      {KGRT_DTYPE_Q8_0, "q8_0", "unsigned short", 0, 32, 34},
      {KGRT_DTYPE_Q4_0, "q4_0", "unsigned short", 0, 32, 18},
      {KGRT_DTYPE_Q4_K, "q4_k", "unsigned short", 0, 256, 144},
      {KGRT_DTYPE_Q6_K, "q6_k", "unsigned short", 0, 256, 210},
  };
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
    if (name && strcmp(name, known[i].name) == 0) {
      *out = known[i];
      return 0;
    }
  return -1;
}

int kg_tensor_storage(const kg_graph_t *g, int t) {
  while (t >= 0 && g->tensors[t].alias >= 0)
    t = g->tensors[t].alias;
  return t;
}

kgrt_expr_t kg_expr_const(int64_t v) {
  kgrt_expr_t e;
  e.scale = v;
  for (int i = 0; i < KGRT_EXPR_SYMS; i++)
    e.sym[i] = -1;
  return e;
}

int kg_tensor_numel(const kg_graph_t *g, const kg_tensor_t *t, kgrt_expr_t *out) {
  (void)g;
  kgrt_expr_t e = kg_expr_const(1);
  int ns = 0;
  for (int i = 0; i < t->rank; i++) {
    if (t->dims[i].sym < 0) {
      if (__builtin_mul_overflow(e.scale, t->dims[i].value, &e.scale))
        return -1;
    } else {
      if (ns == KGRT_EXPR_SYMS)
        return -1;
      e.sym[ns++] = (int16_t)t->dims[i].sym;
    }
  }
  *out = e;
  return 0;
}

int kg_expr_max(const kg_graph_t *g, const kgrt_expr_t *e, int64_t *out) {
  int64_t v = e->scale;
  for (int i = 0; i < KGRT_EXPR_SYMS; i++)
    if (e->sym[i] >= 0 && __builtin_mul_overflow(v, g->syms[e->sym[i]].max, &v))
      return -1;
  *out = v;
  return 0;
}

int64_t kg_expr_at_max(const kg_graph_t *g, const kgrt_expr_t *e) {
  int64_t v;
  if (kg_expr_max(g, e, &v) == 0)
    return v;
  return e->scale < 0 ? INT64_MIN : INT64_MAX; /* sym maxima are positive */
}

int kg_tensor_bytes_max(const kg_graph_t *g, const kg_tensor_t *t, uint64_t *out) {
  kgrt_expr_t numel;
  int64_t n;
  if (kg_tensor_numel(g, t, &numel) || kg_expr_max(g, &numel, &n) || n < 0)
    return -1;
  uint64_t bytes = (uint64_t)n;
  if (t->dtype.block_elems > 0) /* quantized: whole blocks (the last dim is a multiple) */
    bytes = bytes / (uint64_t)t->dtype.block_elems;
  if (__builtin_mul_overflow(
          bytes,
          (uint64_t)(t->dtype.block_elems > 0 ? t->dtype.block_bytes : t->dtype.size),
          &bytes))
    return -1;
  *out = bytes;
  return 0;
}

const char *kg_node_hole(const kg_graph_t *g, int n, int v, const char *name) {
  const kg_variant_t *var = &g->nodes[n].variants[v];
  for (int i = 0; i < var->num_holes; i++)
    if (strcmp(var->holes[i].name, name) == 0)
      return var->holes[i].value;
  return NULL;
}

int kg_node_error(kg_diag_t *d, const kg_graph_t *g, int n, const char *fmt, ...) {
  char msg[KG_DIAG_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  const kg_node_t *node = n >= 0 && n < g->num_nodes ? &g->nodes[n] : NULL;
  if (node && node->file)
    return kg_error_at(d, node->file, node->line, "%s", msg);
  return kg_error(d, "%s", msg);
}

int64_t kg_kernel_region_columns(const kg_graph_t *g, const kg_kernel_t *k, int upto) {
  int64_t n = 0;
  for (int r = 0; r < upto && r < k->num_regions; r++)
    n += g->tensors[k->ins[1 + r]].dims[0].value;
  return n;
}

int kg_kernel_region_epilogue(const kg_kernel_t *k) {
  for (int r = 0; r < k->num_regions; r++)
    if (k->rope[r] >= 0 || k->cache[r] >= 0)
      return 1;
  return 0;
}
