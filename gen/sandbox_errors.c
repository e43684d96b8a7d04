/* sandbox_errors.c - every Lua error as the one line kgen prints,
 * "FILE:LINE: error: message" at the model's line: the message handler of
 * the sandbox's calls, and what fills a kg_diag_t after a failed call or
 * load (see sandbox.h, "Error positions").
 * Needs: Lua 5.4, diag.h, sandbox_internal.h (the limits' messages).
 * Gives: kg_sb_msgh, kg_sb_report, kg_sb_report_load and the position
 * parsers require uses. */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <lauxlib.h>

#include "sandbox_internal.h"

/* Length of the "CHUNK:LINE: " position that Lua (luaL_where, the parser)
 * puts before a message, or 0 when msg has none; sets *chunk_len, *line.
 * "word: text" before any position means a plain message. */
size_t kg_sb_position_prefix(const char *msg, size_t *chunk_len, int *line) {
  size_t start = 1;
  if (msg[0] == '\0')
    return 0;
  if (strncmp(msg, "[string \"", 9) == 0) {
    const char *end = strstr(msg, "\"]:");
    if (!end)
      return 0;
    start = (size_t)(end - msg) + 2;
  }
  for (size_t i = start; i < KG_SB_FILE_MAX && msg[i] && msg[i] != '\n'; i++) {
    if (msg[i] != ':')
      continue;
    if (msg[i + 1] == ' ')
      return 0;
    size_t j = i + 1;
    long n = 0;
    while (msg[j] >= '0' && msg[j] <= '9' && n < INT_MAX / 10)
      n = n * 10 + (msg[j++] - '0');
    if (j > i + 1 && msg[j] == ':' && msg[j + 1] == ' ') {
      *chunk_len = i;
      *line = (int)n;
      return j + 2;
    }
  }
  return 0;
}

/* Length of "FILE:LINE: " at the start of msg for the file name `file` (any
 * bytes, newlines included), or 0; sets *line. */
size_t kg_sb_prefix_of(const char *msg, const char *file, size_t file_len, int *line) {
  if (file_len == 0 || strncmp(msg, file, file_len) != 0 || msg[file_len] != ':')
    return 0;
  size_t j = file_len + 1;
  long n = 0;
  while (msg[j] >= '0' && msg[j] <= '9' && n < INT_MAX / 10)
    n = n * 10 + (msg[j++] - '0');
  if (j == file_len + 1 || msg[j] != ':' || msg[j + 1] != ' ')
    return 0;
  *line = (int)n;
  return j + 2;
}

/* The name Lua gives the chunk "@file" in messages (luaO_chunkid): the file
 * name, or "..." and its last bytes when it is longer than LUA_IDSIZE allows. */
size_t kg_sb_chunk_id(const char *file, size_t len, char out[LUA_IDSIZE]) {
  if (len + 1 <= LUA_IDSIZE) {
    memcpy(out, file, len);
    return len;
  }
  const size_t tail = LUA_IDSIZE - 4; /* "...", and room for the NUL */
  memcpy(out, "...", 3);
  memcpy(out + 3, file + len - tail, tail);
  return tail + 3;
}

/* kg_sb_position_prefix for a position that names a user file (a key of
 * KG_SB_USERFILES, matched whole, so that a name holding a newline or a
 * colon is found too, and as Lua shortens a long one); 0 when msg starts
 * with none. Sets *file to the file's whole name (a key of the table, which
 * keeps it alive). */
static size_t user_prefix(lua_State *L, const char *msg, const char **file, int *line) {
  size_t best = 0;
  if (lua_getfield(L, LUA_REGISTRYINDEX, KG_SB_USERFILES) != LUA_TTABLE) {
    lua_pop(L, 1);
    return 0;
  }
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    size_t len;
    int at = 0;
    const char *key = lua_type(L, -2) == LUA_TSTRING ? lua_tolstring(L, -2, &len) : NULL;
    char id[LUA_IDSIZE];
    size_t skip = key ? kg_sb_prefix_of(msg, id, kg_sb_chunk_id(key, len, id), &at) : 0;
    if (skip > best) {
      best = skip;
      *file = key;
      *line = at;
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return best;
}

/* Pushes a string describing the error object at idx. */
static const char *error_text(lua_State *L, int idx) {
  int t = lua_type(L, idx);
  if (t == LUA_TSTRING || t == LUA_TNUMBER) {
    lua_pushvalue(L, idx);
    return lua_tostring(L, -1);
  }
  if (luaL_getmetafield(L, idx, "__tostring") != LUA_TNIL) {
    lua_pushvalue(L, idx);
    if (lua_pcall(L, 1, 1, 0) == LUA_OK && lua_type(L, -1) == LUA_TSTRING)
      return lua_tostring(L, -1);
    lua_pop(L, 1);
  }
  return lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, idx));
}

static const char *push_located(lua_State *L, const char *file, int line,
                                const char *msg) {
  if (line > 0)
    return lua_pushfstring(L, "%s:%d: error: %s", file, line, msg);
  return lua_pushfstring(L, "%s: error: %s", file, msg);
}

/* A chunk of kgen's own library, but the model library (lua/models/, which
 * runs as the model's code); `source` as Lua keeps it ("=kgen:lua/...") or
 * as messages show it (without the '='). */
static int library_chunk(const char *source, size_t len) {
  return len >= 9 && strncmp(source, "kgen:lua/", 9) == 0 &&
         !(len >= 16 && strncmp(source, "kgen:lua/models/", 16) == 0);
}

/* The error is a Lua error inside kgen's library (an arithmetic on nil, a
 * bad argument to a standard function, a failed assert): msg's position
 * (chunk_len bytes) is a library chunk's, and so is the innermost Lua
 * frame's. Errors the library raises on purpose carry no position, and no
 * model chunk can bear a library name (sb_load), so a model cannot forge
 * one. */
static int library_error(lua_State *L, const char *msg, size_t chunk_len) {
  if (!library_chunk(msg, chunk_len))
    return 0;
  lua_Debug ar;
  for (int level = 1; lua_getstack(L, level, &ar); level++) {
    if (!lua_getinfo(L, "S", &ar) || strcmp(ar.what, "C") == 0)
      continue;
    return ar.source[0] == '=' && library_chunk(ar.source + 1, strlen(ar.source + 1));
  }
  return 0;
}

/* The message handler of every call into Lua: turns the error into the one
 * line kgen prints. The position is the user's (a chunk named "@file"):
 * the one Lua put in the message when it names a user file, else the
 * innermost user frame, so errors raised inside kgen's lua/ library (chunks
 * named "=kgen:...") point at the model line that called into it. */
int kg_sb_msgh(lua_State *L) {
  kg_sandbox_t *sb = kg_sb_of(L);
  sb->in_msgh = 1;
  const char *msg = error_text(L, 1);
  size_t chunk_len = 0;
  int line = 0;
  const char *file = NULL;
  size_t skip = user_prefix(L, msg, &file, &line);
  const int user = skip > 0;
  if (user && strncmp(msg + skip, "error: ", 7) == 0)
    return 1; /* already this handler's line (an error raised again) */
  if (!user)
    skip = kg_sb_position_prefix(msg, &chunk_len, &line);
  const char *rest = msg + skip;
  char limit[160];
  int internal = 0;
  if (sb->mem_refused && strcmp(rest, "not enough memory") == 0) {
    kg_sb_memory_text(sb, limit, sizeof limit);
    rest = limit;
  } else if (!user && skip > 0 && library_error(L, msg, chunk_len)) {
    rest = lua_pushfstring(L, "internal error: %s", msg);
    internal = 1;
  }
  if (user) {
    push_located(L, file, line, rest);
    return 1;
  }
  lua_Debug ar;
  int tail = 0;
  for (int level = 0; lua_getstack(L, level, &ar); level++) {
    if (!lua_getinfo(L, "Slt", &ar))
      continue;
    if (ar.source[0] == '@' && ar.currentline > 0) {
      push_located(L, ar.source + 1, ar.currentline, rest);
      return 1;
    }
    tail |= ar.istailcall;
  }
  if (tail && sb->base_file[0]) {
    /* `return f(...)` in user code replaced the user's frame: the file is
     * known, the line is not */
    push_located(L, sb->base_file, 0, rest);
    return 1;
  }
  if (sb->context_file[0]) {
    /* kgen's C called into its library for a model's op (kg_context) */
    push_located(L, sb->context_file, sb->context_line, rest);
    return 1;
  }
  /* no user code on the stack: kgen's C called into its own library */
  lua_pushfstring(L, "kgen: error: %s", rest == limit || internal ? rest : msg);
  return 1;
}

/* Fills d for a failed call; the message handler's line is on top for
 * LUA_ERRRUN. Memory errors skip the handler: they use the hook's last line. */
int kg_sb_report(kg_sandbox_t *sb, int status, kg_diag_t *d) {
  lua_State *L = sb->L;
  char text[200];
  if (status == LUA_ERRRUN && lua_type(L, -1) == LUA_TSTRING)
    return kg_error_raw(d, lua_tostring(L, -1));
  if (status == LUA_ERRMEM)
    kg_sb_memory_text(sb, text, sizeof text);
  else
    snprintf(text, sizeof text, "%s",
             lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1)
                                            : "error in error handling");
  pthread_mutex_lock(&sb->mu);
  kg_error_at(d, sb->last_file, sb->last_line, "%s", text);
  pthread_mutex_unlock(&sb->mu);
  return -1;
}

/* A syntax error from lua_load as "FILE:LINE: error: what" for `path`
 * (Lua's own chunk id may have shortened the name). */
int kg_sb_report_load(kg_sandbox_t *sb, int status, const char *path, kg_diag_t *d) {
  lua_State *L = sb->L;
  char text[200];
  if (status == LUA_ERRMEM) {
    kg_sb_memory_text(sb, text, sizeof text);
    return kg_error_at(d, path, 0, "%s", text);
  }
  const char *msg = lua_tostring(L, -1);
  size_t chunk_len;
  int line = 0;
  char id[LUA_IDSIZE];
  size_t skip =
      msg ? kg_sb_prefix_of(msg, id, kg_sb_chunk_id(path, strlen(path), id), &line) : 0;
  if (msg && skip == 0)
    skip = kg_sb_position_prefix(msg, &chunk_len, &line);
  return kg_error_at(d, path, line, "%s", msg ? msg + skip : "cannot load");
}
