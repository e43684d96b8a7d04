/* tmpl.c - a template's declaration checked against its text and against
 * what a kernel gives it (see tmpl.h). */
#include "tmpl.h"

#include <stdlib.h>
#include <string.h>

static int in_list(const char *const *names, const char *name) {
  for (; *names; names++)
    if (strcmp(*names, name) == 0)
      return 1;
  return 0;
}

int kg_tmpl_c_hole(unsigned fuse, const char *list, const char *name) {
  static const char *const always[] = {"KERNEL", "WAVE",  "BLOCK", "VEC",
                                       "UNROLL", "ITERS", "CACHE", NULL};
  static const char *const chain[] = {"EXPR", "OUT_T", "IN", NULL};
  static const char *const chain_item[] = {"I", "T", "MOD", "VIDX", "TIDX", "BVEC", NULL};
  static const char *const epilogue[] = {"EPI", "PAIR", "OUT_T", "EPI_IN", NULL};
  static const char *const epilogue_item[] = {"I", "T", "MOD", NULL};
  static const char *const norm[] = {"NORM", "NG_T", "NEPS", NULL};
  static const char *const regions[] = {"REGIONS", "R1", "R2", NULL};
  static const char *const region_epi[] = {
      "REPI",     "ROPE0",   "ROPE1",  "ROPE2",  "KV0",      "KV1",     "KV2", "RE_D",
      "RE_PAIRS", "RE_HALF", "RE_REV", "RE_C_T", "RE_SLOTS", "KVSLOTS", NULL};
  static const char *const norm_out[] = {"NOUT", "NOUT_T", "NOG_T", "NPC", NULL};
  static const char *const row_scale[] = {"RSCALE", "RS_EPS", "RS_K", "NPC", NULL};
  static const char *const row_sums[] = {"RS_T", NULL};
  if (strcmp(list, "") != 0 && strcmp(list, "[]") != 0)
    return ((fuse & KG_FUSE_CHAIN) && strcmp(list, "IN") == 0 &&
            in_list(chain_item, name)) ||
           ((fuse & KG_FUSE_EPILOGUE) && strcmp(list, "EPI_IN") == 0 &&
            in_list(epilogue_item, name)) ||
           kg_tmpl_c_hole(fuse, "", name);
  return in_list(always, name) || ((fuse & KG_FUSE_CHAIN) && in_list(chain, name)) ||
         ((fuse & KG_FUSE_EPILOGUE) && in_list(epilogue, name)) ||
         ((fuse & KG_FUSE_NORM) && in_list(norm, name)) ||
         ((fuse & KG_FUSE_REGIONS) && in_list(regions, name)) ||
         ((fuse & KG_FUSE_REGION_EPI) && in_list(region_epi, name)) ||
         ((fuse & KG_FUSE_NORM_OUT) && in_list(norm_out, name)) ||
         ((fuse & KG_FUSE_ROW_SCALE) && in_list(row_scale, name)) ||
         ((fuse & KG_FUSE_ROW_SUMS) && in_list(row_sums, name));
}

static const kg_hole_t *declared(const kg_template_t *t, const char *name) {
  for (int i = 0; i < t->num_holes; i++)
    if (strcmp(t->holes[i].name, name) == 0)
      return &t->holes[i];
  return NULL;
}

/* A list's item holes may also be the outer scope's. */
static int known(const kg_template_t *t, const kg_hole_ref_t *r) {
  return kg_tmpl_c_hole(t->fuse, r->list, r->name) || declared(t, r->name) != NULL;
}

int kg_tmpl_check_decl(const kg_template_t *t, const char *const *files,
                       const char *const *text, kg_partial_fn partial, void *ud,
                       kg_diag_t *d) {
  int rc = 0;
  char *named = kg_xcalloc((size_t)t->num_holes + 1, 1);
  for (int s = 0; s < t->num_sources && rc == 0; s++) {
    kg_hole_refs_t refs = {0};
    rc = kg_hole_refs(files[s], text[s], partial, ud, &refs, d);
    for (int i = 0; i < refs.count && rc == 0; i++) {
      const kg_hole_ref_t *r = &refs.refs[i];
      if (!known(t, r))
        rc = kg_error_at(
            d, r->file, r->line,
            "hole {{%s}} is not declared by template %s (kg.template's holes)", r->name,
            t->name);
      for (int k = 0; k < t->num_holes; k++)
        if (strcmp(t->holes[k].name, r->name) == 0)
          named[k] = 1;
    }
    kg_hole_refs_free(&refs);
  }
  for (int k = 0; k < t->num_holes && rc == 0; k++)
    if (!named[k])
      rc = kg_error_at(d, files[0], 1,
                       "template %s declares hole %s, which its text never names",
                       t->name, t->holes[k].name);
  free(named);
  return rc;
}

int kg_tmpl_check_kernel(const kg_template_t *t, const char *file,
                         const kg_hole_refs_t *refs, const char *const *given,
                         int num_given, kg_holes_t *h, kg_diag_t *d) {
  int rc = 0;
  for (int g = 0; g < num_given && rc == 0; g++)
    if (!declared(t, given[g]))
      rc = kg_error_at(d, file, 1,
                       "hole %s is given to template %s, which does not declare it",
                       given[g], t->name);
  for (int i = 0; i < refs->count && rc == 0; i++) {
    const kg_hole_ref_t *r = &refs->refs[i];
    if (kg_tmpl_c_hole(t->fuse, r->list, r->name))
      continue;
    const kg_hole_t *decl = declared(t, r->name);
    int is_given = 0;
    for (int g = 0; g < num_given && !is_given; g++)
      is_given = strcmp(given[g], r->name) == 0;
    if (!decl)
      rc = kg_error_at(d, r->file, r->line,
                       "hole {{%s}} is not declared by template %s (kg.template's holes)",
                       r->name, t->name);
    else if (!is_given && decl->value)
      kg_holes_set(h, r->name, "%s", decl->value);
    else if (!is_given)
      rc = kg_error_at(d, r->file, r->line, "hole {{%s}} has no value (template %s)",
                       r->name, t->name);
  }
  return rc;
}
