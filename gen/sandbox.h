/* sandbox.h - the Lua state that models run in. It opens only base, string,
 * table, math and utf8 (no io, os, debug, package, coroutine; no dofile,
 * loadfile, collectgarbage, string.dump; load takes text chunks only), makes
 * the visible behaviour deterministic, bounds memory, VM instructions and wall
 * time, and maps every Lua error to one line "FILE:LINE: error: message" at
 * the model's line, even when kgen's own lua/ library raised it.
 * Needs: Lua 5.4, POSIX threads, diag.h, res.h (the embedded lua/ library).
 * Gives: kg_sandbox_*.
 *
 * Inside the sandbox:
 *   require(name)  "a.b" loads <folder of the model>/a/b.lua (at most 16 MiB):
 *                  a regular file whose real path (links resolved) is inside
 *                  the model's folder (userfile.h); names are dotted
 *                  identifiers; each module runs once and its value is cached. kgen's own lua/ modules are not
 *                  available to models: they see the DSL through its globals.
 *   globals        the standard library tables (string, table, math, utf8)
 *                  are the model's own copies; kgen's lua/ library runs with
 *                  its own _ENV (the standard globals as they were before any
 *                  model ran), so nothing a model replaces reaches kgen. The
 *                  strings' metatable is locked. Reading a global that does
 *                  not exist is an error once kg_sandbox_seal_globals ran.
 *   pairs(t)       visits keys in sorted order: numbers ascending, then strings
 *                  bytewise, then false, true; other key types are an error.
 *                  __pairs is honoured. next() stays, and its order is
 *                  unspecified (it changes from run to run).
 *   tostring(v)    tables, functions, userdata without __tostring give their
 *                  __name or type name ("table"), never an address; %s in
 *                  string.format does the same and %p is refused.
 *   print(...)     writes its arguments tab-separated to stderr (stdout may be
 *                  carrying generated output), one line, with control bytes
 *                  (tabs and newlines too) written as \xNN.
 *   load           a chunk name that starts with '@' or '=' loses it: a
 *                  model's chunk cannot pass for a file or for kgen's own.
 *   math.random    seeded with a fixed seed; math.randomseed() without
 *                  arguments is an error (it would seed from the clock).
 *   table.sort     a stable merge sort (Lua's quicksort picks pivots from
 *                  the clock, so ties would land differently run to run).
 *   setmetatable   refuses __gc (finalizers run at unpredictable times).
 *
 * Error positions: a user chunk is one named "@file" (the model, modules from
 * its folder); kgen's lua/ chunks are named "=kgen:lua/...". A runtime error
 * is reported at the position Lua gave when that names a user file, else at
 * the innermost user frame, so errors raised inside lua/ point at the model
 * line that called into it. When `return f(...)` in user code replaced the
 * user's frame, the line is lost and the message names only the file; with
 * no user code involved it reads "kgen: error: <Lua's message>", or names the
 * model line the library gave with kg_context (for the rules kgen's C runs
 * for a model's op). A Lua error raised inside kgen's library itself (it
 * carries the library's position: kgen's own bug, since the library raises
 * its errors without one) reads "internal error: kgen:lua/...: ...". A
 * require loop is an error at the require that closes it. Memory errors
 * do not run Lua's message handler: they use the user line noted last (by
 * the instruction hook, or on entry to string.rep/find/match/gmatch/gsub/
 * format and table.concat).
 *
 * Limits: the memory cap counts the live bytes of the Lua state; the
 * instruction budget and the wall-clock limit add up over every call into Lua
 * (run_model, require, pcall) for the sandbox's whole life. Past the wall-clock
 * limit Lua code gets an error; C code that never returns to the VM (a
 * pathological string.find) is stopped by a watchdog thread, which prints the
 * one-line error to stderr and calls _exit(1). REQUIREMENT on the caller: kgen
 * must not have output files open or half-written while Lua runs, so that this
 * exit leaves nothing behind. */
#ifndef KG_SANDBOX_H
#define KG_SANDBOX_H

#include <stddef.h>

#include <lua.h>

#include "diag.h"

typedef struct kg_sandbox_opts {
  size_t max_memory;                   /* bytes, default 256 MiB */
  unsigned long long max_instructions; /* VM instructions, default 200 million */
  double max_seconds;                  /* wall clock, default 4 */
  /* --define NAME=VALUE (defines.h): the strings must outlive the sandbox */
  int num_defines;
  const char *const *define_names, *const *define_values;
} kg_sandbox_opts_t;

void kg_sandbox_opts_default(kg_sandbox_opts_t *opts);

typedef struct kg_sandbox kg_sandbox_t;

/* Creates a sandbox for the model at `model_path` (as the user gave it; its
 * folder is where require looks after kgen's lua/; NULL: no model, require
 * sees lua/ only). `opts` may be NULL for the defaults. Sets *out (NULL on
 * failure). */
int kg_sandbox_new(const kg_sandbox_opts_t *opts, const char *model_path,
                   kg_sandbox_t **out, kg_diag_t *d);

/* The Lua state, for kgen's C to push arguments and read results. */
lua_State *kg_sandbox_lua(kg_sandbox_t *sb);

/* Loads model_path as a text chunk named "@<model_path>" and runs it with no
 * arguments, discarding its results. */
int kg_sandbox_run_model(kg_sandbox_t *sb, kg_diag_t *d);

/* Gives the model's text itself (not copied: it must outlive the run), read
 * instead of the file at model_path (which still names it in messages). */
void kg_sandbox_set_source(kg_sandbox_t *sb, const char *data, size_t len);

/* Makes reading a global that does not exist an error at the model's line
 * ("rmsnrom is not an op or a global (did you mean rmsnorm? ...)"), and the
 * globals' metatable unchangeable; call once the DSL's names are set. */
int kg_sandbox_seal_globals(kg_sandbox_t *sb, kg_diag_t *d);

/* Pushes the value of kgen's module `module` (lua/), loading it once. */
int kg_sandbox_require(kg_sandbox_t *sb, const char *module, kg_diag_t *d);

/* lua_pcall under the sandbox's limits and error mapping: calls the function
 * below the top `nargs` values. On success leaves `nresults` results; on
 * error removes the function and its arguments, pushes nothing and fills d. */
int kg_sandbox_pcall(kg_sandbox_t *sb, int nargs, int nresults, kg_diag_t *d);

/* Closes the Lua state, freeing all the model made (kgen's C copied what it
 * keeps); call it when no more Lua will run. Then only kg_sandbox_free. */
void kg_sandbox_close(kg_sandbox_t *sb);
/* Closes the state and stops the watchdog; NULL is fine. */
void kg_sandbox_free(kg_sandbox_t *sb);

#endif /* KG_SANDBOX_H */
