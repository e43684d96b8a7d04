/* sandbox_lib.c - the standard library as models see it: deterministic
 * tostring, print, pairs, table.sort, string.format, load of text chunks
 * only, no __gc, a fixed random seed; the globals' seal; and the setup of a
 * new state (the library's own _ENV, the model's copies of the library
 * tables, the registry tables require uses). See sandbox.h.
 * Needs: Lua 5.4, defines.h (--define's readers), sandbox_internal.h.
 * Gives: kg_sb_setup, kg_sb_seal_globals. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include "defines.h"
#include "sandbox_internal.h"

#define KG_SB_SEED 0x6b67656e /* math.random's fixed seed ("kgen") */

/* Pushes the text of the value at idx: tostring without addresses. */
static const char *to_text(lua_State *L, int idx, size_t *len) {
  idx = lua_absindex(L, idx);
  if (luaL_getmetafield(L, idx, "__tostring") != LUA_TNIL) {
    lua_pop(L, 1);
    return luaL_tolstring(L, idx, len);
  }
  switch (lua_type(L, idx)) {
  case LUA_TTABLE:
  case LUA_TFUNCTION:
  case LUA_TUSERDATA:
  case LUA_TLIGHTUSERDATA:
  case LUA_TTHREAD: {
    int t = luaL_getmetafield(L, idx, "__name");
    if (t == LUA_TSTRING)
      return lua_tolstring(L, -1, len);
    if (t != LUA_TNIL)
      lua_pop(L, 1);
    lua_pushstring(L, luaL_typename(L, idx));
    return lua_tolstring(L, -1, len);
  }
  default:
    return luaL_tolstring(L, idx, len);
  }
}

static int sb_tostring(lua_State *L) {
  luaL_checkany(L, 1);
  to_text(L, 1, NULL);
  return 1;
}

/* Pushes the text of the value at idx with what could drive the terminal
 * (control bytes, tabs and newlines included) written as \xNN
 * (kg_escape_unit). */
static void push_escaped(lua_State *L, int idx) {
  size_t len;
  const char *s = to_text(L, idx, &len); /* stays on the stack below b */
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  for (size_t at = 0; at < len;) {
    char unit[4];
    size_t unit_len;
    at += kg_escape_unit(s + at, len - at, unit, &unit_len);
    luaL_addlstring(&b, unit, unit_len);
  }
  luaL_pushresult(&b);
  lua_remove(L, -2);
}

/* print(...): one tab-separated line on stderr, each argument escaped. */
static int sb_print(lua_State *L) {
  int n = lua_gettop(L);
  for (int i = 1; i <= n; i++) {
    push_escaped(L, i);
    lua_replace(L, i);
  }
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  for (int i = 1; i <= n; i++) {
    if (i > 1)
      luaL_addchar(&b, '\t');
    lua_pushvalue(L, i);
    luaL_addvalue(&b);
  }
  luaL_addchar(&b, '\n');
  luaL_pushresult(&b);
  size_t len;
  const char *s = lua_tolstring(L, -1, &len);
  fwrite(s, 1, len, stderr);
  fflush(stderr);
  return 0;
}

/* A key of pairs' snapshot: kind orders numbers < strings < booleans. */
typedef struct sorted_key {
  int kind; /* 0 integer, 1 float, 2 string, 3 boolean */
  lua_Integer i;
  lua_Number f;
  const char *s;
  size_t len;
  int slot; /* index in the snapshot table */
} sorted_key_t;

static int int_float_cmp(lua_Integer i, lua_Number f) {
  if (f >= 0x1p63)
    return -1;
  if (f < -0x1p63)
    return 1;
  lua_Number fl = floor(f);
  lua_Integer fi = (lua_Integer)fl;
  if (i != fi)
    return i < fi ? -1 : 1;
  return fl == f ? 0 : -1;
}

static int key_cmp(const void *pa, const void *pb) {
  const sorted_key_t *a = pa, *b = pb;
  int ra = a->kind <= 1 ? 0 : a->kind - 1, rb = b->kind <= 1 ? 0 : b->kind - 1;
  if (ra != rb)
    return ra < rb ? -1 : 1;
  if (ra == 0) {
    int c;
    if (a->kind == 0 && b->kind == 0)
      c = (a->i > b->i) - (a->i < b->i);
    else if (a->kind == 1 && b->kind == 1)
      c = (a->f > b->f) - (a->f < b->f);
    else if (a->kind == 0)
      c = int_float_cmp(a->i, b->f);
    else
      c = -int_float_cmp(b->i, a->f);
    return c != 0 ? c : a->kind - b->kind;
  }
  if (ra == 1) {
    size_t n = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->s, b->s, n);
    if (c != 0)
      return c;
    return (a->len > b->len) - (a->len < b->len);
  }
  return (int)a->i - (int)b->i;
}

/* The iterator pairs returns: upvalue 1 holds the sorted keys, upvalue 2 the
 * position. Keys whose value became nil during the loop are skipped. */
static int sorted_next(lua_State *L) {
  lua_Integer pos = lua_tointeger(L, lua_upvalueindex(2));
  for (;;) {
    if (lua_rawgeti(L, lua_upvalueindex(1), ++pos) == LUA_TNIL)
      return 1;
    lua_pushvalue(L, -1);
    if (lua_rawget(L, 1) != LUA_TNIL)
      break;
    lua_pop(L, 2);
  }
  lua_pushinteger(L, pos);
  lua_replace(L, lua_upvalueindex(2));
  return 2;
}

/* pairs(t): __pairs if t has one, else t's keys in sorted order. */
static int sb_pairs(lua_State *L) {
  if (luaL_getmetafield(L, 1, "__pairs") != LUA_TNIL) {
    lua_pushvalue(L, 1);
    lua_call(L, 1, 3);
    return 3;
  }
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_settop(L, 1);
  lua_newtable(L); /* 2: the keys, in next's order */
  int n = 0;
  lua_pushnil(L);
  while (lua_next(L, 1)) {
    lua_pop(L, 1);
    int t = lua_type(L, -1);
    if (t != LUA_TNUMBER && t != LUA_TSTRING && t != LUA_TBOOLEAN)
      return luaL_error(L,
                        "pairs: table keys of type %s have no deterministic order; "
                        "use an array",
                        luaL_typename(L, -1));
    lua_pushvalue(L, -1);
    lua_rawseti(L, 2, ++n);
  }
  sorted_key_t *keys = lua_newuserdatauv(L, (size_t)n * sizeof *keys + 1, 0); /* 3 */
  for (int i = 0; i < n; i++) {
    sorted_key_t *k = &keys[i];
    memset(k, 0, sizeof *k);
    k->slot = i + 1;
    switch (lua_rawgeti(L, 2, i + 1)) {
    case LUA_TNUMBER:
      if (lua_isinteger(L, -1)) {
        k->i = lua_tointeger(L, -1);
      } else {
        k->kind = 1;
        k->f = lua_tonumber(L, -1);
      }
      break;
    case LUA_TSTRING: /* the string stays alive in table 2 */
      k->kind = 2;
      k->s = lua_tolstring(L, -1, &k->len);
      break;
    default:
      k->kind = 3;
      k->i = lua_toboolean(L, -1);
      break;
    }
    lua_pop(L, 1);
  }
  qsort(keys, (size_t)n, sizeof *keys, key_cmp);
  lua_createtable(L, n, 0); /* 4: the keys, sorted */
  for (int i = 0; i < n; i++) {
    lua_rawgeti(L, 2, keys[i].slot);
    lua_rawseti(L, 4, i + 1);
  }
  lua_pushinteger(L, 0);
  lua_pushcclosure(L, sorted_next, 2);
  lua_pushvalue(L, 1);
  lua_pushnil(L);
  return 3;
}

/* a < b under table.sort's rules: comp(a, b) when given, else the < operator.
 * a and b are the two values on top; pops them. */
static int sort_less(lua_State *L, int comp) {
  if (comp) {
    lua_pushvalue(L, comp);
    lua_rotate(L, -3, 1);
    lua_call(L, 2, 1);
  } else {
    int lt = lua_compare(L, -2, -1, LUA_OPLT);
    lua_pop(L, 2);
    lua_pushboolean(L, lt);
  }
  int r = lua_toboolean(L, -1);
  lua_pop(L, 1);
  return r;
}

/* table.sort(t [, comp]): a stable merge sort. Lua's own quicksort picks
 * pivots from the clock on bad inputs, so equal elements would land in an
 * order that changes from run to run. */
static int sb_sort(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_Integer n = luaL_len(L, 1);
  luaL_argcheck(L, n < INT_MAX / 2, 1, "array too big");
  int comp = 0;
  if (!lua_isnoneornil(L, 2)) {
    luaL_checktype(L, 2, LUA_TFUNCTION);
    comp = 2;
  }
  if (n < 2)
    return 0;
  lua_settop(L, 2);
  lua_createtable(L, (int)n, 0); /* 3 */
  lua_createtable(L, (int)n, 0); /* 4 */
  for (lua_Integer i = 1; i <= n; i++) {
    lua_geti(L, 1, i);
    lua_rawseti(L, 3, i);
  }
  int src = 3, dst = 4;
  for (lua_Integer width = 1; width < n; width *= 2) {
    for (lua_Integer lo = 1; lo <= n; lo += 2 * width) {
      lua_Integer mid = lo + width < n + 1 ? lo + width : n + 1;
      lua_Integer hi = lo + 2 * width < n + 1 ? lo + 2 * width : n + 1;
      lua_Integer a = lo, b = mid, out = lo;
      while (a < mid && b < hi) {
        lua_rawgeti(L, src, b);
        lua_rawgeti(L, src, a);
        lua_Integer take = sort_less(L, comp) ? b++ : a++;
        lua_rawgeti(L, src, take);
        lua_rawseti(L, dst, out++);
      }
      for (; a < mid; a++) {
        lua_rawgeti(L, src, a);
        lua_rawseti(L, dst, out++);
      }
      for (; b < hi; b++) {
        lua_rawgeti(L, src, b);
        lua_rawseti(L, dst, out++);
      }
    }
    int t = src;
    src = dst;
    dst = t;
  }
  for (lua_Integer i = 1; i <= n; i++) {
    lua_rawgeti(L, src, i);
    lua_seti(L, 1, i);
  }
  return 0;
}

/* load(chunk [, name [, mode [, env]]]) for text chunks only. */
static int sb_load(lua_State *L) {
  int n = lua_gettop(L);
  size_t len;
  const char *s = lua_type(L, 1) == LUA_TSTRING ? lua_tolstring(L, 1, &len) : NULL;
  if (s && len > 0 && s[0] == LUA_SIGNATURE[0]) {
    lua_pushnil(L);
    lua_pushliteral(
        L, "load: binary chunks are not allowed (kgen loads Lua source text only)");
    return 2;
  }
  if (!s)
    luaL_checktype(L, 1, LUA_TFUNCTION);
  const char *name = luaL_optstring(L, 2, NULL);
  if (name && (name[0] == '@' || name[0] == '=')) {
    /* "@file" names a user file in messages, "=..." kgen's own chunks: a
     * model's chunk claims neither (Lua shows it as [string "file"]) */
    while (name[0] == '@' || name[0] == '=')
      name++;
    lua_pushstring(L, name);
    lua_replace(L, 2);
  }
  if (n >= 3 && !lua_isnil(L, 3)) {
    const char *mode = luaL_checkstring(L, 3);
    if (!strchr(mode, 't'))
      return luaL_error(L, "load: mode '%s' is not allowed (kgen loads text chunks only)",
                        mode);
  }
  if (n < 3)
    lua_settop(L, 3); /* keeps env (4) absent */
  lua_pushliteral(L, "t");
  lua_replace(L, 3);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

/* C functions that can run for long or allocate much (string.find, match,
 * gmatch, gsub, rep, table.concat): note the caller's line first, since a
 * pathological pattern can run for minutes without returning to the VM (the
 * watchdog then reports that line) and a memory error does not run the
 * message handler (kg_sb_report uses that line). The wrapped functions use no
 * upvalues of their own, so calling them in this frame is exact, argument
 * errors included. */
static int sb_noted_call(lua_State *L) {
  kg_sb_note_user_line(kg_sb_of(L), L, 1);
  return lua_tocfunction(L, lua_upvalueindex(1))(L);
}

/* string.format: %s of a table, function... gives tostring's text (no
 * address); %p is refused. */
static int sb_format(lua_State *L) {
  kg_sb_note_user_line(kg_sb_of(L), L, 1);
  size_t len;
  const char *fmt = luaL_checklstring(L, 1, &len);
  int arg = 1;
  for (size_t i = 0; i < len; i++) {
    if (fmt[i] != '%')
      continue;
    if (fmt[++i] == '%')
      continue;
    while (i < len && fmt[i] != '\0' && strchr("-+ #0123456789.", fmt[i]))
      i++;
    arg++;
    if (i >= len)
      break;
    if (fmt[i] == 'p')
      return luaL_error(L, "string.format: '%%p' shows an address, which changes from "
                           "run to run");
    if (fmt[i] == 's' && arg <= lua_gettop(L)) {
      to_text(L, arg, NULL);
      lua_replace(L, arg);
    }
  }
  return lua_tocfunction(L, lua_upvalueindex(1))(L);
}

/* setmetatable: no __gc. Finalizers run whenever the collector gets to
 * them, so what they do would change from run to run. */
static int sb_setmetatable(lua_State *L) {
  if (lua_type(L, 2) == LUA_TTABLE) {
    lua_pushliteral(L, "__gc");
    int gc = lua_rawget(L, 2) != LUA_TNIL;
    lua_pop(L, 1);
    if (gc)
      return luaL_error(L,
                        "setmetatable: __gc metamethods are not allowed (finalizers run "
                        "at times that change from run to run)");
  }
  return lua_tocfunction(L, lua_upvalueindex(1))(L);
}

static int sb_randomseed(lua_State *L) {
  if (lua_gettop(L) == 0)
    return luaL_error(L, "math.randomseed: without arguments it seeds from the clock, "
                         "which is not deterministic; pass a seed");
  luaL_checkinteger(L, 1);
  luaL_optinteger(L, 2, 0);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

/* newproxy(mt): a new empty userdata with metatable mt, for the library's
 * handles (a model cannot rawset or next() through a userdata). */
static int sb_newproxy(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_newuserdatauv(L, 0, 0);
  lua_pushvalue(L, 1);
  lua_setmetatable(L, -2);
  return 1;
}

/* kg_where(): the file and line of the innermost user frame, or nothing. */
static int sb_where(lua_State *L) {
  lua_Debug ar;
  for (int level = 1; lua_getstack(L, level, &ar); level++) {
    if (lua_getinfo(L, "Sl", &ar) && ar.source[0] == '@' && ar.currentline > 0) {
      lua_pushstring(L, ar.source + 1);
      lua_pushinteger(L, ar.currentline);
      return 2;
    }
  }
  return 0;
}

/* kg_context(file, line): the model's op whose rule (a template's params)
 * the library runs for kgen's C now, for the errors it raises; kg_context()
 * clears it (so does the end of the call from C). */
static int sb_context(lua_State *L) {
  kg_sandbox_t *sb = kg_sb_of(L);
  if (lua_type(L, 1) == LUA_TSTRING) {
    snprintf(sb->context_file, sizeof sb->context_file, "%s", lua_tostring(L, 1));
    sb->context_line = (int)luaL_optinteger(L, 2, 0);
  } else {
    sb->context_file[0] = '\0';
  }
  return 0;
}

/* The edit distance of a and b (each at most 64 bytes; longer: far). */
static int edit_distance(const char *a, const char *b) {
  size_t na = strlen(a), nb = strlen(b);
  if (na > 64 || nb > 64)
    return INT_MAX;
  int row[65];
  for (size_t j = 0; j <= nb; j++)
    row[j] = (int)j;
  for (size_t i = 1; i <= na; i++) {
    int diag = row[0];
    row[0] = (int)i;
    for (size_t j = 1; j <= nb; j++) {
      int up = row[j];
      int best = diag + (a[i - 1] != b[j - 1]);
      if (row[j] + 1 < best)
        best = row[j] + 1;
      if (row[j - 1] + 1 < best)
        best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  return row[nb];
}

/* __index of the model's globals: reading a name that is not there (a
 * misspelt op, most often) is an error that says so, with the closest
 * function name when one is close. */
static int sb_unknown_global(lua_State *L) {
  if (lua_type(L, 2) != LUA_TSTRING)
    return 0;
  const char *name = lua_tostring(L, 2);
  const char *best = NULL;
  int best_d = INT_MAX;
  lua_pushnil(L);
  while (lua_next(L, 1)) {
    if (lua_type(L, -2) == LUA_TSTRING && lua_type(L, -1) == LUA_TFUNCTION) {
      const char *cand = lua_tostring(L, -2);
      int dist = edit_distance(name, cand);
      if (dist < best_d || (dist == best_d && best && strcmp(cand, best) < 0)) {
        best_d = dist;
        best = cand; /* alive: a key of the globals, which we do not change */
      }
    }
    lua_pop(L, 1);
  }
  size_t len = strlen(name);
  if (best && best_d <= (len < 6 ? 1 : 2))
    return luaL_error(L,
                      "%s is not an op or a global (did you mean %s? kgen --list-ops "
                      "lists the ops)",
                      name, best);
  return luaL_error(L, "%s is not an op or a global (kgen --list-ops lists the ops)",
                    name);
}

int kg_sb_seal_globals(lua_State *L) {
  lua_pushglobaltable(L);
  lua_createtable(L, 0, 2);
  lua_pushcfunction(L, sb_unknown_global);
  lua_setfield(L, -2, "__index");
  lua_pushboolean(L, 0);
  lua_setfield(L, -2, "__metatable");
  lua_setmetatable(L, -2);
  return 0;
}

static void wrap_field(lua_State *L, const char *name, lua_CFunction f) {
  lua_getfield(L, -1, name);
  lua_pushcclosure(L, f, 1);
  lua_setfield(L, -2, name);
}

/* Opens the allowed libraries and puts the sandbox's versions in place.
 * Runs protected: argument 1 is the sandbox. */
int kg_sb_setup(lua_State *L) {
  kg_sandbox_t *sb = lua_touserdata(L, 1);
  static const luaL_Reg libs[] = {
      {LUA_GNAME, luaopen_base},       {LUA_STRLIBNAME, luaopen_string},
      {LUA_TABLIBNAME, luaopen_table}, {LUA_MATHLIBNAME, luaopen_math},
      {LUA_UTF8LIBNAME, luaopen_utf8}, {NULL, NULL},
  };
  for (const luaL_Reg *lib = libs; lib->name; lib++) {
    luaL_requiref(L, lib->name, lib->func, 1);
    lua_pop(L, 1);
  }
  static const char *const removed[] = {"dofile", "loadfile", "collectgarbage", NULL};
  for (const char *const *name = removed; *name; name++) {
    lua_pushnil(L);
    lua_setglobal(L, *name);
  }
  lua_pushcfunction(L, sb_print);
  lua_setglobal(L, "print");
  lua_pushcfunction(L, sb_tostring);
  lua_setglobal(L, "tostring");
  lua_pushcfunction(L, sb_pairs);
  lua_setglobal(L, "pairs");
  lua_pushcfunction(L, kg_sb_require);
  lua_setglobal(L, "require");
  lua_getglobal(L, "load");
  lua_pushcclosure(L, sb_load, 1);
  lua_setglobal(L, "load");
  lua_getglobal(L, "setmetatable");
  lua_pushcclosure(L, sb_setmetatable, 1);
  lua_setglobal(L, "setmetatable");

  lua_getglobal(L, LUA_STRLIBNAME);
  lua_pushnil(L);
  lua_setfield(L, -2, "dump");
  wrap_field(L, "format", sb_format);
  static const char *const noted[] = {"find", "match", "gmatch", "gsub", "rep", NULL};
  for (const char *const *name = noted; *name; name++)
    wrap_field(L, *name, sb_noted_call);
  lua_pop(L, 1);

  lua_getglobal(L, LUA_TABLIBNAME);
  wrap_field(L, "concat", sb_noted_call);
  lua_pushcfunction(L, sb_sort);
  lua_setfield(L, -2, "sort");
  lua_pop(L, 1);

  lua_getglobal(L, LUA_MATHLIBNAME);
  lua_getfield(L, -1, "randomseed");
  lua_pushinteger(L, KG_SB_SEED);
  lua_call(L, 1, 0);
  wrap_field(L, "randomseed", sb_randomseed);
  lua_pop(L, 1);

  /* string methods ("s:rep(3)") find the original string table through the
   * strings' metatable: locked, so that a model cannot reach it */
  lua_pushliteral(L, "");
  lua_getmetatable(L, -1);
  lua_pushboolean(L, 0);
  lua_setfield(L, -2, "__metatable");
  lua_pop(L, 2);

  /* the library's _ENV: the globals as they are now, the library tables
   * themselves; the model's globals: the same functions, with copies of the
   * library tables, so that a model replacing math.type changes its own copy */
  lua_newtable(L); /* the library's env */
  const int lib = lua_gettop(L);
  lua_pushglobaltable(L);
  const int env = lua_gettop(L);
  lua_pushnil(L);
  while (lua_next(L, env)) {
    lua_pushvalue(L, -2);
    lua_pushvalue(L, -2);
    lua_rawset(L, lib);
    if (lua_type(L, -1) == LUA_TTABLE && !lua_rawequal(L, -1, env)) {
      lua_newtable(L);
      lua_pushnil(L);
      while (lua_next(L, -3)) {
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, -4);
      }
      lua_pushvalue(L, -3);
      lua_insert(L, -2);
      lua_rawset(L, env); /* env[key] = copy: an existing key, next goes on */
    }
    lua_pop(L, 1);
  }
  lua_pushvalue(L, lib);
  lua_setfield(L, lib, "_G");
  lua_pushcfunction(L, kg_sb_require_lib);
  lua_setfield(L, lib, "require");
  lua_pushcfunction(L, sb_newproxy);
  lua_setfield(L, lib, "newproxy");
  lua_pushcfunction(L, sb_where);
  lua_setfield(L, lib, "kg_where");
  lua_pushcfunction(L, sb_context);
  lua_setfield(L, lib, "kg_context");
  kg_defines_setup(L, lib, sb->opts.num_defines, sb->opts.define_names,
                   sb->opts.define_values);
  lua_pop(L, 1);
  lua_setfield(L, LUA_REGISTRYINDEX, KG_SB_LIBENV);

  lua_newtable(L);
  lua_setfield(L, LUA_REGISTRYINDEX, KG_SB_LOADED);
  lua_newtable(L);
  lua_setfield(L, LUA_REGISTRYINDEX, KG_SB_USERLOADED);
  lua_newtable(L);
  if (sb->model_path) {
    lua_pushboolean(L, 1);
    lua_setfield(L, -2, sb->model_path);
  }
  lua_setfield(L, LUA_REGISTRYINDEX, KG_SB_USERFILES);
  return 0;
}
