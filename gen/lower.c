/* lower.c - per-target kernel generation.
 * Requires: kernels (fuse.c); a target (target.c); the answers of the
 * templates' parameter rules for that target (params.c). Runs no Lua.
 * Gives: for each kernel its BLOCK/VEC, argument list and grid rule, and two
 * sources: the device one (what goes to comgr/clang) and the sim one (the
 * same kernels over the host prelude, plus thunks). Kernel argument order:
 * the operands read (an in-place operand is writable), then the results; map
 * kernels add the element count, other kernels the op's size arguments. */
#include "lower.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expand.h"
#include "res.h"
#include "tmpl.h"

#include "version.h"

/* The KERNEL hole while a kernel's text is hashed: not a C name, so no
 * template text can contain it. */
#define KG_NAME_HOLE "@KERNEL@"

/* {{> NAME}} in a template: templates/part_NAME.hip. */
static const char *find_partial(const char *name, size_t len, const char **file,
                                void *ud) {
  (void)ud;
  char path[128];
  if (len > 64)
    return NULL;
  snprintf(path, sizeof path, "templates/part_%.*s.hip", (int)len, name);
  const kg_res_t *r = kg_res_find(path);
  if (!r)
    return NULL;
  *file = r->path;
  return r->data;
}

static const kg_res_t *need_res(const char *path, kg_diag_t *d) {
  const kg_res_t *r = kg_res_find(path);
  if (!r)
    kg_error(d, "internal: %s is not embedded in kgen", path);
  return r;
}

#define KG_MAX_GIVEN 96

/* The names of the holes an op and its params rule give one kernel. */
typedef struct given {
  int count;
  char names[KG_MAX_GIVEN][64];
} given_t;

static void give(given_t *g, const char *name) {
  if (g->count < KG_MAX_GIVEN)
    snprintf(g->names[g->count], sizeof g->names[0], "%s", name);
  g->count++;
}

/* A REGIONS template's holes: REGIONS when the kernel computes regions, N
 * their columns in all, R1 (R2) where the second (third) starts. */
static void region_holes(const kg_graph_t *g, const kg_kernel_t *k, kg_holes_t *h) {
  kg_holes_set(h, "REGIONS", "%s", k->num_regions > 0 ? "1" : "");
  kg_holes_set(h, "R1", "%s", "");
  kg_holes_set(h, "R2", "%s", "");
  if (k->num_regions == 0)
    return;
  const int64_t all = kg_kernel_region_columns(g, k, k->num_regions);
  kg_holes_set(h, "N", "%lld", (long long)all);
  kg_holes_set(h, "R1", "%lld", (long long)kg_kernel_region_columns(g, k, 1));
  if (k->num_regions > 2)
    kg_holes_set(h, "R2", "%lld", (long long)kg_kernel_region_columns(g, k, 2));
}

/* Hole `name` of node n (variant 0), "" where it has none. */
static const char *node_hole(const kg_graph_t *g, int n, const char *name) {
  const char *v = kg_node_hole(g, n, 0, name);
  return v ? v : "";
}

/* A REGION_EPI template's holes (fuse.c's region_epi chose the nodes):
 * REPI when a region's result goes on; ROPE<r> when region r is rotated,
 * KV<r> when it is stored to a cache (not to a result); KVSLOTS when the
 * caches are written at slots of their own (a paged cache), not at the
 * rotation's positions; the rotation's RE_D
 * (head dim), RE_PAIRS (D / 2), RE_HALF (pairs (i, i + D/2), else (2i,
 * 2i + 1)) and RE_REV (each pair's frequency); the caches' RE_C_T and
 * RE_SLOTS. */
static void region_epi_holes(const kg_graph_t *g, const kg_kernel_t *k, kg_holes_t *h) {
  static const char *const rope[] = {"ROPE0", "ROPE1", "ROPE2"};
  static const char *const kv[] = {"KV0", "KV1", "KV2"};
  int r_node = -1, c_node = -1;
  for (int r = 0; r < KG_MAX_REGIONS; r++) {
    const int has_r = r < k->num_regions && k->rope[r] >= 0;
    const int has_c = r < k->num_regions && k->cache[r] >= 0;
    kg_holes_set(h, rope[r], "%s", has_r ? "1" : "");
    kg_holes_set(h, kv[r], "%s", has_c ? "1" : "");
    if (has_r && r_node < 0)
      r_node = k->rope[r];
    if (has_c && c_node < 0)
      c_node = k->cache[r];
  }
  kg_holes_set(h, "REPI", "%s", kg_kernel_region_epilogue(k) ? "1" : "");
  kg_holes_set(h, "KVSLOTS", "%s",
               r_node >= 0 && c_node >= 0 &&
                       g->nodes[r_node].inputs[1] != g->nodes[c_node].inputs[2]
                   ? "1"
                   : "");
  const int dn = r_node >= 0 ? r_node : c_node;
  kg_holes_set(h, "RE_D", "%s", dn >= 0 ? node_hole(g, dn, "D") : "2");
  kg_holes_set(h, "RE_PAIRS", "%s", r_node >= 0 ? node_hole(g, r_node, "HALF") : "1");
  kg_holes_set(h, "RE_HALF", "%s",
               r_node >= 0 ? node_hole(g, r_node, "HALF_LAYOUT") : "");
  kg_holes_set(h, "RE_REV", "%s", r_node >= 0 ? node_hole(g, r_node, "REV") : "0.0f");
  kg_holes_set(h, "RE_C_T", "%s", c_node >= 0 ? node_hole(g, c_node, "C_T") : "float");
  kg_holes_set(h, "RE_SLOTS", "%s", c_node >= 0 ? node_hole(g, c_node, "SLOTS") : "1");
}

static int expr_is_const(const kgrt_expr_t *e) {
  for (int i = 0; i < KGRT_EXPR_SYMS; i++)
    if (e->sym[i] >= 0)
      return 0;
  return 1;
}

/* Same product: same scale and the same syms in any order. */
static int expr_equal(const kgrt_expr_t *a, const kgrt_expr_t *b) {
  if (a->scale != b->scale)
    return 0;
  int used[KGRT_EXPR_SYMS] = {0};
  for (int i = 0; i < KGRT_EXPR_SYMS; i++) {
    if (a->sym[i] < 0)
      continue;
    int found = 0;
    for (int j = 0; j < KGRT_EXPR_SYMS && !found; j++)
      if (!used[j] && b->sym[j] == a->sym[i])
        used[j] = found = 1;
    if (!found)
      return 0;
  }
  for (int j = 0; j < KGRT_EXPR_SYMS; j++)
    if (b->sym[j] >= 0 && !used[j])
      return 0;
  return 1;
}

/* What a launch of kernel k moves in `tensor` where one of its nodes says it
 * touches fewer bytes than the tensor's (node.moved): its root node, or a
 * region's RoPE or KV-cache node. Scale 0 where none does. */
static kgrt_expr_t arg_moved(const kg_graph_t *g, const kg_kernel_t *k,
                             const kg_lowered_t *lw, int tensor) {
  int nodes[1 + 2 * KG_MAX_REGIONS], num = 0;
  nodes[num++] = k->node;
  for (int r = 0; r < k->num_regions && r < KG_MAX_REGIONS; r++) {
    if (k->rope[r] >= 0)
      nodes[num++] = k->rope[r];
    if (k->cache[r] >= 0)
      nodes[num++] = k->cache[r];
  }
  const int storage = kg_tensor_storage(g, tensor);
  for (int c = 0; c < num; c++) {
    const kg_node_t *n = &g->nodes[nodes[c]];
    for (int i = 0; i < n->num_inputs; i++)
      if ((n->moved_in_mask >> i & 1) && kg_tensor_storage(g, n->inputs[i]) == storage)
        return n->moved_in[i];
    for (int j = 0; j < n->num_outputs; j++)
      if ((n->moved_out_mask >> j & 1) &&
          kg_tensor_storage(g, n->outputs[j]) == storage) {
        kgrt_expr_t e = n->moved_out[j];
        const int64_t times = c == 0 ? lw->moved_times[j] - 1 : -1;
        if (times == 0) { /* this variant never touches it */
          e = kg_expr_const(0);
          e.sym[0] = KGRT_MOVED_NONE;
        } else if (times > 1 && __builtin_mul_overflow(e.scale, times, &e.scale)) {
          e = kg_expr_const(0); /* past 2^63: the tensor's bytes */
        }
        return e;
      }
  }
  return kg_expr_const(0);
}

static int add_buffer(const kg_graph_t *g, const kg_kernel_t *k, kg_lowered_t *lw,
                      int tensor, int is_const) {
  kg_larg_t *a = &lw->args[lw->num_args++];
  a->kind = KGRT_ARG_BUFFER;
  a->tensor = kg_tensor_storage(g, tensor);
  a->view = tensor;
  a->offset = 0;
  for (int t = tensor; t >= 0 && g->tensors[t].alias >= 0; t = g->tensors[t].alias)
    a->offset += g->tensors[t].view_offset;
  a->is_const = is_const;
  a->value = kg_expr_const(0);
  a->moved = k->collective == KGRT_COLLECTIVE_NONE ? arg_moved(g, k, lw, tensor)
                                                   : kg_expr_const(0);
  return 0;
}

/* A matmul kernel's epilogue holes: EPI, the expression of the result over
 * acc0 (and acc1 for a pair, PAIR) and a<k>; EPI_IN, each operand a<k> after
 * x and the weights, read at the result's index (modulo its size when it is
 * broadcast); OUT_T, the result's type. A plain matmul stores acc0. */
static int matmul_epilogue(const kg_graph_t *g, const kg_kernel_t *k,
                           const kgrt_expr_t *numel, kg_holes_t *h, kg_diag_t *d) {
  kg_holes_set(h, "EPI", "%s", k->epilogue_root >= 0 ? k->expr : "acc0");
  kg_holes_set(h, "PAIR", "%s", k->num_mm == 2 ? "1" : "");
  kg_holes_set(h, "OUT_T", "%s", g->tensors[k->output].dtype.ctype);
  kg_holes_set_list(h, "EPI_IN");
  const int first = k->epilogue_root >= 0 ? kg_kernel_epi_first(g, k) : k->num_ins;
  for (int i = first; i < k->num_ins; i++) {
    kg_holes_t *item = kg_holes_add_item(h, "EPI_IN");
    kgrt_expr_t m;
    kg_holes_set(item, "I", "%d", i);
    kg_holes_set(item, "T", "%s", g->tensors[k->ins[i]].dtype.ctype);
    if (kg_tensor_numel(g, &g->tensors[k->ins[i]], &m))
      return kg_node_error(d, g, k->node, "%s: more than %d symbolic dims", k->name,
                           KGRT_EXPR_SYMS);
    if (expr_equal(&m, numel))
      kg_holes_set(item, "MOD", "%s", "");
    else if (expr_is_const(&m))
      kg_holes_set(item, "MOD", " %% %lldL", (long long)m.scale);
    else
      return kg_error(d, "internal: %s: operand %d is broadcast with a run-time size",
                      k->name, i);
  }
  return 0;
}

/* A NORM template's prologue holes: NORM when it takes in the RMS norm
 * k->norm, NG_T its weight's type ("" without one), NEPS its epsilon. */
static int norm_prologue(const kg_graph_t *g, const kg_kernel_t *k, kg_holes_t *h,
                         kg_diag_t *d) {
  kg_holes_set(h, "NORM", "%s", k->norm >= 0 ? "1" : "");
  kg_holes_set(h, "NG_T", "%s", "");
  kg_holes_set(h, "NEPS", "%s", "0.0f");
  if (k->norm < 0)
    return 0;
  const kg_node_t *nn = &g->nodes[k->norm];
  const char *eps = kg_node_hole(g, k->norm, 0, "EPS");
  if (!eps)
    return kg_error(d, "internal: %s: the norm it takes in has no EPS", k->name);
  kg_holes_set(h, "NEPS", "%s", eps);
  if (nn->num_inputs == 2)
    kg_holes_set(h, "NG_T", "%s", g->tensors[nn->inputs[1]].dtype.ctype);
  return 0;
}

/* A split norm's holes: NOUT where the kernel writes z (NOUT_T) and the
 * sums of the RMS norm k->norm_out of its result (NOG_T: the norm's weight's
 * type, "" without one); RSCALE where it scales its rows by the rsqrt of the
 * norm k->row_scale from such sums: RS_EPS its epsilon, RS_K its columns;
 * NPC the columns of one sum (KG_NORM_PART_COLS); RS_T, for a template that
 * adds the squares of the norm's operand itself (KG_FUSE_ROW_SUMS), the
 * operand's type. */
static int split_norm_holes(const kg_graph_t *g, const kg_kernel_t *k, kg_holes_t *h,
                            kg_diag_t *d) {
  kg_holes_set(h, "NOUT", "%s", k->norm_out >= 0 ? "1" : "");
  kg_holes_set(h, "NOUT_T", "%s", "float");
  kg_holes_set(h, "NOG_T", "%s", "");
  kg_holes_set(h, "RSCALE", "%s", k->row_scale >= 0 ? "1" : "");
  kg_holes_set(h, "RS_EPS", "%s", "0.0f");
  kg_holes_set(h, "RS_K", "%s", "1");
  kg_holes_set(h, "NPC", "%d", KG_NORM_PART_COLS);
  const unsigned fuse = g->templates[g->nodes[k->node].variants[k->variant].decl].fuse;
  if (fuse & KG_FUSE_ROW_SUMS)
    kg_holes_set(h, "RS_T", "%s", "float");
  if (k->norm_out >= 0) {
    const kg_node_t *nn = &g->nodes[k->norm_out];
    kg_holes_set(h, "NOUT_T", "%s", g->tensors[nn->output].dtype.ctype);
    if (nn->num_inputs == 2)
      kg_holes_set(h, "NOG_T", "%s", g->tensors[nn->inputs[1]].dtype.ctype);
  }
  if (k->row_scale >= 0) {
    const kg_tensor_t *x = &g->tensors[g->nodes[k->row_scale].inputs[0]];
    const char *eps = kg_node_hole(g, k->row_scale, 0, "EPS");
    if (!eps)
      return kg_error(d, "internal: %s: the norm it scales by has no EPS", k->name);
    kg_holes_set(h, "RS_EPS", "%s", eps);
    kg_holes_set(h, "RS_K", "%lld", (long long)x->dims[x->rank - 1].value);
    if (fuse & KG_FUSE_ROW_SUMS)
      kg_holes_set(h, "RS_T", "%s", x->dtype.ctype);
  }
  return 0;
}

static int is_ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '_';
}

/* Does the expanded kernel text call kg_dep_wait()? Comments and string
 * literals do not count: a template may name the call in its comment. */
static int calls_dep_wait(const char *s, size_t n) {
  static const char name[] = "kg_dep_wait";
  const size_t len = sizeof name - 1;
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '/' && i + 1 < n && s[i + 1] == '/') {
      while (i < n && s[i] != '\n')
        i++;
    } else if (s[i] == '/' && i + 1 < n && s[i + 1] == '*') {
      for (i += 2; i + 1 < n && !(s[i] == '*' && s[i + 1] == '/'); i++)
        ;
      i++;
    } else if (s[i] == '"' || s[i] == '\'') {
      const char q = s[i];
      for (i++; i < n && s[i] != q; i++)
        if (s[i] == '\\')
          i++;
    } else if (is_ident_char(s[i])) {
      size_t j = i;
      while (j < n && is_ident_char(s[j]))
        j++;
      if (j - i == len && memcmp(s + i, name, len) == 0) {
        while (j < n && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n'))
          j++;
        if (j < n && s[j] == '(')
          return 1;
      }
      i = j - 1;
    }
  }
  return 0;
}

/* KGRT_KERNEL_EARLY_LAUNCH: the runtime may start the kernel while the
 * kernels before it still run, so until kg_dep_wait() returns it may read
 * nothing but weights, which no kernel writes (templates/common.hip). Set
 * when the target has early launch and the expanded kernel calls
 * kg_dep_wait(): a template that calls it keeps that contract for its whole
 * body, holes included. That covers fused kernels: fuse.c never splices code
 * in front of a template's body; a fused map chain is the map template's
 * EXPR, a matmul's epilogue its EPI and EPI_IN, which the template expands
 * where it reads its other operands, after the wait. What the contract
 * cannot see is which tensor a template's weight operand is bound to: a
 * template declared weights_before_wait reads w (operands 1 .. num_mm, or 1)
 * before the wait, so each must be a model weight, not a value some kernel
 * computes (quantized w always is; a float w may be an activation) nor a
 * weight a kernel updates in place (tensor.written: state). */
static uint32_t early_launch_flags(const kg_graph_t *g, const kg_kernel_t *k,
                                   const kg_target_t *t, const char *text, size_t n) {
  if (!t->early_launch || !calls_dep_wait(text, n))
    return 0;
  if (g->templates[g->nodes[k->node].variants[k->variant].decl].weights_before_wait) {
    const int num_w = k->num_regions > 0 ? k->num_regions : k->num_mm > 0 ? k->num_mm : 1;
    for (int i = 1; i <= num_w && i < k->num_ins; i++)
      if (g->tensors[kg_tensor_storage(g, k->ins[i])].kind != KG_TENSOR_WEIGHT ||
          g->tensors[kg_tensor_storage(g, k->ins[i])].written)
        return 0;
  }
  return KGRT_KERNEL_EARLY_LAUNCH;
}

/* A collective step: no code (code -1); its operand and result as buffers,
 * units the operand's elements. */
static int lower_collective(const kg_graph_t *g, const kg_kernel_t *k, kg_lowered_t *lw,
                            kg_diag_t *d) {
  memset(lw, 0, sizeof *lw);
  lw->code = -1;
  snprintf(lw->name, sizeof lw->name, "%s", k->name);
  add_buffer(g, k, lw, k->ins[0], 1);
  add_buffer(g, k, lw, k->outs[0], 0);
  if (kg_tensor_numel(g, &g->tensors[k->ins[0]], &lw->units))
    return kg_node_error(d, g, k->node, "%s: more than %d symbolic dims", k->name,
                         KGRT_EXPR_SYMS);
  lw->per_block = 1;
  lw->repeat = 1;
  lw->select = kg_expr_const(0);
  return 0;
}

/* The holes each template source names (kg_hole_refs), found once per
 * source: a model's kernels expand a few sources many times. */
typedef struct refs_memo {
  int count;
  const kg_res_t **sources;
  kg_hole_refs_t *refs;
} refs_memo_t;

static const kg_hole_refs_t *memo_refs(refs_memo_t *m, const char *path,
                                       const kg_res_t *r, kg_diag_t *d) {
  for (int i = 0; i < m->count; i++)
    if (m->sources[i] == r)
      return &m->refs[i];
  kg_hole_refs_t refs = {0};
  if (kg_hole_refs(path, r->data, find_partial, NULL, &refs, d))
    return NULL;
  m->sources = kg_xrealloc(m->sources, (size_t)(m->count + 1) * sizeof *m->sources);
  m->refs = kg_xrealloc(m->refs, (size_t)(m->count + 1) * sizeof *m->refs);
  m->sources[m->count] = r;
  m->refs[m->count] = refs;
  return &m->refs[m->count++];
}

static void memo_free(refs_memo_t *m) {
  for (int i = 0; i < m->count; i++)
    kg_hole_refs_free(&m->refs[i]);
  free(m->sources);
  free(m->refs);
}

/* The params rule's answer for kernel k into lw, h and given; its source
 * and whether it takes the node's hidden results. */
static int apply_params(const kg_graph_t *g, const kg_kernel_t *k, const kg_target_t *t,
                        const kg_params_t *pr, kg_lowered_t *lw, kg_holes_t *h,
                        given_t *given, kg_diag_t *d) {
  lw->block = pr->block;
  lw->vec = pr->vec;
  lw->unroll = pr->unroll;
  lw->per_block = pr->per_block;
  lw->repeat = pr->repeat;
  lw->dyn_shared = pr->dyn_shared;
  memcpy(lw->moved_times, pr->moved_times, sizeof lw->moved_times);
  for (int i = 0; i < pr->num_holes; i++) {
    give(given, pr->holes[i].name);
    kg_holes_set(h, pr->holes[i].name, "%s", pr->holes[i].value);
  }
  const kg_variant_t *v = &g->nodes[k->node].variants[k->variant];
  if (v->grid == KG_GRID_TILES && (lw->per_block == 0 || lw->repeat == 0))
    return kg_error(d, "%s: template %s gave no per_block or repeat for its tiles",
                    k->name, k->tmpl);
  if (lw->block < t->wave || lw->block > t->max_block || lw->block % t->wave ||
      lw->block / t->wave > t->wave || lw->vec < 1 || lw->unroll < 1)
    return kg_error(d, "%s: template %s chose BLOCK=%d VEC=%d, not valid on %s (wave %d)",
                    k->name, k->tmpl, lw->block, lw->vec, t->name, t->wave);
  return 0;
}

/* Each argument's name, the template's for the parameter it is (source
 * its expanded text): as many parameters as arguments, or an internal
 * error naming both counts (a template whose signature disagrees with
 * lowering would bind its arguments to the wrong parameters). */
static int arg_names(const char *text, size_t n, kg_lowered_t *lw, const char *kname,
                     const char *source, kg_diag_t *d) {
  char names[KG_MAX_ARGS][KG_ARG_NAME_MAX];
  char what[400];
  snprintf(what, sizeof what, "templates/%s.hip (%s)", source, kname);
  int count = 0;
  if (kg_signature_names(text, n, KG_NAME_HOLE, what, names, KG_MAX_ARGS, &count, d))
    return -1;
  if (count != lw->num_args)
    return kg_error(d,
                    "internal: %s: its signature has %d parameters, lowering passes %d "
                    "arguments",
                    what, count, lw->num_args);
  for (int i = 0; i < count; i++)
    memcpy(lw->args[i].name, names[i], sizeof names[i]);
  return 0;
}

static int lower_kernel(const kg_graph_t *g, const kg_kernel_t *k, const kg_target_t *t,
                        const kg_params_t *pr, kg_lowered_t *lw, kg_buf_t *src,
                        kg_buf_t *holes_out, refs_memo_t *memo, kg_diag_t *d) {
  if (k->collective != KGRT_COLLECTIVE_NONE)
    return lower_collective(g, k, lw, d);
  memset(lw, 0, sizeof *lw);
  const kg_node_t *n = &g->nodes[k->node];
  const kg_variant_t *v = &n->variants[k->variant];
  const kg_tensor_t *out = &g->tensors[k->output];
  kgrt_expr_t numel;
  if (kg_tensor_numel(g, out, &numel))
    return kg_node_error(d, g, k->node, "%s: more than %d symbolic dims", k->name,
                         KGRT_EXPR_SYMS);

  const kg_template_t *decl = &g->templates[v->decl];
  kg_holes_t *h = kg_holes_new();
  given_t *given = kg_xcalloc(1, sizeof *given);
  const char *source = pr->source;
  const int hidden = pr->hidden;
  if (apply_params(g, k, t, pr, lw, h, given, d)) {
    kg_holes_free(h);
    free(given);
    return -1;
  }
  lw->select = k->has_select ? k->select : v->select;
  lw->select_min = k->has_select ? k->select_min : v->select_min;
  lw->select_max = k->has_select ? k->select_max : v->select_max;
  kg_holes_set(h, "KERNEL", "%s", KG_NAME_HOLE); /* named by content, kg_lower */
  kg_holes_set(h, "WAVE", "%d", t->wave);
  kg_holes_set(h, "BLOCK", "%d", lw->block);
  kg_holes_set(h, "VEC", "%d", lw->vec);
  kg_holes_set(h, "UNROLL", "%d", lw->unroll);
  for (int i = 0; i < v->num_holes; i++) {
    kg_holes_set(h, v->holes[i].name, "%s", v->holes[i].value);
    give(given, v->holes[i].name);
  }
  const int is_map = (decl->fuse & KG_FUSE_CHAIN) != 0;
  for (int i = 0; i < k->num_ins; i++)
    add_buffer(g, k, lw, k->ins[i],
               (is_map || k->epilogue_root >= 0 || i != n->inplace) &&
                   !(k->writable & (1u << i)));
  /* a kernel that may take its node's hidden results has them last
   * (kg_fuse_take_hidden): the outs before them, all of them if it does */
  const int outs = hidden ? k->num_outs : k->num_outs - (n->num_outputs - 1);
  for (int i = 0; i < outs; i++)
    add_buffer(g, k, lw, k->outs[i], 0);
  if ((decl->fuse & KG_FUSE_NORM) && norm_prologue(g, k, h, d)) {
    kg_holes_free(h);
    free(given);
    return -1;
  }
  if ((decl->fuse & (KG_FUSE_NORM_OUT | KG_FUSE_ROW_SCALE)) &&
      split_norm_holes(g, k, h, d)) {
    kg_holes_free(h);
    free(given);
    return -1;
  }
  if (decl->fuse & KG_FUSE_REGIONS)
    region_holes(g, k, h);
  if (decl->fuse & KG_FUSE_REGION_EPI)
    region_epi_holes(g, k, h);
  if ((decl->fuse & KG_FUSE_EPILOGUE) && matmul_epilogue(g, k, &numel, h, d)) {
    kg_holes_free(h);
    free(given);
    return -1;
  }
  if (is_map) {
    kg_holes_set_list(h, "IN");
    for (int i = 0; i < k->num_ins; i++) {
      kg_holes_t *item = kg_holes_add_item(h, "IN");
      kg_holes_set(item, "I", "%d", i);
      kg_holes_set(item, "T", "%s", g->tensors[k->ins[i]].dtype.ctype);
      /* an operand broadcast over leading dims: element j is its j % numel */
      kgrt_expr_t m;
      if (kg_tensor_numel(g, &g->tensors[k->ins[i]], &m) || !expr_equal(&m, &numel)) {
        if (!expr_is_const(&m)) {
          kg_holes_free(h);
          return kg_error(d, "internal: %s: operand %d is broadcast with a run-time size",
                          k->name, i);
        }
        kg_holes_set(item, "MOD", "%lldL", (long long)m.scale);
        kg_holes_set(item, "VIDX", "i %% %lldL", (long long)m.scale);
        kg_holes_set(item, "TIDX", "j %% %lldL", (long long)m.scale);
        kg_holes_set(item, "BVEC", "%s", m.scale % lw->vec == 0 ? "1" : "");
      } else {
        kg_holes_set(item, "VIDX", "i");
        kg_holes_set(item, "TIDX", "j");
        kg_holes_set(item, "BVEC", "1");
      }
    }
    kg_holes_set(h, "OUT_T", "%s", out->dtype.ctype);
    kg_holes_set(h, "EXPR", "%s", k->expr);
    kg_larg_t *a = &lw->args[lw->num_args++];
    a->kind = KGRT_ARG_I64;
    a->tensor = -1;
    a->value = numel;
    lw->units = numel;
    lw->per_block = (uint32_t)(lw->block * lw->vec * lw->unroll);
    lw->repeat = 1;
  } else if (v->grid == KG_GRID_ROWS || v->grid == KG_GRID_TILES) {
    if (v->grid == KG_GRID_ROWS) {
      kgrt_expr_t all;
      if (kg_tensor_numel(g, &g->tensors[v->grid_of], &all) || v->cols <= 0 ||
          all.scale % v->cols) {
        kg_holes_free(h);
        return kg_error(d, "internal: %s: rows of %lld", k->name, (long long)v->cols);
      }
      lw->units = all;
      lw->units.scale /= v->cols;
      lw->per_block = 1;
      lw->repeat = 1;
      /* a row is ITERS strides of BLOCK x VEC; a template may keep a row of
       * at most 8 strides in registers (CACHE) instead of reading it twice */
      const int64_t iters =
          (v->cols + (int64_t)lw->block * lw->vec - 1) / (lw->block * lw->vec);
      kg_holes_set(h, "ITERS", "%lld", (long long)iters);
      kg_holes_set(h, "CACHE", "%s", iters <= 8 ? "1" : "");
    } else {
      /* per_block and repeat: the params rule's; a region kernel tiling
       * columns: all of its regions' */
      lw->units = k->num_regions > 0 && v->tiles_columns
                      ? kg_expr_const(kg_kernel_region_columns(g, k, k->num_regions))
                      : v->tile_units;
    }
    for (int i = 0; i < v->num_dim_args; i++) {
      kg_larg_t *a = &lw->args[lw->num_args++];
      a->kind = KGRT_ARG_I64;
      a->tensor = -1;
      a->value = v->dim_args[i];
    }
    /* a region epilogue's caches: each one's layer (its op's dim arg 1) */
    for (int r = 0; r < k->num_regions && (decl->fuse & KG_FUSE_REGION_EPI); r++)
      if (k->cache[r] >= 0) {
        kg_larg_t *a = &lw->args[lw->num_args++];
        a->kind = KGRT_ARG_I64;
        a->tensor = -1;
        a->value = g->nodes[k->cache[r]].variants[0].dim_args[1];
      }
  } else {
    kg_holes_free(h);
    free(given);
    return kg_error(d, "internal: %s: template %s has no grid rule", k->name, k->tmpl);
  }

  int rc = 0, is_source = 0;
  for (int i = 0; i < decl->num_sources; i++)
    is_source |= strcmp(decl->sources[i], source) == 0;
  if (!is_source)
    rc = kg_error(
        d, "internal: template %s's params rule picked source %s, not one of its sources",
        decl->name, source);
  else if (given->count > KG_MAX_GIVEN)
    rc = kg_error(d, "internal: template %s is given more than %d holes", decl->name,
                  KG_MAX_GIVEN);
  char path[128];
  snprintf(path, sizeof path, "templates/%s.hip", source);
  const kg_res_t *r = rc ? NULL : need_res(path, d);
  if (r) {
    const char *names[KG_MAX_GIVEN];
    for (int i = 0; i < given->count; i++)
      names[i] = given->names[i];
    const kg_hole_refs_t *refs = memo_refs(memo, path, r, d);
    rc = refs ? kg_tmpl_check_kernel(decl, path, refs, names, given->count, h, d) : -1;
  }
  const size_t start = src->len;
  if (rc == 0 && holes_out) {
    kg_buf_printf(holes_out, "    source templates/%s.hip\n", source);
    kg_holes_dump(h, 4, holes_out);
  }
  if (rc == 0)
    rc = r ? kg_expand(path, r->data, h, find_partial, NULL, src, d) : -1;
  if (rc == 0 && src->len > start)
    lw->flags = early_launch_flags(g, k, t, src->data + start, src->len - start);
  if (rc == 0)
    rc = arg_names(src->data + start, src->len - start, lw, k->name, source, d);
  kg_holes_free(h);
  free(given);
  kg_buf_putc(src, '\n');
  return rc;
}

/* extern "C" void <k>__sim(kernarg, arg_bytes): unpack and call the kernel. */
static void emit_thunk(const kg_graph_t *g, const kg_lowered_t *lw, kg_buf_t *s) {
  kg_buf_printf(
      s,
      "extern \"C\" KG_SIM_EXPORT void %s__sim(const unsigned char *kernarg,\n"
      "    const unsigned long long *arg_bytes) {\n  kg_sim_async_reset();\n  %s(",
      lw->name, lw->name);
  for (int i = 0; i < lw->num_args; i++) {
    const kg_larg_t *a = &lw->args[i];
    if (i)
      kg_buf_puts(s, ",\n      ");
    if (a->kind == KGRT_ARG_BUFFER)
      kg_buf_printf(s, "kg_sim_arg<%s%s>(kernarg, %d, arg_bytes[%d])",
                    a->is_const ? "const " : "", g->tensors[a->tensor].dtype.ctype, i * 8,
                    i);
    else
      kg_buf_printf(s, "kg_sim_i64(kernarg, %d)", i * 8);
  }
  kg_buf_puts(s, ");\n}\n");
}

static int emit_file(kg_buf_t *out, const char *path, kg_diag_t *d) {
  const kg_res_t *r = need_res(path, d);
  if (!r)
    return -1;
  kg_buf_printf(out, "/* ---- %s ---- */\n", path);
  kg_buf_put(out, r->data, r->size);
  kg_buf_putc(out, '\n');
  return 0;
}

/* common.hip, then the templates/lib_*.hip (the device helpers an op family
 * shares among its templates) that the kernels' templates declare, in path
 * order. */
static int emit_common(const kg_graph_t *g, const kg_program_t *p, kg_buf_t *out,
                       kg_diag_t *d) {
  KG_TRY(emit_file(out, "templates/common.hip", d));
  for (size_t i = 0; i < kg_res_count; i++) {
    const char *path = kg_res_table[i].path;
    if (strncmp(path, "templates/lib_", 14) != 0)
      continue;
    int used = 0;
    for (int k = 0; k < p->num_kernels && !used; k++) {
      if (p->kernels[k].collective != KGRT_COLLECTIVE_NONE)
        continue;
      const kg_template_t *t =
          &g->templates
               [g->nodes[p->kernels[k].node].variants[p->kernels[k].variant].decl];
      for (int l = 0; l < t->num_libs && !used; l++)
        used = strlen(path) == 14 + strlen(t->libs[l]) + 4 &&
               strncmp(path + 14, t->libs[l], strlen(t->libs[l])) == 0;
    }
    if (used)
      KG_TRY(emit_file(out, path, d));
  }
  return 0;
}

/* Each template's declaration against its text, and its libs exist. */
static int check_templates(const kg_graph_t *g, kg_diag_t *d) {
  for (int i = 0; i < g->num_templates; i++) {
    const kg_template_t *t = &g->templates[i];
    const char *files[8], *text[8];
    char paths[8][128];
    if (t->num_sources > 8)
      return kg_error(d, "internal: template %s has more than 8 sources", t->name);
    for (int s = 0; s < t->num_sources; s++) {
      snprintf(paths[s], sizeof paths[s], "templates/%s.hip", t->sources[s]);
      const kg_res_t *r = need_res(paths[s], d);
      if (!r)
        return -1;
      files[s] = paths[s];
      text[s] = r->data;
    }
    KG_TRY(kg_tmpl_check_decl(t, files, text, find_partial, NULL, d));
    for (int l = 0; l < t->num_libs; l++) {
      char path[128];
      snprintf(path, sizeof path, "templates/lib_%s.hip", t->libs[l]);
      if (!need_res(path, d))
        return -1;
    }
  }
  return 0;
}

/* KG_MMA_<KIND> for each matrix-instruction kind the target lists, so
 * lib_mma.hip builds the fragment code that the target can compile. */
static void emit_mma_defines(const kg_target_t *t, kg_buf_t *out) {
  for (int i = 0; i < t->num_mma; i++) {
    kg_buf_puts(out, "#define KG_MMA_");
    for (const char *c = t->mma[i]; *c; c++)
      kg_buf_putc(out, (char)(*c >= 'a' && *c <= 'z' ? *c - 'a' + 'A' : *c));
    kg_buf_puts(out, " 1\n");
  }
}

/* 64-bit FNV-1a of a buffer. */
static uint64_t text_hash(const kg_buf_t *b) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < b->len; i++)
    h = (h ^ (unsigned char)b->data[i]) * 0x100000001b3ull;
  return h;
}

/* Can kernel b run kernel a's code: the same text and launch facts? */
static int same_code(const kg_buf_t *ta, const kg_lowered_t *a, const kg_buf_t *tb,
                     const kg_lowered_t *b) {
  if (ta->len != tb->len || memcmp(ta->data, tb->data, ta->len) != 0 ||
      a->block != b->block || a->dyn_shared != b->dyn_shared || a->flags != b->flags ||
      a->num_args != b->num_args)
    return 0;
  for (int i = 0; i < a->num_args; i++)
    if (a->args[i].kind != b->args[i].kind || a->args[i].is_const != b->args[i].is_const)
      return 0;
  return 1;
}

/* A kernel's name before its hash, at most: the symbol and "<symbol>.kd"
 * then fit the 127 bytes code-object readers take (kgrt_codeobj.h), with
 * "_<8 hex digits>_<clash>" after it. The model's name is at most 64 bytes
 * (main.c hashes longer ones) and fuse.c lists at most three ops, so this
 * rarely cuts; the hash keeps names apart where it does. */
#define KG_KERNEL_BASE_MAX 104

/* Content addressing: kernel i runs the code of the first kernel with the
 * same text (lowered[i].code), whose name is <model>_<ops>_<8 hex digits of
 * its hash>, with _2, _3 ... where two texts' digits agree. */
static void name_kernels(const kg_program_t *p, kg_lowered_t *lowered,
                         const kg_buf_t *texts) {
  uint64_t *hash = kg_xcalloc((size_t)p->num_kernels + 1, sizeof *hash);
  for (int i = 0; i < p->num_kernels; i++) {
    kg_lowered_t *lw = &lowered[i];
    if (p->kernels[i].collective != KGRT_COLLECTIVE_NONE)
      continue; /* no code: lower_collective set code -1 */
    hash[i] = text_hash(&texts[i]);
    lw->code = i;
    for (int j = 0; j < i && lw->code == i; j++)
      if (lowered[j].code == j && hash[j] == hash[i] &&
          same_code(&texts[j], &lowered[j], &texts[i], lw))
        lw->code = j;
    if (lw->code != i) {
      snprintf(lw->name, sizeof lw->name, "%s", lowered[lw->code].name);
      continue;
    }
    int clash = 0;
    for (int j = 0; j < i; j++)
      clash += lowered[j].code == j && (uint32_t)hash[j] == (uint32_t)hash[i] &&
               strncmp(p->kernels[j].name, p->kernels[i].name, KG_KERNEL_BASE_MAX) == 0;
    if (clash)
      snprintf(lw->name, sizeof lw->name, "%.*s_%08x_%d", KG_KERNEL_BASE_MAX,
               p->kernels[i].name, (unsigned)hash[i], clash + 1);
    else
      snprintf(lw->name, sizeof lw->name, "%.*s_%08x", KG_KERNEL_BASE_MAX,
               p->kernels[i].name, (unsigned)hash[i]);
  }
  free(hash);
}

/* Appends text with its name holes replaced by name. */
static void put_named(kg_buf_t *out, const kg_buf_t *text, const char *name) {
  const size_t hole = sizeof KG_NAME_HOLE - 1;
  size_t from = 0;
  for (size_t i = 0; i + hole <= text->len; i++)
    if (memcmp(text->data + i, KG_NAME_HOLE, hole) == 0) {
      kg_buf_put(out, text->data + from, i - from);
      kg_buf_puts(out, name);
      from = i + hole;
      i += hole - 1;
    }
  kg_buf_put(out, text->data + from, text->len - from);
}

int kg_lower(const kg_graph_t *g, const kg_program_t *p, const kg_target_t *t,
             const kg_params_t *params, kg_lowered_t *lowered, kg_buf_t *dev,
             kg_buf_t *sim, kg_buf_t *holes, kg_diag_t *d) {
  kg_buf_t *texts = kg_xcalloc((size_t)p->num_kernels + 1, sizeof *texts);
  int rc = check_templates(g, d);
  refs_memo_t memo = {0};
  for (int i = 0; i < p->num_kernels && rc == 0; i++)
    rc = lower_kernel(g, &p->kernels[i], t, &params[i], &lowered[i], &texts[i],
                      holes ? &holes[i] : NULL, &memo, d);
  memo_free(&memo);
  kg_buf_t kernels;
  kg_buf_init(&kernels);
  if (rc == 0) {
    name_kernels(p, lowered, texts);
    for (int i = 0; i < p->num_kernels; i++)
      if (lowered[i].code == i)
        put_named(&kernels, &texts[i], lowered[i].name);
  }
  for (int i = 0; i < p->num_kernels; i++)
    kg_buf_free(&texts[i]);
  free(texts);
  if (rc == 0) {
    char prelude[128];
    snprintf(prelude, sizeof prelude, "templates/prelude_%s.hip", t->platform);
    kg_buf_printf(dev,
                  "/* Generated by kgen %s; do not edit. */\n"
                  "/* model %s, target %s (%s, wave %d) */\n",
                  KGEN_VERSION, g->model, t->name, t->platform, t->wave);
    emit_mma_defines(t, dev);
    rc = emit_file(dev, prelude, d);
    if (rc == 0)
      rc = emit_common(g, p, dev, d);
    kg_buf_puts(dev, "/* ---- kernels ---- */\n");
    kg_buf_put(dev, kernels.data, kernels.len);
  }
  if (rc == 0 && sim) {
    kg_buf_printf(sim,
                  "/* Generated by kgen %s; do not edit. */\n"
                  "/* model %s, target %s (wave %d) for the sim device */\n",
                  KGEN_VERSION, g->model, t->name, t->wave);
    emit_mma_defines(t, sim);
    rc = emit_file(sim, "runtime/kgrt_sim_abi.h", d);
    if (rc == 0)
      rc = emit_file(sim, "templates/prelude_sim.hip", d);
    if (rc == 0)
      rc = emit_common(g, p, sim, d);
    kg_buf_puts(sim, "/* ---- kernels ---- */\n");
    kg_buf_put(sim, kernels.data, kernels.len);
    kg_buf_puts(sim, "/* ---- sim thunks ---- */\n");
    for (int i = 0; i < p->num_kernels; i++)
      if (lowered[i].code == i)
        emit_thunk(g, &lowered[i], sim);
  }
  kg_buf_free(&kernels);
  return rc;
}
