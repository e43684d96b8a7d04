/* params.c - each kernel's params rule, run once per target while the
 * sandbox is open: BLOCK, VEC, UNROLL (and for tiles grids per_block and
 * repeat, the bytes of a KG_SHARED_BUFFER as shared_bytes, moved_times and
 * any extra holes) from kg.template_params(tmpl, target, info: the node's
 * params_info; for regions n is their columns in all, parts_n the
 * leader's, regions is true and region_epilogue says whether a region's
 * result goes on to a rotation or a cache); source: the template file to expand, templates/<source>.hip (the
 * rule's own, or another that takes the same holes on this target).
 * info.scratch says whether the kernel has its node's hidden results
 * (kg_kernel_t.scratch); the rule's answer scratch = false says that it
 * takes none of them on this target (hidden 0, else 1). Lowering (lower.c)
 * reads the answers and runs no Lua. */
#include "params.h"

#include <lauxlib.h>
#include <lua.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

/* The rule's extra holes (its `holes` table: name -> string or integer),
 * in name order. */
static void params_holes(lua_State *L, int idx, kg_params_t *pr) {
  lua_getfield(L, idx, "holes");
  if (!lua_istable(L, -1)) {
    lua_pop(L, 1);
    return;
  }
  int tbl = lua_gettop(L);
  /* sorted copy of the keys, so the order never depends on the table */
  lua_newtable(L);
  int keys = lua_gettop(L), n = 0;
  lua_pushnil(L);
  while (lua_next(L, tbl)) {
    lua_pop(L, 1);
    if (lua_type(L, -1) == LUA_TSTRING) {
      lua_pushvalue(L, -1);
      lua_rawseti(L, keys, ++n);
    }
  }
  pr->holes = kg_xcalloc((size_t)n + 1, sizeof *pr->holes);
  for (int i = 1; i <= n; i++) {
    lua_rawgeti(L, keys, i);
    const char *name = lua_tostring(L, -1);
    kg_hole_t *hole = &pr->holes[pr->num_holes++];
    hole->name = kg_xstrdup(name);
    lua_getfield(L, tbl, name);
    char num[32];
    if (lua_isinteger(L, -1)) {
      snprintf(num, sizeof num, "%lld", (long long)lua_tointeger(L, -1));
      hole->value = kg_xstrdup(num);
    } else
      hole->value = kg_xstrdup(lua_tostring(L, -1) ? lua_tostring(L, -1) : "");
    lua_pop(L, 2);
  }
  lua_pop(L, 2);
}

static int kernel_params(kg_sandbox_t *sb, const kg_graph_t *g, const kg_kernel_t *k,
                         const kg_target_t *t, kg_params_t *pr, kg_diag_t *d) {
  lua_State *L = kg_sandbox_lua(sb);
  int top = lua_gettop(L);
  KG_TRY(kg_sandbox_require(sb, "kgen", d));
  lua_getfield(L, -1, "template_params");
  lua_pushstring(L, k->tmpl);
  lua_rawgeti(L, LUA_REGISTRYINDEX, t->ref);
  const kg_variant_t *v = &g->nodes[k->node].variants[k->variant];
  if (v->params_ref >= 0 && k->num_regions > 0) {
    /* regions: the node's facts with n, the columns, of the whole group (a
     * copy: the node's own table serves its other kernels) */
    lua_newtable(L);
    lua_rawgeti(L, LUA_REGISTRYINDEX, v->params_ref);
    lua_pushnil(L);
    while (lua_next(L, -2)) {
      lua_pushvalue(L, -2);
      lua_insert(L, -2);
      lua_rawset(L, -5);
    }
    lua_pop(L, 1);
    /* the parts of a split K (the leader's hidden results) were planned
     * for the leader's columns: parts_n, which caps the splits */
    lua_getfield(L, -1, "n");
    lua_setfield(L, -2, "parts_n");
    lua_pushinteger(L, kg_kernel_region_columns(g, k, k->num_regions));
    lua_setfield(L, -2, "n");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "pair");
    lua_pushboolean(L, 1);
    lua_setfield(L, -2, "regions");
    lua_pushboolean(L, kg_kernel_region_epilogue(k));
    lua_setfield(L, -2, "region_epilogue");
    lua_pushboolean(L, k->scratch); /* it takes the leader's hidden results */
    lua_setfield(L, -2, "scratch");
  } else if (v->params_ref >= 0) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, v->params_ref);
    lua_pushboolean(L, k->num_mm == 2); /* a gate/up pair: two accumulators */
    lua_setfield(L, -2, "pair");
    lua_pushboolean(L, k->scratch); /* it takes the node's hidden results */
    lua_setfield(L, -2, "scratch");
  } else { /* map kernels: the dtypes of every operand and the result */
    lua_createtable(L, 0, 1);
    lua_createtable(L, k->num_ins + 1, 0);
    for (int i = 0; i < k->num_ins; i++) {
      lua_pushstring(L, g->tensors[k->ins[i]].dtype.name);
      lua_rawseti(L, -2, i + 1);
    }
    lua_pushstring(L, g->tensors[k->output].dtype.name);
    lua_rawseti(L, -2, k->num_ins + 1);
    lua_setfield(L, -2, "dtypes");
  }
  if (kg_sandbox_pcall(sb, 3, 1, d)) {
    lua_settop(L, top);
    return -1;
  }
  const int res = lua_gettop(L);
  lua_getfield(L, -1, "BLOCK");
  pr->block = (int)lua_tointeger(L, -1);
  lua_getfield(L, -2, "VEC");
  pr->vec = (int)lua_tointeger(L, -1);
  lua_getfield(L, -3, "UNROLL");
  pr->unroll = (int)lua_tointeger(L, -1);
  lua_getfield(L, -4, "per_block");
  pr->per_block = (uint32_t)lua_tointeger(L, -1);
  lua_getfield(L, -5, "repeat");
  pr->repeat = lua_isinteger(L, -1) ? (uint32_t)lua_tointeger(L, -1) : 1;
  /* the root node's node.moved of result j times moved_times[j] */
  if (lua_getfield(L, res, "moved_times") == LUA_TTABLE)
    for (int j = 0; j < KG_MAX_OUTPUTS; j++) {
      lua_rawgeti(L, -1, j + 1);
      const lua_Integer m = lua_isinteger(L, -1) ? lua_tointeger(L, -1) : -1;
      pr->moved_times[j] = m >= 0 && m < INT32_MAX ? m + 1 : 0;
      lua_pop(L, 1);
    }
  lua_pop(L, 1);
  /* a KG_SHARED_BUFFER is dynamic shared memory on cuda only (the preludes) */
  lua_getfield(L, -6, "shared_bytes");
  pr->dyn_shared = strcmp(t->platform, "cuda") == 0 && lua_isinteger(L, -1)
                       ? (uint32_t)lua_tointeger(L, -1)
                       : 0;
  params_holes(L, res, pr);
  lua_getfield(L, res, "scratch");
  pr->hidden = !k->scratch || lua_isnil(L, -1) || lua_toboolean(L, -1);
  lua_pop(L, 1);
  lua_getfield(L, res, "source");
  const char *file = lua_tostring(L, -1);
  const kg_template_t *decl = &g->templates[v->decl];
  snprintf(pr->source, sizeof pr->source, "%s", file ? file : decl->sources[0]);
  lua_settop(L, top);
  return 0;
}

int kg_params_resolve(kg_sandbox_t *sb, const kg_graph_t *g, const kg_program_t *p,
                      const kg_target_t *t, kg_params_t *out, kg_diag_t *d) {
  for (int i = 0; i < p->num_kernels; i++) {
    memset(&out[i], 0, sizeof out[i]);
    if (p->kernels[i].collective == KGRT_COLLECTIVE_NONE &&
        kernel_params(sb, g, &p->kernels[i], t, &out[i], d))
      return -1;
  }
  return 0;
}

void kg_params_free(kg_params_t *params, int n) {
  for (int i = 0; params && i < n; i++) {
    for (int h = 0; h < params[i].num_holes; h++) {
      free(params[i].holes[h].name);
      free(params[i].holes[h].value);
    }
    free(params[i].holes);
  }
}
