/* front.c - the Lua front end: sets kg.targets and the model's globals,
 * runs the model, and reads kg.graph and kg.templates back in one protected
 * call (front_graph.c, front_template.c).
 * Needs: a sandbox (sandbox.c) with kgen's lua/ library embedded.
 * Gives: kg_front_load, kg_front_model_name; kg_graph_t, read field by field
 * from kg.graph in array order, so nothing depends on Lua's table iteration
 * order.
 *
 * The graph is the DSL's private state (lua/kgen/state.lua), out of the
 * model's reach; still, nothing read here is trusted. It is read inside one
 * protected call (a Lua error, memory included, is an error, never an
 * abort), with raw accesses only (no metamethod runs), and every value is
 * checked before use: ids and ordinals in range, kinds and grids from their
 * lists, names C identifiers, code fragments (expressions, hole values) made
 * of the characters expressions have. */
#include "front.h"

#include <lauxlib.h>
#include <lua.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "front_internal.h"

char *kg_front_model_name(const char *path) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t n = strlen(base);
  if (n > 4 && strcmp(base + n - 4, ".lua") == 0)
    n -= 4;
  char *name = kg_xmalloc(n + 2);
  size_t j = 0;
  if (n == 0 || (base[0] >= '0' && base[0] <= '9'))
    name[j++] = '_';
  for (size_t i = 0; i < n; i++) {
    char c = base[i];
    int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    name[j++] = ok ? c : '_';
  }
  name[j] = '\0';
  /* bounded: names past the limit keep a prefix and the hash of the whole */
  if (j > KG_FRONT_MAX_MODEL_NAME) {
    uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a 64 */
    for (size_t i = 0; i < j; i++)
      h = (h ^ (unsigned char)name[i]) * 0x100000001b3ULL;
    snprintf(name + KG_FRONT_MAX_MODEL_NAME - 17, 18, "_%016llx", (unsigned long long)h);
  }
  /* kgen writes kgrt_table.h beside <model>.h */
  if (strcmp(name, "kgrt_table") == 0) {
    name = kg_xrealloc(name, sizeof "kgrt_table_model");
    strcpy(name, "kgrt_table_model");
  }
  return name;
}

/* What the protected reader gets and gives. */
typedef struct front_read {
  kg_graph_t *g;
  const char *path;
  kg_diag_t *d;
  int rc;
} front_read_t;

/* Runs protected: argument 1 is a front_read_t, 2 the kgen module. Every
 * allocation of g is hung on g at once, so an error part-way leaks nothing
 * (kg_graph_free takes what was read). */
static int front_read(lua_State *L) {
  front_read_t *r = lua_touserdata(L, 1);
  kg_front_field(L, 2, "graph");
  r->rc = kg_front_read_graph(L, lua_gettop(L), r->g, r->path, r->d);
  if (r->rc == 0) {
    kg_front_field(L, 2, "templates");
    r->rc = kg_front_read_templates(L, lua_gettop(L), r->g, r->d);
  }
  return 0;
}

/* Runs protected: argument 1 the kgen module, 2 a kg_target_t array, 3 its
 * length. Sets kg.targets = { {name =, wave =, max_block =}, ... }. */
static int front_targets(lua_State *L) {
  const kg_target_t *t = lua_touserdata(L, 2);
  int n = (int)lua_tointeger(L, 3);
  lua_createtable(L, n, 0);
  for (int i = 0; i < n; i++) {
    lua_createtable(L, 0, 3);
    lua_pushstring(L, t[i].name);
    lua_setfield(L, -2, "name");
    lua_pushinteger(L, t[i].wave);
    lua_setfield(L, -2, "wave");
    lua_pushinteger(L, t[i].max_block);
    lua_setfield(L, -2, "max_block");
    lua_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, 1, "targets");
  return 0;
}

/* Runs protected: argument 1 the kgen module. The DSL's names, kg.env(),
 * become the model's globals. */
static int front_env(lua_State *L) {
  lua_getfield(L, 1, "env");
  lua_call(L, 0, 1);
  int env = lua_gettop(L);
  lua_pushnil(L);
  while (lua_next(L, env)) {
    lua_pushvalue(L, -2);
    lua_insert(L, -2);
    lua_setglobal(L, lua_tostring(L, -2));
    lua_pop(L, 1); /* the key's copy: lua_next takes the original */
  }
  return 0;
}

int kg_front_load(kg_sandbox_t *sb, const char *model_path, const kg_target_t *targets,
                  int num_targets, kg_graph_t *g, kg_diag_t *d) {
  lua_State *L = kg_sandbox_lua(sb);
  memset(g, 0, sizeof *g);
  g->model = kg_front_model_name(model_path);
  if (!lua_checkstack(L, 8))
    return kg_error(d, "Lua stack overflow");

  KG_TRY(kg_sandbox_require(sb, "kgen", d));
  int kg = lua_gettop(L);
  int rc = 0;
  lua_pushcfunction(L, front_targets);
  lua_pushvalue(L, kg);
  lua_pushlightuserdata(L, (void *)targets);
  lua_pushinteger(L, num_targets);
  rc = kg_sandbox_pcall(sb, 3, 0, d);
  if (rc == 0) {
    lua_pushcfunction(L, front_env);
    lua_pushvalue(L, kg);
    rc = kg_sandbox_pcall(sb, 1, 0, d);
  }
  if (rc == 0)
    rc = kg_sandbox_seal_globals(sb, d);
  if (rc == 0)
    rc = kg_sandbox_run_model(sb, d);
  if (rc == 0) {
    front_read_t r = {g, model_path, d, 0};
    lua_pushcfunction(L, front_read);
    lua_pushlightuserdata(L, &r);
    lua_pushvalue(L, kg);
    rc = kg_sandbox_pcall(sb, 2, 0, d);
    if (rc == 0)
      rc = r.rc;
  }
  lua_settop(L, kg - 1);
  return rc;
}

int kg_front_list_ops(kg_sandbox_t *sb, kg_diag_t *d) {
  lua_State *L = kg_sandbox_lua(sb);
  KG_TRY(kg_sandbox_require(sb, "kgen", d));
  lua_getfield(L, -1, "env");
  KG_TRY(kg_sandbox_pcall(sb, 0, 1, d));
  lua_pop(L, 1);
  lua_getfield(L, -1, "op_order");
  lua_getfield(L, -2, "ops");
  int n = (int)luaL_len(L, -2);
  for (int i = 1; i <= n; i++) {
    lua_geti(L, -2, i);
    const char *name = lua_tostring(L, -1);
    lua_getfield(L, -2, name);
    lua_getfield(L, -1, "doc");
    printf("%-10s %s\n", name, lua_tostring(L, -1));
    lua_pop(L, 3);
  }
  lua_pop(L, 3);
  return 0;
}
