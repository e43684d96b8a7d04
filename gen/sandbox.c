/* sandbox.c - the sandboxed Lua state that models run in (see sandbox.h):
 * its limits (the allocator's cap, the instruction hook, the wall clock and
 * the watchdog thread) and the C interface.
 * Needs: Lua 5.4, POSIX threads, diag.h, buf.h, userfile.h, the rest of the
 * sandbox (sandbox_internal.h).
 * Gives: kg_sandbox_*. No global state: the sandbox struct holds every counter;
 * Lua code finds it in the state's extra space, the allocator through its ud
 * and the watchdog thread through its argument. */
#include "sandbox.h"

#include <limits.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>

#include "buf.h"
#include "sandbox_internal.h"
#include "userfile.h"

#define KG_SB_HOOK_PERIOD 1000  /* VM instructions between two hook calls */
/* bytes the message handler may use past the cap */
#define KG_SB_MSGH_RESERVE ((size_t)1 << 20)
/* Bytes kgen's C may allocate in the Lua state between calls into Lua (to
 * read the graph back and call the params rules), past the cap the model
 * could have filled. */
#define KG_SB_C_RESERVE ((size_t)16 << 20)

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

void kg_sb_memory_text(const kg_sandbox_t *sb, char *buf, size_t n) {
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
void kg_sb_note_user_line(kg_sandbox_t *sb, lua_State *L, int level) {
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
  kg_sandbox_t *sb = kg_sb_of(L);
  char msg[160];
  kg_sb_note_user_line(sb, L, 0);
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

static int sb_panic(lua_State *L) {
  const char *msg = lua_tostring(L, -1);
  fprintf(stderr, "kgen: error: Lua error outside a protected call: %s\n",
          msg ? msg : "(not a string)");
  abort();
}

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
      kg_sb_memory_text(sb, text, sizeof text);
    kg_sandbox_free(sb);
    return kg_error(d, "cannot create a Lua state: %s", text);
  }
  lua_State *L = sb->L;
  *(kg_sandbox_t **)lua_getextraspace(L) = sb;
  lua_atpanic(L, sb_panic);
  lua_sethook(L, sb_hook, LUA_MASKCOUNT, KG_SB_HOOK_PERIOD);
  lua_pushcfunction(L, kg_sb_setup);
  lua_pushlightuserdata(L, sb);
  int status = lua_pcall(L, 1, 0, 0);
  if (status != LUA_OK) {
    char text[200];
    if (status == LUA_ERRMEM)
      kg_sb_memory_text(sb, text, sizeof text);
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
  lua_pushcfunction(L, kg_sb_msgh);
  lua_insert(L, base);
  run_begin(sb);
  int status = lua_pcall(L, nargs, nresults, base);
  run_end(sb);
  memcpy(sb->base_file, outer_file, sizeof outer_file);
  if (status == LUA_OK) {
    lua_remove(L, base);
    return 0;
  }
  kg_sb_report(sb, status, d);
  lua_settop(L, base - 1);
  return -1;
}

int kg_sandbox_seal_globals(kg_sandbox_t *sb, kg_diag_t *d) {
  lua_State *L = sb->L;
  if (!lua_checkstack(L, 2))
    return kg_error(d, "Lua stack overflow");
  lua_pushcfunction(L, kg_sb_seal_globals);
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
    kg_sb_report_load(sb, status, sb->model_path, d);
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
  return kg_sb_require_lib(L);
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
