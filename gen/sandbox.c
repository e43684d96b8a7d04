/* sandbox.c - the sandboxed Lua state that models run in (see sandbox.h).
 * Needs: Lua 5.4, POSIX threads, diag.h, buf.h, res.h (kgen's lua/ library).
 * Gives: kg_sandbox_*. No global state: the sandbox struct holds every counter;
 * Lua code finds it in the state's extra space, the allocator through its ud
 * and the watchdog thread through its argument. */
#include "sandbox.h"

#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lualib.h>

#include "buf.h"
#include "defines.h"
#include "res.h"
#include "userfile.h"

#define KG_SB_HOOK_PERIOD 1000  /* VM instructions between two hook calls */
#define KG_SB_GRACE_SECONDS 0.5 /* the watchdog waits this long past the limit */
/* bytes the message handler may use past the cap */
#define KG_SB_MSGH_RESERVE ((size_t)1 << 20)
#define KG_SB_SEED 0x6b67656e              /* math.random's fixed seed ("kgen") */
#define KG_SB_FILE_MAX 1024                /* longest file name kept for messages */
#define KG_SB_LOADED "kgen.sandbox.loaded" /* registry: kgen's modules by name */
#define KG_SB_USERLOADED "kgen.sandbox.userloaded" /* registry: model-folder modules */
#define KG_SB_LIBENV "kgen.sandbox.libenv"         /* registry: the library's _ENV */
/* The largest model file or module kgen reads: a model is a short script. */
#define KG_SB_SOURCE_MAX ((size_t)16 << 20)
/* Bytes kgen's C may allocate in the Lua state between calls into Lua (to
 * read the graph back and call the params rules), past the cap the model
 * could have filled. */
#define KG_SB_C_RESERVE ((size_t)16 << 20)
#define KG_SB_USERFILES "kgen.sandbox.userfiles" /* registry: user chunk path -> true */

struct kg_sandbox {
  lua_State *L;
  kg_sandbox_opts_t opts;
  char *model_path;   /* NULL: no model (kgen's C only) */
  char *module_dir;   /* prefix of model-folder modules: "" or "dir/"; NULL: none */
  char *module_root;  /* the real path of the model's folder; NULL: unknown */
  const char *source; /* the model's text when given (kg_sandbox_set_source) */
  size_t source_len;

  size_t mem_used; /* heap bytes the Lua state holds (block_bytes) */
  size_t heap_cap; /* its cap: max_memory less what kgen holds */
  int mem_refused; /* the allocator refused a request in this run */
  int late;        /* past the wall clock: the hook fails every instruction */
  int refusing;    /* the last growth was refused: the next waits for room (sb_alloc) */
  int in_msgh;     /* the message handler runs: it may use the reserve */
  int ready;       /* set up: kgen's C may use KG_SB_C_RESERVE */
  unsigned long long instructions; /* VM instructions executed, in hook periods */

  int depth;          /* nesting of calls into Lua through this API */
  double run_start;   /* when the outermost call began */
  double lua_seconds; /* wall time spent in Lua by finished calls */
  double deadline;    /* when the running call exceeds max_seconds */

  /* Shared with the watchdog thread, under mu. */
  pthread_mutex_t mu;
  pthread_cond_t cv;
  pthread_t watchdog;
  int watchdog_started;
  int armed, quit;
  struct timespec kill_at;        /* CLOCK_MONOTONIC */
  char last_file[KG_SB_FILE_MAX]; /* the last user position the hook saw */
  int last_line;

  /* The user file of the function kgen's C called (a model chunk or a
   * function it defined), "" for library and C functions. */
  char base_file[KG_SB_FILE_MAX];
  /* The model's op whose rule kgen's C runs now (kg_context), for errors
   * with no user code on the stack; "" when none. */
  char context_file[KG_SB_FILE_MAX];
  int context_line;
};

static kg_sandbox_t *sandbox_of(lua_State *L) {
  return *(kg_sandbox_t **)lua_getextraspace(L);
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static struct timespec to_timespec(double s) {
  struct timespec ts;
  if (s > 1e12) /* "no limit" in practice; keeps tv_sec in range */
    s = 1e12;
  ts.tv_sec = (time_t)s;
  ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
  if (ts.tv_nsec >= 1000000000L)
    ts.tv_nsec = 999999999L;
  return ts;
}

/* ---- limits and their messages ---- */

static void memory_text(const kg_sandbox_t *sb, char *buf, size_t n) {
  size_t b = sb->opts.max_memory;
  char size[64];
  if (b >= ((size_t)1 << 30) && b % ((size_t)1 << 30) == 0)
    snprintf(size, sizeof size, "%zu GiB", b >> 30);
  else if (b >= ((size_t)1 << 20) && b % ((size_t)1 << 20) == 0)
    snprintf(size, sizeof size, "%zu MiB", b >> 20);
  else if (b >= 1024 && b % 1024 == 0)
    snprintf(size, sizeof size, "%zu KiB", b >> 10);
  else
    snprintf(size, sizeof size, "%zu bytes", b);
  snprintf(buf, n, "memory limit of %s exceeded (raise it with --max-memory)", size);
}

static void budget_text(const kg_sandbox_t *sb, char *buf, size_t n) {
  snprintf(buf, n,
           "instruction budget of %llu exhausted (raise it with --max-instructions)",
           sb->opts.max_instructions);
}

static void wall_text(const kg_sandbox_t *sb, char *buf, size_t n) {
  snprintf(buf, n, "wall-clock limit of %g s exceeded (raise it with --max-seconds)",
           sb->opts.max_seconds);
}

/* The heap a block takes: what malloc made of it and its header, so that a
 * model of many small blocks is charged what they cost (a 4-byte string
 * takes 32). */
static size_t block_bytes(void *p) {
  return malloc_usable_size(p) + sizeof(size_t);
}

/* The bytes this process has resident (/proc/self/statm), or 0 when
 * unknown. */
static size_t resident_bytes(void) {
  FILE *f = fopen("/proc/self/statm", "re");
  unsigned long long size = 0, pages = 0;
  if (f) {
    if (fscanf(f, "%llu %llu", &size, &pages) != 2)
      pages = 0;
    fclose(f);
  }
  return (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
}

static void sb_hook(lua_State *L, lua_Debug *ar);

/* From now on the hook runs, and fails, at every instruction, so that a
 * pcall loop cannot outlast a spent limit. */
static void hook_every_instruction(lua_State *L) {
  lua_sethook(L, sb_hook, LUA_MASKCOUNT, 1);
}

/* Counts the heap the state holds; refuses growth past heap_cap (Lua then
 * raises a memory error). Shrinking is never refused: Lua relies on that. */
static void *sb_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  kg_sandbox_t *sb = ud;
  (void)osize; /* the block's own size is asked of malloc */
  size_t old = ptr ? block_bytes(ptr) : 0;
  if (nsize == 0) {
    free(ptr);
    sb->mem_used -= old;
    return NULL;
  }
  if (nsize + sizeof(size_t) > old) {
    /* After a refusal, growth waits until a collection takes the heap an
     * eighth below its cap: at the cap, Lua would collect everything for
     * each allocation (it collects and tries again), and a model that
     * keeps what it made would crawl instead of failing. */
    size_t cap = sb->refusing ? sb->heap_cap - sb->heap_cap / 8 : sb->heap_cap;
    size_t reserve = sb->in_msgh                   ? KG_SB_MSGH_RESERVE
                     : sb->ready && sb->depth == 0 ? KG_SB_C_RESERVE
                                                   : 0;
    cap = cap > SIZE_MAX - reserve ? SIZE_MAX : cap + reserve;
    if (sb->mem_used > cap || nsize + sizeof(size_t) - old > cap - sb->mem_used) {
      sb->mem_refused = 1;
      sb->refusing = 1;
      /* near the cap an allocation may still cost a full collection, so a
       * thousand instructions may take long: past the wall clock, the hook
       * runs at the next one */
      if (sb->depth > 0 && !sb->late && now_seconds() > sb->deadline) {
        sb->late = 1;
        hook_every_instruction(sb->L);
      }
      return NULL;
    }
    sb->refusing = 0;
  }
  void *p = realloc(ptr, nsize);
  if (!p) {
    sb->mem_refused = 1;
    return NULL;
  }
  sb->mem_used = sb->mem_used - old + block_bytes(p);
  return p;
}

/* Records the innermost user frame (source "@file") from `level` outwards as
 * the last user position, for errors that cannot walk the stack themselves
 * (memory errors, the watchdog). */
static void note_user_line(kg_sandbox_t *sb, lua_State *L, int level) {
  lua_Debug ar;
  for (; lua_getstack(L, level, &ar); level++) {
    if (!lua_getinfo(L, "Sl", &ar) || ar.source[0] != '@' || ar.currentline <= 0)
      continue;
    pthread_mutex_lock(&sb->mu);
    if (strcmp(sb->last_file, ar.source + 1) != 0)
      snprintf(sb->last_file, sizeof sb->last_file, "%s", ar.source + 1);
    sb->last_line = ar.currentline;
    pthread_mutex_unlock(&sb->mu);
    return;
  }
}

/* Runs every KG_SB_HOOK_PERIOD instructions of Lua code: notes the user line,
 * charges the instruction budget and checks the wall clock. */
static void sb_hook(lua_State *L, lua_Debug *ar) {
  (void)ar;
  kg_sandbox_t *sb = sandbox_of(L);
  char msg[160];
  note_user_line(sb, L, 0);
  if (sb->late || (sb->depth > 0 && now_seconds() > sb->deadline)) {
    sb->late = 1;
    wall_text(sb, msg, sizeof msg);
  } else if ((sb->instructions += KG_SB_HOOK_PERIOD) > sb->opts.max_instructions) {
    budget_text(sb, msg, sizeof msg);
  } else {
    return;
  }
  hook_every_instruction(L);
  lua_pushstring(L, msg);
  lua_error(L);
}

/* s as text that cannot drive a terminal or break the line (kg_escape_unit),
 * into out (truncated to size). */
static void escape_text(const char *s, char *out, size_t size) {
  size_t j = 0, len = strlen(s);
  for (size_t i = 0; i < len;) {
    char unit[4];
    size_t unit_len;
    i += kg_escape_unit(s + i, len - i, unit, &unit_len);
    if (j + unit_len >= size)
      break;
    memcpy(out + j, unit, unit_len);
    j += unit_len;
  }
  out[j] = '\0';
}

/* The backstop for C code that never returns to the VM: while armed, waits
 * until kill_at, then reports the last user line and ends the process. */
static void *watchdog_main(void *arg) {
  kg_sandbox_t *sb = arg;
  pthread_mutex_lock(&sb->mu);
  while (!sb->quit) {
    if (!sb->armed) {
      pthread_cond_wait(&sb->cv, &sb->mu);
      continue;
    }
    struct timespec at = sb->kill_at;
    pthread_cond_timedwait(&sb->cv, &sb->mu, &at);
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (sb->quit || !sb->armed || now.tv_sec < sb->kill_at.tv_sec ||
        (now.tv_sec == sb->kill_at.tv_sec && now.tv_nsec < sb->kill_at.tv_nsec))
      continue;
    char what[160], file[4 * KG_SB_FILE_MAX + 1], line[sizeof file + 200];
    wall_text(sb, what, sizeof what);
    escape_text(sb->last_file, file, sizeof file);
    int n =
        sb->last_line > 0
            ? snprintf(line, sizeof line, "%s:%d: error: %s\n", file, sb->last_line, what)
            : snprintf(line, sizeof line, "%s: error: %s\n", file, what);
    if (n < 0 || (size_t)n >= sizeof line)
      n = (int)strlen(line);
    if (write(STDERR_FILENO, line, (size_t)n) < 0) {
      /* nothing more to do: we are leaving */
    }
    _exit(1);
  }
  pthread_mutex_unlock(&sb->mu);
  return NULL;
}

/* Brackets every call into Lua; only the outermost one arms the limits. */
static void run_begin(kg_sandbox_t *sb) {
  if (sb->depth++ > 0)
    return;
  sb->mem_refused = 0;
  sb->run_start = now_seconds();
  sb->deadline = sb->run_start + (sb->opts.max_seconds - sb->lua_seconds);
  pthread_mutex_lock(&sb->mu);
  sb->armed = 1;
  sb->kill_at = to_timespec(sb->deadline + KG_SB_GRACE_SECONDS);
  pthread_cond_signal(&sb->cv);
  pthread_mutex_unlock(&sb->mu);
}

static void run_end(kg_sandbox_t *sb) {
  sb->in_msgh = 0;
  if (--sb->depth > 0)
    return;
  pthread_mutex_lock(&sb->mu);
  sb->armed = 0; /* the watchdog notices when it next wakes */
  pthread_mutex_unlock(&sb->mu);
  sb->refusing = 0; /* kgen's C then has the whole cap and its reserve */
  sb->context_file[0] = '\0';
  sb->lua_seconds += now_seconds() - sb->run_start;
}

/* ---- error messages ---- */

/* Length of the "CHUNK:LINE: " position that Lua (luaL_where, the parser)
 * puts before a message, or 0 when msg has none; sets *chunk_len, *line.
 * "word: text" before any position means a plain message. */
static size_t position_prefix(const char *msg, size_t *chunk_len, int *line) {
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
static size_t prefix_of(const char *msg, const char *file, size_t file_len, int *line) {
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
static size_t chunk_id(const char *file, size_t len, char out[LUA_IDSIZE]) {
  if (len + 1 <= LUA_IDSIZE) {
    memcpy(out, file, len);
    return len;
  }
  const size_t tail = LUA_IDSIZE - 4; /* "...", and room for the NUL */
  memcpy(out, "...", 3);
  memcpy(out + 3, file + len - tail, tail);
  return tail + 3;
}

/* position_prefix for a position that names a user file (a key of
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
    size_t skip = key ? prefix_of(msg, id, chunk_id(key, len, id), &at) : 0;
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
static int sb_msgh(lua_State *L) {
  kg_sandbox_t *sb = sandbox_of(L);
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
    skip = position_prefix(msg, &chunk_len, &line);
  const char *rest = msg + skip;
  char limit[160];
  int internal = 0;
  if (sb->mem_refused && strcmp(rest, "not enough memory") == 0) {
    memory_text(sb, limit, sizeof limit);
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
static int report(kg_sandbox_t *sb, int status, kg_diag_t *d) {
  lua_State *L = sb->L;
  char text[200];
  if (status == LUA_ERRRUN && lua_type(L, -1) == LUA_TSTRING)
    return kg_error_raw(d, lua_tostring(L, -1));
  if (status == LUA_ERRMEM)
    memory_text(sb, text, sizeof text);
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
static int report_load(kg_sandbox_t *sb, int status, const char *path, kg_diag_t *d) {
  lua_State *L = sb->L;
  char text[200];
  if (status == LUA_ERRMEM) {
    memory_text(sb, text, sizeof text);
    return kg_error_at(d, path, 0, "%s", text);
  }
  const char *msg = lua_tostring(L, -1);
  size_t chunk_len;
  int line = 0;
  char id[LUA_IDSIZE];
  size_t skip = msg ? prefix_of(msg, id, chunk_id(path, strlen(path), id), &line) : 0;
  if (msg && skip == 0)
    skip = position_prefix(msg, &chunk_len, &line);
  return kg_error_at(d, path, line, "%s", msg ? msg + skip : "cannot load");
}

/* ---- the library as models see it ---- */

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
 * message handler (report uses that line). The wrapped functions use no
 * upvalues of their own, so calling them in this frame is exact, argument
 * errors included. */
static int sb_noted_call(lua_State *L) {
  note_user_line(sandbox_of(L), L, 1);
  return lua_tocfunction(L, lua_upvalueindex(1))(L);
}

/* string.format: %s of a table, function... gives tostring's text (no
 * address); %p is refused. */
static int sb_format(lua_State *L) {
  note_user_line(sandbox_of(L), L, 1);
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
  kg_sandbox_t *sb = sandbox_of(L);
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
static int sb_require_lib(lua_State *L) {
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
static int sb_require(lua_State *L) {
  kg_sandbox_t *sb = sandbox_of(L);
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
    size_t skip = prefix_of(msg, id, chunk_id(path, strlen(path), id), &line);
    if (skip == 0)
      skip = position_prefix(msg, &chunk_len, &line);
    if (status == LUA_ERRSYNTAX && skip > 0)
      lua_pushfstring(L, "%s:%d: %s", path, line, msg + skip);
    return lua_error(L);
  }
  return run_module(L, KG_SB_USERLOADED, 4);
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
  kg_sandbox_t *sb = sandbox_of(L);
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

static int sb_seal_globals(lua_State *L) {
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
static int sb_setup(lua_State *L) {
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
  lua_pushcfunction(L, sb_require);
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
  lua_pushcfunction(L, sb_require_lib);
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

static int sb_panic(lua_State *L) {
  const char *msg = lua_tostring(L, -1);
  fprintf(stderr, "kgen: error: Lua error outside a protected call: %s\n",
          msg ? msg : "(not a string)");
  abort();
}

/* ---- the C interface ---- */

void kg_sandbox_opts_default(kg_sandbox_opts_t *opts) {
  opts->max_memory = (size_t)256 << 20;
  opts->max_instructions = 200000000ULL;
  opts->max_seconds = 4;
  opts->num_defines = 0;
  opts->define_names = opts->define_values = NULL;
}

int kg_sandbox_new(const kg_sandbox_opts_t *opts, const char *model_path,
                   kg_sandbox_t **out, kg_diag_t *d) {
  *out = NULL;
  kg_sandbox_opts_t o;
  if (opts)
    o = *opts;
  else
    kg_sandbox_opts_default(&o);
  if (o.max_memory == 0)
    return kg_error(d, "--max-memory must be more than 0");
  if (o.max_instructions == 0)
    return kg_error(d, "--max-instructions must be more than 0");
  if (!(o.max_seconds > 0))
    return kg_error(d, "--max-seconds must be more than 0");

  kg_sandbox_t *sb = kg_xcalloc(1, sizeof *sb);
  sb->opts = o;
  /* max_memory caps the process while the model runs: the Lua heap gets what
   * kgen does not hold already, less the reserves its C may use past the
   * cap; at least half of it, for a cap too small for that. */
  const size_t held = resident_bytes() + KG_SB_C_RESERVE + KG_SB_MSGH_RESERVE;
  sb->heap_cap = o.max_memory / 2 > held ? o.max_memory - held : o.max_memory / 2;
  if (model_path) {
    sb->model_path = kg_xstrdup(model_path);
    const char *slash = strrchr(model_path, '/');
    size_t dir_len = slash ? (size_t)(slash - model_path) + 1 : 0;
    sb->module_dir = kg_xmalloc(dir_len + 1);
    memcpy(sb->module_dir, model_path, dir_len);
    sb->module_dir[dir_len] = '\0';
    sb->module_root = kg_userfile_root(model_path);
    snprintf(sb->last_file, sizeof sb->last_file, "%s", model_path);
  } else {
    snprintf(sb->last_file, sizeof sb->last_file, "kgen");
  }
  pthread_mutex_init(&sb->mu, NULL);
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&sb->cv, &attr);
  pthread_condattr_destroy(&attr);
  if (pthread_create(&sb->watchdog, NULL, watchdog_main, sb) != 0) {
    kg_sandbox_free(sb);
    return kg_error(d, "cannot start the Lua watchdog thread");
  }
  sb->watchdog_started = 1;

  sb->L = lua_newstate(sb_alloc, sb);
  if (!sb->L) {
    char text[200] = "out of memory";
    if (sb->mem_refused)
      memory_text(sb, text, sizeof text);
    kg_sandbox_free(sb);
    return kg_error(d, "cannot create a Lua state: %s", text);
  }
  lua_State *L = sb->L;
  *(kg_sandbox_t **)lua_getextraspace(L) = sb;
  lua_atpanic(L, sb_panic);
  lua_sethook(L, sb_hook, LUA_MASKCOUNT, KG_SB_HOOK_PERIOD);
  lua_pushcfunction(L, sb_setup);
  lua_pushlightuserdata(L, sb);
  int status = lua_pcall(L, 1, 0, 0);
  if (status != LUA_OK) {
    char text[200];
    if (status == LUA_ERRMEM)
      memory_text(sb, text, sizeof text);
    else
      snprintf(text, sizeof text, "%s", lua_tostring(L, -1));
    kg_sandbox_free(sb);
    return kg_error(d, "cannot set up Lua: %s", text);
  }
  sb->ready = 1;
  *out = sb;
  return 0;
}

lua_State *kg_sandbox_lua(kg_sandbox_t *sb) {
  return sb->L;
}

int kg_sandbox_pcall(kg_sandbox_t *sb, int nargs, int nresults, kg_diag_t *d) {
  lua_State *L = sb->L;
  int base = lua_gettop(L) - nargs; /* the function */
  if (!lua_checkstack(L, 2)) {
    lua_settop(L, base - 1);
    return kg_error(d, "Lua stack overflow");
  }
  char outer_file[KG_SB_FILE_MAX];
  memcpy(outer_file, sb->base_file, sizeof outer_file);
  sb->base_file[0] = '\0';
  lua_Debug ar;
  if (lua_isfunction(L, base)) {
    lua_pushvalue(L, base);
    if (lua_getinfo(L, ">S", &ar) && ar.source[0] == '@')
      snprintf(sb->base_file, sizeof sb->base_file, "%s", ar.source + 1);
  }
  lua_pushcfunction(L, sb_msgh);
  lua_insert(L, base);
  run_begin(sb);
  int status = lua_pcall(L, nargs, nresults, base);
  run_end(sb);
  memcpy(sb->base_file, outer_file, sizeof outer_file);
  if (status == LUA_OK) {
    lua_remove(L, base);
    return 0;
  }
  report(sb, status, d);
  lua_settop(L, base - 1);
  return -1;
}

int kg_sandbox_seal_globals(kg_sandbox_t *sb, kg_diag_t *d) {
  lua_State *L = sb->L;
  if (!lua_checkstack(L, 2))
    return kg_error(d, "Lua stack overflow");
  lua_pushcfunction(L, sb_seal_globals);
  return kg_sandbox_pcall(sb, 0, 0, d);
}

void kg_sandbox_set_source(kg_sandbox_t *sb, const char *data, size_t len) {
  sb->source = data;
  sb->source_len = len;
}

/* Reads the model file into src: a regular file of at most
 * KG_SB_SOURCE_MAX bytes (a FIFO or a device is refused, not waited on). */
static int read_model(kg_sandbox_t *sb, kg_buf_t *src, kg_diag_t *d) {
  kg_userfile_t f;
  kg_userfile_status_t st = kg_userfile_check(&f, sb->model_path, NULL, KG_SB_SOURCE_MAX);
  if (st == KG_USERFILE_OK) {
    char *data = kg_xmalloc(f.size + 1);
    st = kg_userfile_read(&f, data);
    if (st == KG_USERFILE_OK)
      kg_buf_put(src, data, f.size);
    free(data);
  }
  int rc = 0;
  if (st == KG_USERFILE_TOO_LARGE)
    rc = kg_error_at(d, sb->model_path, 0,
                     "the model is more than %d MiB (the most kgen reads)",
                     (int)(KG_SB_SOURCE_MAX >> 20));
  else if (st == KG_USERFILE_SPECIAL)
    rc = kg_error_at(d, sb->model_path, 0, "%s; kgen reads a model from a file", f.why);
  else if (st != KG_USERFILE_OK)
    rc = kg_error_at(d, sb->model_path, 0, "cannot %s: %s",
                     st == KG_USERFILE_MISSING ? "open" : "read", f.why);
  kg_userfile_free(&f);
  return rc;
}

int kg_sandbox_run_model(kg_sandbox_t *sb, kg_diag_t *d) {
  if (!sb->model_path)
    return kg_error(d, "no model to run");
  kg_buf_t src;
  kg_buf_init(&src);
  if (sb->source) {
    if (sb->source_len > KG_SB_SOURCE_MAX)
      return kg_error_at(d, sb->model_path, 0,
                         "the model is more than %d MiB (the most kgen reads)",
                         (int)(KG_SB_SOURCE_MAX >> 20));
    kg_buf_put(&src, sb->source, sb->source_len);
  } else if (read_model(sb, &src, d)) {
    kg_buf_free(&src);
    return -1;
  }
  kg_buf_t name;
  kg_buf_init(&name);
  kg_buf_printf(&name, "@%s", sb->model_path);
  int status =
      luaL_loadbufferx(sb->L, src.len ? src.data : "", src.len, kg_buf_cstr(&name), "t");
  kg_buf_free(&src);
  kg_buf_free(&name);
  if (status != LUA_OK) {
    report_load(sb, status, sb->model_path, d);
    lua_pop(sb->L, 1);
    return -1;
  }
  return kg_sandbox_pcall(sb, 0, 0, d);
}

/* Runs require(name) protected; argument 1 is the name as a light userdata so
 * that nothing allocates outside protection. */
static int sb_require_entry(lua_State *L) {
  const char *name = lua_touserdata(L, 1);
  lua_settop(L, 0);
  lua_pushstring(L, name);
  return sb_require_lib(L);
}

int kg_sandbox_require(kg_sandbox_t *sb, const char *module, kg_diag_t *d) {
  lua_State *L = sb->L;
  if (!lua_checkstack(L, 3))
    return kg_error(d, "Lua stack overflow");
  lua_pushcfunction(L, sb_require_entry);
  lua_pushlightuserdata(L, (void *)module);
  return kg_sandbox_pcall(sb, 1, 1, d);
}

void kg_sandbox_close(kg_sandbox_t *sb) {
  if (sb && sb->L && sb->depth == 0) {
    lua_close(sb->L);
    sb->L = NULL;
    malloc_trim(0); /* and give it back: the compilers come next */
  }
}

void kg_sandbox_free(kg_sandbox_t *sb) {
  if (!sb)
    return;
  if (sb->watchdog_started) {
    pthread_mutex_lock(&sb->mu);
    sb->quit = 1;
    pthread_cond_signal(&sb->cv);
    pthread_mutex_unlock(&sb->mu);
    pthread_join(sb->watchdog, NULL);
  }
  if (sb->L)
    lua_close(sb->L);
  pthread_cond_destroy(&sb->cv);
  pthread_mutex_destroy(&sb->mu);
  free(sb->model_path);
  free(sb->module_dir);
  free(sb->module_root);
  free(sb);
}
