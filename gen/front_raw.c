/* front_raw.c - the front end's checked, raw reads of Lua tables: fields
 * without metamethods, identifiers and code fragments checked by their
 * characters, ids and ordinals in range.
 * Needs: Lua 5.4, diag.h, ir.h.
 * Gives: kg_front_is_ident, kg_front_is_code, kg_front_field and the other
 * readers front_internal.h lists. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <lua.h>

#include "buf.h"
#include "front_internal.h"

/* C identifier, at most KG_FRONT_MAX_NAME bytes. */
int kg_front_is_ident(const char *s, size_t len) {
  if (len == 0 || len > KG_FRONT_MAX_NAME)
    return 0;
  for (size_t i = 0; i < len; i++) {
    char c = s[i];
    int alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!alpha && !(i > 0 && c >= '0' && c <= '9'))
      return 0;
  }
  return 1;
}

/* A code fragment kgen splices into kernel source (a node's expression, a
 * hole's value): C expression text only. Identifiers, numbers, operators,
 * brackets, spaces and line breaks; no preprocessor (#), no statements or
 * blocks (; { }), no comments, no character or string literals but the empty
 * "" of __builtin_nanf(""). */
int kg_front_is_code(const char *s, size_t len) {
  if (len > KG_FRONT_MAX_CODE)
    return 0;
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
        c == '_')
      continue;
    if (c == '/' && i + 1 < len && (s[i + 1] == '/' || s[i + 1] == '*'))
      return 0;
    if (c == '"' && i + 1 < len && s[i + 1] == '"' && i > 0 && s[i - 1] == '(' &&
        i + 2 < len && s[i + 2] == ')') {
      i++;
      continue;
    }
    if (!strchr(" \n\t()[],.+-*/%<>=!&|^~?:$", c) || c == '\0')
      return 0;
  }
  return 1;
}

/* Pushes t[key] of the table at idx without metamethods; its type (LUA_TNIL
 * when idx is not a table). */
int kg_front_field(lua_State *L, int idx, const char *key) {
  if (lua_type(L, idx) != LUA_TTABLE) {
    lua_pushnil(L);
    return LUA_TNIL;
  }
  idx = lua_absindex(L, idx);
  lua_pushstring(L, key);
  return lua_rawget(L, idx);
}

/* The length of the list at idx (0 when not a table). */
lua_Integer kg_front_len(lua_State *L, int idx) {
  return lua_type(L, idx) == LUA_TTABLE ? (lua_Integer)lua_rawlen(L, idx) : 0;
}

/* t[key] as a new string, NULL when absent or not a string; *bad when it is
 * there but not a string. */
char *kg_front_string(lua_State *L, int idx, const char *key) {
  char *s = NULL;
  if (kg_front_field(L, idx, key) == LUA_TSTRING) {
    size_t len;
    const char *v = lua_tolstring(L, -1, &len);
    if (strlen(v) == len)
      s = kg_xstrdup(v);
  }
  lua_pop(L, 1);
  return s;
}

/* t[key] as an identifier (NULL when absent); an error when it is there and
 * not one. */
int kg_front_ident(lua_State *L, int idx, const char *key, const char *what, char **out,
                   kg_diag_t *d) {
  *out = NULL;
  int t = kg_front_field(L, idx, key);
  if (t == LUA_TNIL) {
    lua_pop(L, 1);
    return 0;
  }
  size_t len = 0;
  const char *v = t == LUA_TSTRING ? lua_tolstring(L, -1, &len) : NULL;
  if (!v || !kg_front_is_ident(v, len)) {
    lua_pop(L, 1);
    return kg_error(d, "internal error: %s: %s is not a C identifier of at most %d bytes",
                    what, key, KG_FRONT_MAX_NAME);
  }
  *out = kg_xstrdup(v);
  lua_pop(L, 1);
  return 0;
}

int64_t kg_front_int(lua_State *L, int idx, const char *key, int64_t dflt) {
  kg_front_field(L, idx, key);
  int64_t v = lua_isinteger(L, -1) ? (int64_t)lua_tointeger(L, -1) : dflt;
  lua_pop(L, 1);
  return v;
}

int kg_front_bool(lua_State *L, int idx, const char *key) {
  kg_front_field(L, idx, key);
  int v = lua_type(L, -1) == LUA_TBOOLEAN && lua_toboolean(L, -1);
  lua_pop(L, 1);
  return v;
}

/* The sym ordinal of the sym record at idx, or -1. */
int kg_front_sym(lua_State *L, int idx, const kg_graph_t *g) {
  if (lua_type(L, idx) != LUA_TTABLE)
    return -1;
  int64_t o = kg_front_int(L, idx, "ordinal", -1);
  return o >= 0 && o < g->num_syms ? (int)o : -1;
}

/* The tensor id of the tensor record at idx, or -1. */
int kg_front_tensor(lua_State *L, int idx, const kg_graph_t *g) {
  if (lua_type(L, idx) != LUA_TTABLE)
    return -1;
  int64_t id = kg_front_int(L, idx, "id", -1);
  return id >= 0 && id < g->num_tensors ? (int)id : -1;
}
