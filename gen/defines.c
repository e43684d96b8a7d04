/* defines.c - `--define NAME=VALUE` and the weight-file headers a model may
 * read through it (defines.h). */
#include "defines.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "buf.h"
#include "json.h"
#include "kgrt_weights.h"
#include "userfile.h"

int kg_define_parse(const char *arg, char **out_name, const char **out_value,
                    kg_diag_t *d) {
  *out_name = NULL;
  *out_value = NULL;
  const char *eq = strchr(arg, '=');
  size_t n = eq ? (size_t)(eq - arg) : 0;
  int ident = n > 0 && n <= 64 && (isalpha((unsigned char)arg[0]) || arg[0] == '_');
  for (size_t i = 1; ident && i < n; i++)
    ident = isalnum((unsigned char)arg[i]) || arg[i] == '_';
  if (!ident)
    return kg_error(d, "--define: expected NAME=VALUE with NAME an identifier of at most "
                       "64 bytes");
  const char *value = eq + 1;
  size_t len = strlen(value);
  if (len > KG_DEFINE_VALUE_MAX)
    return kg_error(d, "--define %.*s: the value is %zu bytes, more than %d", (int)n, arg,
                    len, KG_DEFINE_VALUE_MAX);
  for (size_t i = 0; i < len; i++)
    if ((unsigned char)value[i] < 0x20 || value[i] == 0x7f)
      return kg_error(d, "--define %.*s: the value has a control byte", (int)n, arg);
  *out_name = kg_xmalloc(n + 1);
  memcpy(*out_name, arg, n);
  (*out_name)[n] = '\0';
  *out_value = value;
  return 0;
}

/* kg_define(name): the value given for name, or nil. */
static int lib_define(lua_State *L) {
  luaL_checktype(L, 1, LUA_TSTRING);
  lua_pushvalue(L, 1);
  lua_rawget(L, lua_upvalueindex(1));
  if (!lua_isstring(L, -1))
    lua_pushnil(L);
  return 1;
}

static const char *dtype_name(kgrt_dtype_t t) {
  static const char *const names[] = {"f32",  "f16",  "bf16", "i32",
                                      "q8_0", "q4_0", "q4_k", "q6_k"};
  return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : NULL;
}

/* The shortest decimal that reads back as the same f32: the value the
 * file's writer meant (1e-5, not 9.99999974737875e-06). */
static double f32_decimal(double v) {
  char text[32];
  for (int digits = 1; digits <= 9; digits++) {
    snprintf(text, sizeof text, "%.*g", digits, v);
    if (strtof(text, NULL) == (float)v)
      return strtod(text, NULL);
  }
  return v;
}

/* Runs protected: argument 1 the open weights (light userdata); returns the
 * table weights_file gives. */
static int build_info(lua_State *L) {
  const kgrt_weights_t *w = lua_touserdata(L, 1);
  kgrt_error_t err;
  lua_createtable(L, 0, 3);
  lua_pushstring(L, kgrt_weights_format(w) == KGRT_WEIGHTS_FORMAT_GGUF ? "gguf"
                                                                       : "safetensors");
  lua_setfield(L, -2, "format");
  lua_newtable(L); /* meta: scalar keys; arrays are left out */
  for (uint64_t i = 0; i < kgrt_weights_meta_count(w); i++) {
    kgrt_meta_type_t type;
    const char *key = kgrt_weights_meta_key(w, i, &type);
    int64_t iv;
    double fv;
    const char *s;
    size_t len;
    if (key == NULL || type == KGRT_META_ARRAY)
      continue;
    if (type == KGRT_META_STRING) {
      if (kgrt_weights_meta_string(w, key, &s, &len, &err) != KGRT_STATUS_OK)
        continue;
      lua_pushlstring(L, s, len);
    } else if (type == KGRT_META_BOOL) {
      if (kgrt_weights_meta_int(w, key, &iv, &err) != KGRT_STATUS_OK)
        continue;
      lua_pushboolean(L, iv != 0);
    } else if (type == KGRT_META_F32 || type == KGRT_META_F64) {
      if (kgrt_weights_meta_float(w, key, &fv, &err) != KGRT_STATUS_OK)
        continue;
      lua_pushnumber(L, type == KGRT_META_F32 ? f32_decimal(fv) : fv);
    } else {
      if (kgrt_weights_meta_int(w, key, &iv, &err) != KGRT_STATUS_OK)
        continue; /* a u64 past INT64_MAX */
      lua_pushinteger(L, (lua_Integer)iv);
    }
    lua_setfield(L, -2, key);
  }
  lua_setfield(L, -2, "meta");
  const uint32_t count = kgrt_weights_count(w);
  lua_createtable(L, 0, (int)(count < 65536 ? count : 65536));
  for (uint32_t i = 0; i < count; i++) {
    const kgrt_weight_info_t *t = kgrt_weights_at(w, i);
    const char *dt = t != NULL ? dtype_name(t->dtype) : NULL;
    if (dt == NULL)
      continue;
    lua_createtable(L, 0, 2);
    lua_pushstring(L, dt);
    lua_setfield(L, -2, "dtype");
    lua_createtable(L, (int)t->ndim, 0);
    for (uint32_t k = 0; k < t->ndim; k++) {
      lua_pushinteger(L, (lua_Integer)t->shape[k]);
      lua_rawseti(L, -2, (lua_Integer)k + 1);
    }
    lua_setfield(L, -2, "shape");
    lua_setfield(L, -2, t->name);
  }
  lua_setfield(L, -2, "tensors");
  return 1;
}

/* The value given for the name at 1 (a file's path), or NULL. */
static const char *given_path(lua_State *L) {
  luaL_checktype(L, 1, LUA_TSTRING);
  lua_pushvalue(L, 1);
  lua_rawget(L, lua_upvalueindex(1));
  return lua_tostring(L, -1);
}

/* A reader's answer for a name the command line did not give. */
static int not_given(lua_State *L) {
  lua_pushnil(L);
  lua_pushstring(L, "not given");
  return 2;
}

/* kg_weights_file(name): the header of the file given as name's value, or
 * nil and why. */
static int lib_weights_file(lua_State *L) {
  const char *path = given_path(L);
  if (path == NULL)
    return not_given(L);
  /* a regular file only: opening a FIFO would wait for a writer */
  kg_userfile_t f;
  const kg_userfile_status_t st = kg_userfile_check(&f, path, NULL, SIZE_MAX);
  kg_userfile_free(&f);
  if (st != KG_USERFILE_OK) {
    lua_pushnil(L);
    lua_pushfstring(L, "%s: %s", path, f.why);
    return 2;
  }
  kgrt_weights_t *w = NULL;
  kgrt_error_t err;
  if (kgrt_weights_open(path, NULL, &w, &err) != KGRT_STATUS_OK) {
    lua_pushnil(L);
    lua_pushstring(L, err.message);
    return 2;
  }
  lua_pushcfunction(L, build_info);
  lua_pushlightuserdata(L, w);
  const int status = lua_pcall(L, 1, 1, 0);
  kgrt_weights_close(w); /* before any error goes on */
  if (status != LUA_OK)
    return lua_error(L);
  return 1;
}

/* kg_json_file(name): the value of the JSON file given as name's value, or
 * nil and why. */
static int lib_json_file(lua_State *L) {
  const char *path = given_path(L);
  if (path == NULL)
    return not_given(L);
  /* sized first, and the buffer taken before the file is open, so a Lua
   * error (memory) leaves nothing open; a regular file only (not a pipe or
   * /dev/zero) */
  kg_userfile_t f;
  kg_userfile_status_t st = kg_userfile_check(&f, path, NULL, KG_JSON_FILE_MAX);
  kg_userfile_free(&f);
  if (st != KG_USERFILE_OK) {
    lua_pushnil(L);
    lua_pushfstring(L, "%s: %s", path,
                    st == KG_USERFILE_TOO_LARGE ? "more than 1 MiB (the most kgen reads)"
                                                : f.why);
    return 2;
  }
  char *text = lua_newuserdatauv(L, f.size + 1, 0);
  const size_t cap = f.size;
  st = kg_userfile_check(&f, path, NULL, cap);
  if (st == KG_USERFILE_OK)
    st = kg_userfile_read(&f, text);
  kg_userfile_free(&f);
  const size_t len = f.size;
  if (st != KG_USERFILE_OK) {
    lua_pushnil(L);
    lua_pushfstring(L, "%s: cannot read it whole (%s)", path, f.why);
    return 2;
  }
  char why[160];
  if (kg_json_push(L, text, len, why, sizeof why) != 0) {
    lua_pushnil(L);
    lua_pushfstring(L, "%s: %s", path, why);
    return 2;
  }
  return 1;
}

void kg_defines_setup(lua_State *L, int lib, int num, const char *const *names,
                      const char *const *values) {
  lib = lua_absindex(L, lib);
  lua_createtable(L, 0, num);
  for (int i = 0; i < num; i++) {
    lua_pushstring(L, values[i]);
    lua_setfield(L, -2, names[i]);
  }
  lua_pushvalue(L, -1);
  lua_pushcclosure(L, lib_define, 1);
  lua_setfield(L, lib, "kg_define");
  lua_pushvalue(L, -1);
  lua_pushcclosure(L, lib_weights_file, 1);
  lua_setfield(L, lib, "kg_weights_file");
  lua_pushcclosure(L, lib_json_file, 1);
  lua_setfield(L, lib, "kg_json_file");
}
