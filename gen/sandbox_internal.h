/* sandbox_internal.h - what the sandbox's files share (internal to gen/):
 * the sandbox struct, the registry keys, and the pieces each file gives the
 * others. sandbox.c holds the limits (allocator, hook, watchdog) and the C
 * interface; sandbox_errors.c turns Lua errors into kgen's one line;
 * sandbox_lib.c is the standard library as models see it and sets the state
 * up; sandbox_require.c is require, for the library and for models.
 * Needs: Lua 5.4, POSIX threads, sandbox.h, diag.h. */
#ifndef KG_SANDBOX_INTERNAL_H
#define KG_SANDBOX_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <time.h>

#include <lua.h>

#include "diag.h"
#include "sandbox.h"

#define KG_SB_FILE_MAX 1024                /* longest file name kept for messages */
#define KG_SB_LOADED "kgen.sandbox.loaded" /* registry: kgen's modules by name */
#define KG_SB_USERLOADED "kgen.sandbox.userloaded" /* registry: model-folder modules */
#define KG_SB_LIBENV "kgen.sandbox.libenv"         /* registry: the library's _ENV */
/* The largest model file or module kgen reads: a model is a short script. */
#define KG_SB_SOURCE_MAX ((size_t)16 << 20)
#define KG_SB_USERFILES "kgen.sandbox.userfiles" /* registry: user chunk path -> true */
/* The watchdog ends C code that never returns to Lua this long past the
 * wall-clock limit. */
#define KG_SB_GRACE_SECONDS 0.5

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

static inline kg_sandbox_t *kg_sb_of(lua_State *L) {
  return *(kg_sandbox_t **)lua_getextraspace(L);
}

/* ---- sandbox.c ---- */

/* The message of the memory limit, into buf (n bytes). */
void kg_sb_memory_text(const kg_sandbox_t *sb, char *buf, size_t n);
/* Records the innermost user frame (source "@file") from `level` outwards as
 * the last user position, for errors that cannot walk the stack themselves
 * (memory errors, the watchdog). */
void kg_sb_note_user_line(kg_sandbox_t *sb, lua_State *L, int level);

/* ---- sandbox_errors.c ---- */

/* Length of the "CHUNK:LINE: " position that Lua puts before a message, or
 * 0 when msg has none; sets *chunk_len, *line. */
size_t kg_sb_position_prefix(const char *msg, size_t *chunk_len, int *line);
/* Length of "FILE:LINE: " at the start of msg for the file name `file`, or
 * 0; sets *line. */
size_t kg_sb_prefix_of(const char *msg, const char *file, size_t file_len, int *line);
/* The name Lua gives the chunk "@file" in messages (luaO_chunkid). */
size_t kg_sb_chunk_id(const char *file, size_t len, char out[LUA_IDSIZE]);
/* The message handler of every call into Lua. */
int kg_sb_msgh(lua_State *L);
/* Fills d for a failed call (status from lua_pcall); returns -1. */
int kg_sb_report(kg_sandbox_t *sb, int status, kg_diag_t *d);
/* Fills d for a failed lua_load of `path`; returns -1. */
int kg_sb_report_load(kg_sandbox_t *sb, int status, const char *path, kg_diag_t *d);

/* ---- sandbox_require.c ---- */

/* require(name) as kgen's lua/ library sees it. */
int kg_sb_require_lib(lua_State *L);
/* require(name) as a model sees it. */
int kg_sb_require(lua_State *L);

/* ---- sandbox_lib.c ---- */

/* Makes reading a missing global an error; runs protected. */
int kg_sb_seal_globals(lua_State *L);
/* Opens the allowed libraries and puts the sandbox's versions in place;
 * runs protected, argument 1 the sandbox. */
int kg_sb_setup(lua_State *L);

#endif /* KG_SANDBOX_INTERNAL_H */
