/* target.c - targets are data: targets/<name>.lua returns a table (wave size,
 * LDS, compile flags, peak figures, ...). Adding a target is adding a file;
 * no C here branches on a target's name.
 * Needs: the embedded files (res.h) and a sandbox to evaluate them in. */
#include "target.h"

#include <lauxlib.h>
#include <lua.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "res.h"
#include "sandbox.h"

char *kg_target_names(void) {
  kg_buf_t b;
  kg_buf_init(&b);
  for (size_t i = 0; i < kg_res_count; i++) {
    const char *p = kg_res_table[i].path;
    size_t n = strlen(p);
    if (strncmp(p, "targets/", 8) != 0 || n < 12 || strcmp(p + n - 4, ".lua") != 0)
      continue;
    if (b.len)
      kg_buf_puts(&b, ", ");
    kg_buf_put(&b, p + 8, n - 12);
  }
  return kg_buf_take(&b, NULL);
}

static char *field_string(lua_State *L, const char *key) {
  lua_getfield(L, -1, key);
  char *s = lua_type(L, -1) == LUA_TSTRING ? kg_xstrdup(lua_tostring(L, -1)) : NULL;
  lua_pop(L, 1);
  return s;
}

static int field_int(lua_State *L, const char *key) {
  lua_getfield(L, -1, key);
  int v = lua_isinteger(L, -1) ? (int)lua_tointeger(L, -1) : 0;
  lua_pop(L, 1);
  return v;
}

int kg_target_load(kg_sandbox_t *sb, const char *name, kg_target_t *t, kg_diag_t *d) {
  memset(t, 0, sizeof *t);
  t->ref = -1;
  char path[256];
  snprintf(path, sizeof path, "targets/%s.lua", name);
  const kg_res_t *r = strchr(name, '/') ? NULL : kg_res_find(path);
  if (!r) {
    char *known = kg_target_names();
    kg_error(d, "--arch %s: unknown target (known: %s)", name, known);
    free(known);
    return -1;
  }
  lua_State *L = kg_sandbox_lua(sb);
  char chunk[280];
  snprintf(chunk, sizeof chunk, "=%s", path);
  if (luaL_loadbufferx(L, r->data, r->size, chunk, "t") != LUA_OK) {
    kg_error(d, "%s", lua_tostring(L, -1));
    lua_pop(L, 1);
    return -1;
  }
  KG_TRY(kg_sandbox_pcall(sb, 0, 1, d));
  if (!lua_istable(L, -1)) {
    lua_pop(L, 1);
    return kg_error(d, "%s: does not return a table", path);
  }
  t->name = field_string(L, "name");
  t->description = field_string(L, "description");
  t->platform = field_string(L, "platform");
  t->triple = field_string(L, "triple");
  t->wave = field_int(L, "wave");
  t->max_block = field_int(L, "max_block");
  t->lds_bytes = field_int(L, "lds_bytes");
  lua_getfield(L, -1, "early_launch");
  const int early_type = lua_type(L, -1);
  t->early_launch = lua_toboolean(L, -1);
  lua_pop(L, 1);
  lua_getfield(L, -1, "flags");
  if (lua_istable(L, -1)) {
    int n = (int)luaL_len(L, -1);
    for (int i = 0; i < n && t->num_flags < KG_TARGET_MAX_FLAGS; i++) {
      lua_geti(L, -1, i + 1);
      if (lua_type(L, -1) == LUA_TSTRING)
        t->flags[t->num_flags++] = kg_xstrdup(lua_tostring(L, -1));
      lua_pop(L, 1);
    }
  }
  lua_pop(L, 1);
  lua_getfield(L, -1, "mma");
  if (lua_istable(L, -1)) {
    int n = (int)luaL_len(L, -1);
    for (int i = 0; i < n; i++) {
      lua_geti(L, -1, i + 1);
      char *op = lua_istable(L, -1) ? field_string(L, "op") : NULL;
      lua_pop(L, 1);
      int seen = !op;
      for (int k = 0; k < t->num_mma && !seen; k++)
        seen = strcmp(t->mma[k], op) == 0;
      if (seen || t->num_mma == KG_TARGET_MAX_MMA)
        free(op);
      else
        t->mma[t->num_mma++] = op;
    }
  }
  lua_pop(L, 1);
  t->ref = luaL_ref(L, LUA_REGISTRYINDEX);
  if (!t->name || strcmp(t->name, name) != 0 || !t->platform || !t->triple ||
      (t->wave != 32 && t->wave != 64) || t->max_block <= 0)
    return kg_error(d,
                    "%s: needs name = \"%s\", platform, triple, wave (32 or 64) and "
                    "max_block",
                    path, name);
  if (early_type != LUA_TNIL && early_type != LUA_TBOOLEAN)
    return kg_error(d, "%s: early_launch must be true or false, got a %s", path,
                    lua_typename(L, early_type));
  return 0;
}

void kg_target_free(kg_target_t *t) {
  free(t->name);
  free(t->description);
  free(t->platform);
  free(t->triple);
  for (int i = 0; i < t->num_flags; i++)
    free(t->flags[i]);
  for (int i = 0; i < t->num_mma; i++)
    free(t->mma[i]);
  memset(t, 0, sizeof *t);
}

int kg_target_list(kg_sandbox_t *sb, kg_diag_t *d) {
  char *names = kg_target_names();
  int rc = 0;
  for (char *p = names; *p && rc == 0;) {
    char *end = strstr(p, ", ");
    if (end)
      *end = '\0';
    kg_target_t t;
    rc = kg_target_load(sb, p, &t, d);
    if (rc == 0)
      printf("%-10s wave%-3d %s\n", t.name, t.wave, t.description ? t.description : "");
    kg_target_free(&t);
    p = end ? end + 2 : p + strlen(p);
  }
  free(names);
  return rc;
}
