/* front_template.c - reads the declarations of the templates the graph's
 * variants use (kg.templates): holes and their defaults, libs, sources,
 * fusion roles (the KG_FUSE_* bits), weights_before_wait.
 * Needs: front_raw.c, front_node.c (front_internal.h).
 * Gives: kg_front_read_templates. */
#include <stdlib.h>
#include <string.h>

#include <lua.h>

#include "buf.h"
#include "front_internal.h"

/* The identifiers of the list at field key of the table at idx, after
 * `first` (if not NULL). */
static int read_names(lua_State *L, int idx, const char *key, const char *first,
                      char ***out, int *count, kg_diag_t *d) {
  kg_front_field(L, idx, key);
  lua_Integer n = kg_front_len(L, -1);
  if (n > 64)
    return kg_error(d, "internal error: %s: more than 64 names", key);
  *out = kg_xcalloc((size_t)n + 2, sizeof **out);
  *count = 0;
  if (first)
    (*out)[(*count)++] = kg_xstrdup(first);
  for (lua_Integer i = 0; i < n; i++) {
    lua_rawgeti(L, -1, i + 1);
    size_t len = 0;
    const char *v = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &len) : NULL;
    if (!v || !kg_front_is_ident(v, len))
      return kg_error(d, "internal error: %s: an entry is not a C identifier", key);
    (*out)[(*count)++] = kg_xstrdup(v);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return 0;
}

/* The declaration of template `name` (kg.templates[name], at `decls`). */
static int read_template(lua_State *L, int decls, const char *name, kg_template_t *t,
                         kg_diag_t *d) {
  memset(t, 0, sizeof *t);
  t->name = kg_xstrdup(name);
  if (kg_front_field(L, decls, name) != LUA_TTABLE) {
    lua_pop(L, 1);
    return kg_error(d, "internal error: template %s is not declared (kg.template)", name);
  }
  const int decl = lua_gettop(L);
  if (kg_front_field(L, decl, "holes") == LUA_TTABLE) {
    int cap = 0;
    lua_pushnil(L);
    while (lua_next(L, -2)) {
      const int keyed = lua_type(L, -2) == LUA_TSTRING;
      if (lua_type(L, -1) == LUA_TSTRING && (keyed || lua_isinteger(L, -2))) {
        size_t nlen = 0, vlen = 0;
        const char *hn = lua_tolstring(L, keyed ? -2 : -1, &nlen);
        const char *hv = keyed ? lua_tolstring(L, -1, &vlen) : NULL;
        if (!kg_front_is_ident(hn, nlen) || (hv && !kg_front_is_code(hv, vlen)))
          return kg_error(d, "internal error: template %s: a bad hole", name);
        if (t->num_holes == cap) {
          cap = cap ? 2 * cap : 16;
          t->holes = kg_xrealloc(t->holes, (size_t)cap * sizeof *t->holes);
        }
        kg_hole_t *h = &t->holes[t->num_holes++];
        h->name = kg_xstrdup(hn);
        h->value = hv ? kg_xstrdup(hv) : NULL;
      }
      lua_pop(L, 1);
    }
    if (t->num_holes)
      qsort(t->holes, (size_t)t->num_holes, sizeof *t->holes, kg_front_cmp_hole);
    for (int i = 1; i < t->num_holes; i++)
      if (strcmp(t->holes[i - 1].name, t->holes[i].name) == 0)
        return kg_error(d, "internal error: template %s declares hole %s twice", name,
                        t->holes[i].name);
  }
  lua_pop(L, 1);
  KG_TRY(read_names(L, decl, "libs", NULL, &t->libs, &t->num_libs, d));
  char *file = NULL; /* its own text: templates/<file>.hip, default its name */
  KG_TRY(kg_front_ident(L, decl, "file", name, &file, d));
  const int rc =
      read_names(L, decl, "sources", file ? file : name, &t->sources, &t->num_sources, d);
  free(file);
  KG_TRY(rc);
  if (kg_front_field(L, decl, "fuse") == LUA_TTABLE) {
    const int f = lua_gettop(L);
    t->fuse = (kg_front_bool(L, f, "chain") ? KG_FUSE_CHAIN : 0) |
              (kg_front_bool(L, f, "epilogue") ? KG_FUSE_EPILOGUE : 0) |
              (kg_front_bool(L, f, "pair") ? KG_FUSE_PAIR : 0) |
              (kg_front_bool(L, f, "rms_prologue") ? KG_FUSE_NORM : 0) |
              (kg_front_bool(L, f, "rms") ? KG_FUSE_RMS : 0) |
              (kg_front_bool(L, f, "regions") ? KG_FUSE_REGIONS : 0) |
              (kg_front_bool(L, f, "rotary") ? KG_FUSE_ROTARY : 0) |
              (kg_front_bool(L, f, "cache") ? KG_FUSE_CACHE : 0) |
              (kg_front_bool(L, f, "region_epilogue") ? KG_FUSE_REGION_EPI : 0) |
              (kg_front_bool(L, f, "norm_out") ? KG_FUSE_NORM_OUT : 0) |
              (kg_front_bool(L, f, "row_scale") ? KG_FUSE_ROW_SCALE : 0) |
              (kg_front_bool(L, f, "split_default") ? KG_FUSE_SPLIT_DEFAULT : 0) |
              (kg_front_bool(L, f, "row_sums") ? KG_FUSE_ROW_SUMS : 0);
  }
  lua_pop(L, 1);
  t->weights_before_wait = kg_front_bool(L, decl, "weights_before_wait");
  lua_pop(L, 1);
  if ((t->fuse & KG_FUSE_PAIR) && !(t->fuse & KG_FUSE_EPILOGUE))
    return kg_error(d, "internal error: template %s: a pair without an epilogue", name);
  if ((t->fuse & KG_FUSE_REGION_EPI) && !(t->fuse & KG_FUSE_REGIONS))
    return kg_error(d, "internal error: template %s: a region epilogue without regions",
                    name);
  return 0;
}

/* Every variant's template declaration, read once each (kg.templates at
 * `decls`), in first-use order. */
int kg_front_read_templates(lua_State *L, int decls, kg_graph_t *g, kg_diag_t *d) {
  for (int i = 0; i < g->num_nodes; i++)
    for (int v = 0; v < g->nodes[i].num_variants; v++) {
      kg_variant_t *var = &g->nodes[i].variants[v];
      var->decl = -1;
      for (int k = 0; k < g->num_templates && var->decl < 0; k++)
        if (strcmp(g->templates[k].name, var->tmpl) == 0)
          var->decl = k;
      if (var->decl >= 0)
        continue;
      g->templates = kg_xrealloc(g->templates,
                                 (size_t)(g->num_templates + 1) * sizeof *g->templates);
      var->decl = g->num_templates++;
      KG_TRY(read_template(L, decls, var->tmpl, &g->templates[var->decl], d));
    }
  return 0;
}
