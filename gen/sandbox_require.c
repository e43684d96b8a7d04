/* sandbox_require.c - require: kgen's embedded lua/ modules for the
 * library, the model library (lua/models/) and the model's own folder for
 * models; each module runs once, a require loop is an error (see sandbox.h).
 * Needs: Lua 5.4, res.h (the embedded files), userfile.h (files in the
 * model's folder), sandbox_internal.h.
 * Gives: kg_sb_require, kg_sb_require_lib. */
#include <string.h>

#include <lauxlib.h>

#include "res.h"
#include "sandbox_internal.h"
#include "userfile.h"

/* ^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$ */
static int module_name_ok(const char *s) {
  for (;;) {
    if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_'))
      return 0;
    while ((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
           (*s >= '0' && *s <= '9') || *s == '_')
      s++;
    if (*s == '\0')
      return 1;
    if (*s++ != '.')
      return 0;
  }
}

/* Pushes the contents of the user file `path`: a regular file that resolves
 * inside the model's folder. The buffer is a userdata made before the file
 * opens (kg_userfile_check, then kg_userfile_read), so no Lua error can leak
 * a descriptor; the resolved path is a Lua string for the same reason. */
static int push_user_file(lua_State *L, const char *name, const char *res_path,
                          const char *path) {
  kg_sandbox_t *sb = kg_sb_of(L);
  if (!sb->module_root)
    return luaL_error(L, "module '%s': the model's folder cannot be resolved", name);
  kg_userfile_t f;
  kg_userfile_status_t st =
      kg_userfile_check(&f, path, sb->module_root, KG_SB_SOURCE_MAX);
  kg_userfile_free(&f); /* f.why stays */
  const char *why = f.why;
  switch (st) {
  case KG_USERFILE_OK:
    break;
  case KG_USERFILE_MISSING:
    return luaL_error(L,
                      "module '%s' not found (kgen's lua/ has no %s; %s does not exist)",
                      name, res_path, path);
  case KG_USERFILE_TOO_LARGE:
    return luaL_error(L, "module '%s': %s is more than %d MiB (the most kgen reads)",
                      name, path, (int)(KG_SB_SOURCE_MAX >> 20));
  case KG_USERFILE_OUTSIDE:
    return luaL_error(L, "module '%s': %s %s", name, path, why);
  case KG_USERFILE_SPECIAL:
    return luaL_error(L, "module '%s': %s is %s", name, path, why);
  default:
    return luaL_error(L, "module '%s': cannot read %s: %s", name, path, why);
  }
  char *data = lua_newuserdatauv(L, f.size + 1, 0);
  st = kg_userfile_check(&f, path, sb->module_root, KG_SB_SOURCE_MAX);
  if (st == KG_USERFILE_OK)
    st = kg_userfile_read(&f, data);
  const size_t size = f.size;
  const size_t cap = lua_rawlen(L, -1) - 1;
  kg_userfile_free(&f);
  if (st != KG_USERFILE_OK || size > cap)
    return luaL_error(L, "module '%s': cannot read %s: %s", name, path,
                      size > cap ? "it changed size while kgen read it" : f.why);
  lua_pushlstring(L, data, size);
  lua_remove(L, -2);
  return 0;
}

/* Checks the module name at 1 and pushes "lua/<a/b>.lua" (its resource
 * path) and "<a/b>.lua"; returns the resource path. */
static const char *module_paths(lua_State *L, const char **rel) {
  const char *name = luaL_checkstring(L, 1);
  lua_settop(L, 1);
  if (!module_name_ok(name))
    luaL_error(L,
               "require: '%s' is not a module name (use dotted names such as "
               "\"ops.norm\": letters, digits and _ between dots)",
               name);
  *rel = lua_pushfstring(L, "%s.lua", luaL_gsub(L, name, ".", "/")); /* 2, 3 */
  lua_remove(L, 2);
  return lua_pushfstring(L, "lua/%s", *rel); /* 3 */
}

/* A module's entry in its cache while its chunk runs: a require of it
 * before the chunk returns is a loop. */
static const char loading_mark = 0;

/* __close of the guard run_module holds while a chunk runs (upvalue 1 the
 * cache table, 2 the name): an error unwinding it takes the module's
 * loading mark away again. */
static int loading_close(lua_State *L) {
  lua_pushvalue(L, lua_upvalueindex(2));
  if (lua_rawget(L, lua_upvalueindex(1)) == LUA_TLIGHTUSERDATA &&
      lua_touserdata(L, -1) == &loading_mark) {
    lua_pushvalue(L, lua_upvalueindex(2));
    lua_pushnil(L);
    lua_rawset(L, lua_upvalueindex(1));
  }
  return 0;
}

/* Runs the loaded chunk on top with (name, path), caches its value (true
 * when it returns nothing) in the registry table `cache` and returns it.
 * While it runs the cache holds the loading mark. */
static int run_module(lua_State *L, const char *cache, int path_idx) {
  const int chunk = lua_gettop(L);
  lua_getfield(L, LUA_REGISTRYINDEX, cache); /* chunk + 1 */
  lua_pushvalue(L, 1);
  lua_pushlightuserdata(L, (void *)&loading_mark);
  lua_rawset(L, chunk + 1);
  lua_newtable(L); /* chunk + 2: the guard, closed on return or error */
  lua_createtable(L, 0, 1);
  lua_pushvalue(L, chunk + 1);
  lua_pushvalue(L, 1);
  lua_pushcclosure(L, loading_close, 2);
  lua_setfield(L, -2, "__close");
  lua_setmetatable(L, -2);
  lua_toclose(L, chunk + 2);
  lua_pushvalue(L, chunk);
  lua_pushvalue(L, 1);
  lua_pushvalue(L, path_idx);
  lua_call(L, 2, 1);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    lua_pushboolean(L, 1);
  }
  lua_pushvalue(L, 1);
  lua_pushvalue(L, -2);
  lua_rawset(L, chunk + 1);
  return 1;
}

/* Pushes the cached value of module 1 in registry table `cache`; 0 when
 * there is none (nothing pushed). A module still loading is a require
 * loop: an error. */
static int cached_module(lua_State *L, const char *cache) {
  lua_getfield(L, LUA_REGISTRYINDEX, cache);
  lua_pushvalue(L, 1);
  if (lua_rawget(L, -2) != LUA_TNIL) {
    if (lua_touserdata(L, -1) == &loading_mark)
      return luaL_error(L,
                        "require: module '%s' is required again while it loads (a "
                        "require loop)",
                        lua_tostring(L, 1));
    lua_remove(L, -2);
    return 1;
  }
  lua_pop(L, 2);
  return 0;
}

/* require(name) as kgen's lua/ library sees it: the embedded lua/<a/b>.lua
 * only, run once, with the library's own _ENV (a copy of the standard
 * globals taken before any model ran, so what a model does to its globals
 * never reaches the library). Chunks are named "=kgen:lua/...". */
int kg_sb_require_lib(lua_State *L) {
  const char *rel;
  const char *res_path = module_paths(L, &rel); /* 2 rel, 3 res path */
  if (cached_module(L, KG_SB_LOADED))
    return 1;
  const kg_res_t *r = kg_res_find(res_path);
  if (!r)
    return luaL_error(L, "module '%s' not found (kgen's lua/ has no %s)",
                      lua_tostring(L, 1), res_path);
  const char *chunk = lua_pushfstring(L, "=kgen:%s", res_path); /* 4 */
  if (luaL_loadbufferx(L, r->data, r->size, chunk, "t") != LUA_OK)
    return luaL_error(L, "kgen's %s does not load: %s", res_path, lua_tostring(L, -1));
  lua_getfield(L, LUA_REGISTRYINDEX, KG_SB_LIBENV);
  if (!lua_setupvalue(L, -2, 1))
    lua_pop(L, 1);
  return run_module(L, KG_SB_LOADED, 3);
}

/* The model library (lua/models/): Lua written against the DSL's public
 * names only, so a model may load it; it runs as the model's own code (the
 * model's globals, the model's caps), never with the library's _ENV.
 * Chunks are named "=kgen:lua/models/...", so errors point at the model's
 * line that called in. */
static int require_model_library(lua_State *L, const kg_res_t *r, const char *res_path) {
  if (cached_module(L, KG_SB_USERLOADED))
    return 1;
  const char *chunk = lua_pushfstring(L, "=kgen:%s", res_path); /* 4 */
  if (luaL_loadbufferx(L, r->data, r->size, chunk, "t") != LUA_OK)
    return luaL_error(L, "kgen's %s does not load: %s", res_path, lua_tostring(L, -1));
  return run_module(L, KG_SB_USERLOADED, 3);
}

/* require(name) as a model sees it: the model library (models.*), or
 * <folder of the model>/a/b.lua, run once. kgen's other modules are not
 * available: a model reaches the DSL through its globals only. User chunks
 * are named "@path". */
int kg_sb_require(lua_State *L) {
  kg_sandbox_t *sb = kg_sb_of(L);
  const char *rel;
  const char *res_path = module_paths(L, &rel); /* 2 rel, 3 res path */
  const kg_res_t *res = kg_res_find(res_path);
  if (res && strncmp(res_path, "lua/models/", 11) == 0)
    return require_model_library(L, res, res_path);
  if (res)
    return luaL_error(L,
                      "require: '%s' is one of kgen's own modules; a model uses the "
                      "DSL through its globals (input, weight, output, sym and the ops "
                      "that kgen --list-ops lists)",
                      lua_tostring(L, 1));
  if (cached_module(L, KG_SB_USERLOADED))
    return 1;
  if (!sb->module_dir)
    return luaL_error(L, "module '%s' not found (kgen's lua/ has no %s)",
                      lua_tostring(L, 1), res_path);
  const char *path = lua_pushfstring(L, "%s%s", sb->module_dir, rel); /* 4 */
  push_user_file(L, lua_tostring(L, 1), res_path, path);              /* 5 */
  lua_getfield(L, LUA_REGISTRYINDEX, KG_SB_USERFILES);
  lua_pushboolean(L, 1);
  lua_setfield(L, -2, path);
  lua_pop(L, 1);
  size_t len;
  const char *src = lua_tolstring(L, 5, &len);
  const char *chunk = lua_pushfstring(L, "@%s", path); /* 6 */
  int status = luaL_loadbufferx(L, src, len, chunk, "t");
  if (status != LUA_OK) {
    /* restate the position with the full path (Lua may shorten it) */
    const char *msg = lua_tostring(L, -1);
    size_t chunk_len;
    int line = 0;
    char id[LUA_IDSIZE];
    size_t skip = kg_sb_prefix_of(msg, id, kg_sb_chunk_id(path, strlen(path), id), &line);
    if (skip == 0)
      skip = kg_sb_position_prefix(msg, &chunk_len, &line);
    if (status == LUA_ERRSYNTAX && skip > 0)
      lua_pushfstring(L, "%s:%d: %s", path, line, msg + skip);
    return lua_error(L);
  }
  return run_module(L, KG_SB_USERLOADED, 4);
}
