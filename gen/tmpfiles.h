/* tmpfiles.h - what the out-of-process compile backends need from the system:
 * a private temporary directory (mkdtemp under $TMPDIR or /tmp) to hold a
 * source file and a tool's output, a child process run from an argument array
 * (fork + exec, never a shell) with its output captured, and a search of PATH.
 * Needs buf.h, diag.h and POSIX; gives the kg_tmpdir_* and kg_proc_* calls. */
#ifndef KG_TMPFILES_H
#define KG_TMPFILES_H

#include <stddef.h>

#include "buf.h"
#include "diag.h"

typedef struct kg_tmpdir {
  char *path;  /* absolute; NULL before create and after remove */
  int cleanup; /* its kg_cleanup slot */
} kg_tmpdir_t;

/* Makes SIGINT, SIGTERM and SIGHUP kill the running children and remove the
 * temporary folders and files registered with kg_cleanup_add, then end kgen
 * as the signal would have (call once, early in main). */
void kg_cleanup_install(void);
/* Registers `path` (a file, or a folder with what it holds) for removal on
 * such a signal; returns the slot to pass to kg_cleanup_remove (-1: none
 * free, nothing registered). kg_tmpdir_create registers its folder. */
int kg_cleanup_add(const char *path);
/* Unregisters a slot of kg_cleanup_add (-1: nothing). */
void kg_cleanup_remove(int slot);

/* Caps every child kg_proc_run starts: wall clock and CPU time (seconds) and
 * address space (bytes). Defaults: 600 s, 8 GiB. */
void kg_proc_set_limits(double max_seconds, unsigned long long max_memory);

/* Makes a fresh directory "<$TMPDIR or /tmp>/kgen-XXXXXX", mode 0700. */
int kg_tmpdir_create(kg_tmpdir_t *t, kg_diag_t *diag);
/* Removes the directory and everything in it; safe on a never-created one. */
void kg_tmpdir_remove(kg_tmpdir_t *t);
/* Writes `len` bytes to <dir>/<name> (name is a plain file name). */
int kg_tmpdir_write(const kg_tmpdir_t *t, const char *name, const void *data, size_t len,
                    kg_diag_t *diag);
/* Appends the contents of <dir>/<name> to `out`. */
int kg_tmpdir_read(const kg_tmpdir_t *t, const char *name, kg_buf_t *out,
                   kg_diag_t *diag);

/* Runs argv[0] (a path, not searched) with `argv` (NULL-terminated) in the
 * directory `cwd` (NULL: ours), stdin from /dev/null, and appends its stdout and
 * stderr to `output`. Returns 0 when the child ran, with *out_exit its exit
 * status (128 + signal number when a signal ended it); returns -1 with a
 * one-line diag when it could not be started (e.g. "cannot run X: reason") or
 * ran past the time limit (kg_proc_set_limits; it is killed, with the
 * processes it started). */
int kg_proc_run(const char *const *argv, const char *cwd, kg_buf_t *output, int *out_exit,
                kg_diag_t *diag);

/* Work kgen does in process but cannot bound there (comgr, NVRTC): fn(arg,
 * out, diag) runs in a forked child under the caps of kg_proc_set_limits (the
 * wall clock, CPU time, and the address space kgen had mapped plus the memory
 * cap). Its result bytes are appended to `result` and its diag copied back.
 * Returns fn's return value, or -1 with a one-line diag naming `what` when the
 * child ran past a cap or died. Call it with no lock held that fn needs: the
 * child has only the calling thread. */
typedef int (*kg_proc_fn_t)(void *arg, kg_buf_t *out, kg_diag_t *diag);
int kg_proc_call(const char *what, kg_proc_fn_t fn, void *arg, kg_buf_t *result,
                 kg_diag_t *diag);

/* 1 when `path` names an executable regular file. */
int kg_proc_is_executable(const char *path);
/* `name` with a '/' is checked as given; else each directory of $PATH is tried.
 * Returns a malloc'd path the caller frees, or NULL when none is executable. */
char *kg_proc_find(const char *name);
/* The tool to run, malloc'd, or NULL: `chosen` when not NULL (an explicit
 * choice, the only one tried), else $`env_var` when set and not empty (also the
 * only one tried), else the first of `candidates` found. `tried` gets the
 * places looked at, for the error that names them. */
char *kg_proc_pick(const char *chosen, const char *env_var, const char *const *candidates,
                   size_t num_candidates, kg_buf_t *tried);

/* Copies into `out` (cap bytes, NUL-terminated) the first line of a tool's
 * `output` that holds "error:", else its first non-blank line, else "". When
 * `tool` (the path that was run) is given, the "clang: " that a driver puts
 * before its own errors ("clang: error: unknown argument") is dropped. */
void kg_proc_first_error(const char *output, const char *tool, char *out, size_t cap);

/* Writes "kgen: run: [cd DIR &&] ARGV..." to stderr (for -v); arguments that
 * hold spaces or quotes are single-quoted so the line can be pasted. */
void kg_proc_print(const char *const *argv, const char *cwd);

#endif /* KG_TMPFILES_H */
