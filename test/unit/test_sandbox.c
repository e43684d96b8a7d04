/* test_sandbox.c - the Lua sandbox models run in: what is open and what is
 * not, require, one-line errors at the model's line (also for errors raised
 * in kgen's lua/), the memory / instruction / wall-clock limits and how fast
 * they stop a model, determinism, print to stderr.
 * Needs: the .lua files in test/unit/sandbox/ (pass that folder as argv[1])
 * and test/unit/sandbox/fake_res.c linked in place of kgen's embedded files. */
#include <lauxlib.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sandbox.h"
#include "test.h"

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void path_of(char *buf, size_t n, const char *dir, const char *file) {
  snprintf(buf, n, "%s/%s", dir, file);
}

/* As kgen's C gives a model the DSL: the library module ops.foo as the
 * global lib_foo (models cannot require kgen's modules). */
static int give_lib(kg_sandbox_t *sb, kg_diag_t *d) {
  if (kg_sandbox_require(sb, "ops.foo", d))
    return -1;
  lua_setglobal(kg_sandbox_lua(sb), "lib_foo");
  return 0;
}

/* Runs dir/file under opts (NULL: defaults); returns run_model's status and
 * leaves the message in d; *secs gets the time taken. */
static int run(const char *dir, const char *file, const kg_sandbox_opts_t *opts,
               kg_diag_t *d, double *secs) {
  char path[1024];
  path_of(path, sizeof path, dir, file);
  d->msg[0] = '\0';
  double t0 = now_seconds();
  kg_sandbox_t *sb;
  int rc = kg_sandbox_new(opts, path, &sb, d);
  if (rc == 0)
    rc = give_lib(sb, d);
  if (rc == 0)
    rc = kg_sandbox_run_model(sb, d);
  kg_sandbox_free(sb);
  if (secs)
    *secs = now_seconds() - t0;
  return rc;
}

/* Runs dir/file and checks that it fails with "dir/<want>" exactly. */
static void expect_error(const char *dir, const char *file, const char *want) {
  kg_diag_t d;
  char full[1024];
  snprintf(full, sizeof full, "%s/%s", dir, want);
  CHECK_EQ(run(dir, file, NULL, &d, NULL), -1);
  CHECK_STR(d.msg, full);
}

static void expect_ok(const char *dir, const char *file) {
  kg_diag_t d;
  int rc = run(dir, file, NULL, &d, NULL);
  if (rc != 0)
    fprintf(stderr, "%s: %s\n", file, d.msg);
  CHECK_EQ(rc, 0);
}

static void test_errors(const char *dir) {
  expect_error(dir, "syntax.lua", "syntax.lua:2: error: unexpected symbol near '='");
  expect_error(dir, "runtime.lua",
               "runtime.lua:3: error: attempt to index a nil value (local 't')");
  /* a library error that carries the library's position is kgen's bug */
  expect_error(dir, "lib_error.lua",
               "lib_error.lua:4: error: internal error: kgen:lua/ops/foo.lua:5: foo: eps "
               "must be > 0");
  expect_error(dir, "lib_fail.lua", "lib_fail.lua:3: error: kg.fail: bad shape");
  expect_error(
      dir, "lib_index.lua",
      "lib_index.lua:2: error: internal error: kgen:lua/ops/foo.lua:10: attempt to "
      "index a nil value (field 'missing')");
  expect_error(
      dir, "callback_error.lua",
      "callback_error.lua:4: error: attempt to perform arithmetic on a nil value");
  /* `return f()` drops the model's frame: the file is still right */
  expect_error(
      dir, "lib_tail.lua",
      "lib_tail.lua: error: internal error: kgen:lua/ops/foo.lua:5: foo: eps must "
      "be > 0");
  expect_error(dir, "user_level.lua", "user_level.lua:6: error: need a positive number");
  expect_error(dir, "module_syntax.lua",
               "util/broken.lua:2: error: <name> expected near '='");

  char want[2048];
  snprintf(want, sizeof want,
           "require_missing.lua:2: error: module 'no.such' not found (kgen's lua/ has no "
           "lua/no/such.lua; %s/no/such.lua does not exist)",
           dir);
  expect_error(dir, "require_missing.lua", want);

  kg_diag_t d;
  CHECK_EQ(run(dir, "lib_syntax.lua", NULL, &d, NULL), -1);
  CHECK(strstr(d.msg, "lib_syntax.lua:2: error: require: 'ops.broken' is one of kgen's "
                      "own modules") == d.msg + strlen(dir) + 1);
  CHECK_EQ(run(dir, "no_such_model.lua", NULL, &d, NULL), -1);
  CHECK(strstr(d.msg, "no_such_model.lua: error: cannot open: ") != NULL);
}

/* kgen's C: require before the model, pcall of model functions after it. */
static void test_c_calls(const char *dir) {
  char path[1024];
  path_of(path, sizeof path, dir, "later.lua");
  kg_diag_t d;
  kg_sandbox_t *sb;
  CHECK_EQ(kg_sandbox_new(NULL, path, &sb, &d), 0);
  lua_State *L = kg_sandbox_lua(sb);
  int top = lua_gettop(L);
  CHECK_EQ(kg_sandbox_require(sb, "kgen", &d), 0);
  lua_getfield(L, -1, "name");
  CHECK_STR(lua_tostring(L, -1), "fake kgen");
  lua_settop(L, top);
  CHECK_EQ(kg_sandbox_require(sb, "nope", &d), -1);
  CHECK(strstr(d.msg, "kgen: error: module 'nope' not found") == d.msg);
  CHECK_EQ(lua_gettop(L), top);
  CHECK_EQ(kg_sandbox_require(sb, "ops.broken", &d), -1);
  CHECK(strstr(d.msg, "kgen: error: kgen's lua/ops/broken.lua does not load: ") == d.msg);
  CHECK_EQ(lua_gettop(L), top);
  CHECK_EQ(give_lib(sb, &d), 0);

  CHECK_EQ(kg_sandbox_run_model(sb, &d), 0);
  lua_getglobal(L, "add");
  lua_pushinteger(L, 40);
  lua_pushinteger(L, 2);
  CHECK_EQ(kg_sandbox_pcall(sb, 2, 1, &d), 0);
  CHECK_EQ(lua_tointeger(L, -1), 42);
  lua_settop(L, top);

  char want[1200];
  lua_getglobal(L, "broken");
  lua_pushinteger(L, 1);
  CHECK_EQ(kg_sandbox_pcall(sb, 1, 1, &d), -1);
  snprintf(want, sizeof want, "%s:5: error: attempt to index a number value (local 'x')",
           path);
  CHECK_STR(d.msg, want);
  CHECK_EQ(lua_gettop(L), top);

  lua_getglobal(L, "via_lib");
  lua_pushinteger(L, 0);
  CHECK_EQ(kg_sandbox_pcall(sb, 1, 1, &d), -1);
  snprintf(want, sizeof want,
           "%s:8: error: internal error: kgen:lua/ops/foo.lua:5: foo: eps must be > 0",
           path);
  CHECK_STR(d.msg, want);

  /* no user code on the stack: the library's own position */
  CHECK_EQ(kg_sandbox_require(sb, "ops.foo", &d), 0);
  lua_getfield(L, -1, "check");
  lua_pushinteger(L, -1);
  CHECK_EQ(kg_sandbox_pcall(sb, 1, 1, &d), -1);
  CHECK_STR(d.msg,
            "kgen: error: internal error: kgen:lua/ops/foo.lua:5: foo: eps must be > 0");
  lua_settop(L, top);
  /* ... or the model's op that kg_context names */
  CHECK_EQ(kg_sandbox_require(sb, "ops.foo", &d), 0);
  lua_getfield(L, -1, "in_context");
  lua_pushstring(L, "model.lua");
  lua_pushinteger(L, 7);
  CHECK_EQ(kg_sandbox_pcall(sb, 2, 1, &d), -1);
  CHECK_STR(d.msg, "model.lua:7: error: foo: context");
  lua_settop(L, top);
  /* the context ends with the call from C */
  CHECK_EQ(kg_sandbox_require(sb, "ops.foo", &d), 0);
  lua_getfield(L, -1, "fail");
  lua_pushstring(L, "foo: no context");
  CHECK_EQ(kg_sandbox_pcall(sb, 1, 1, &d), -1);
  CHECK_STR(d.msg, "kgen: error: foo: no context");
  lua_settop(L, top);
  kg_sandbox_free(sb);

  /* no model at all */
  CHECK_EQ(kg_sandbox_new(NULL, NULL, &sb, &d), 0);
  CHECK_EQ(kg_sandbox_require(sb, "ops.foo", &d), 0);
  CHECK_EQ(kg_sandbox_require(sb, "util.helper", &d), -1);
  CHECK_STR(d.msg, "kgen: error: module 'util.helper' not found (kgen's lua/ has no "
                   "lua/util/helper.lua)");
  kg_sandbox_free(sb);

  kg_sandbox_opts_t o;
  kg_sandbox_opts_default(&o);
  o.max_seconds = 0;
  CHECK_EQ(kg_sandbox_new(&o, path, &sb, &d), -1);
  CHECK(sb == NULL);
  CHECK_STR(d.msg, "kgen: error: --max-seconds must be more than 0");
  kg_sandbox_opts_default(&o);
  o.max_memory = 4096;
  CHECK_EQ(kg_sandbox_new(&o, path, &sb, &d), -1);
  CHECK_STR(d.msg,
            "kgen: error: cannot create a Lua state: memory limit of 4 KiB exceeded "
            "(raise it with --max-memory)");
  o.max_memory = 16384; /* the heap gets half */
  CHECK_EQ(kg_sandbox_new(&o, path, &sb, &d), -1);
  CHECK_STR(d.msg,
            "kgen: error: cannot set up Lua: memory limit of 16 KiB exceeded (raise "
            "it with --max-memory)");
}

/* slow: running under valgrind or a sanitizer (KGEN_TEST_SLOW=1): smaller
 * limits and no timing checks. */
static void test_limits(const char *dir, int slow) {
  kg_diag_t d;
  double secs;
  char want[1200];
  kg_sandbox_opts_t o;
  kg_sandbox_opts_default(&o);
  if (slow) {
    o.max_instructions = 2000000;
    o.max_memory = (size_t)16 << 20;
    o.max_seconds = 600;
  }

  CHECK_EQ(run(dir, "loop.lua", &o, &d, &secs), -1);
  snprintf(want, sizeof want,
           "%s/loop.lua:3: error: instruction budget of %llu exhausted (raise it with "
           "--max-instructions)",
           dir, o.max_instructions);
  CHECK_STR(d.msg, want);
  fprintf(stderr, "  infinite loop stopped after %.2f s\n", secs);
  CHECK(slow || secs < 5);

  /* past INT_MAX string.rep refuses by itself, before allocating */
  expect_error(dir, "rep_too_large.lua",
               "rep_too_large.lua:1: error: resulting string too large");
  const char *bombs[] = {"mem_table.lua:1", "mem_rep.lua:2"};
  for (int i = 0; i < 2; i++) {
    char file[64];
    snprintf(file, sizeof file, "%.*s", (int)(strchr(bombs[i], ':') - bombs[i]),
             bombs[i]);
    CHECK_EQ(run(dir, file, &o, &d, &secs), -1);
    snprintf(
        want, sizeof want,
        "%s/%s: error: memory limit of %zu MiB exceeded (raise it with --max-memory)",
        dir, bombs[i], o.max_memory >> 20);
    CHECK_STR(d.msg, want);
    fprintf(stderr, "  %s stopped after %.2f s\n", file, secs);
    CHECK(slow || secs < 5);
  }

  /* the wall clock, for Lua code: the hook raises the error */
  kg_sandbox_opts_default(&o);
  o.max_instructions = ~0ULL;
  o.max_seconds = 0.5;
  CHECK_EQ(run(dir, "loop.lua", &o, &d, &secs), -1);
  snprintf(want, sizeof want,
           "%s/loop.lua:3: error: wall-clock limit of 0.5 s exceeded (raise it with "
           "--max-seconds)",
           dir);
  CHECK_STR(d.msg, want);
  CHECK(slow || secs < 2);
}

/* Runs dir/file in a child process with stdout and stderr captured; returns
 * the wait status. */
static int run_child(const char *dir, const char *file, const kg_sandbox_opts_t *opts,
                     char *out, size_t out_size, char *err, size_t err_size,
                     double *secs) {
  int po[2], pe[2];
  if (pipe(po) != 0 || pipe(pe) != 0)
    return -1;
  double t0 = now_seconds();
  fflush(stderr);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(po[1], STDOUT_FILENO);
    dup2(pe[1], STDERR_FILENO);
    close(po[0]);
    close(pe[0]);
    kg_diag_t d;
    int rc = run(dir, file, opts, &d, NULL);
    if (rc != 0)
      fprintf(stderr, "%s\n", d.msg);
    fflush(stdout);
    _exit(rc == 0 ? 0 : 2);
  }
  close(po[1]);
  close(pe[1]);
  /* small outputs: read stderr, then stdout */
  size_t n = 0;
  ssize_t got;
  while (n + 1 < err_size && (got = read(pe[0], err + n, err_size - 1 - n)) > 0)
    n += (size_t)got;
  err[n] = '\0';
  n = 0;
  while (n + 1 < out_size && (got = read(po[0], out + n, out_size - 1 - n)) > 0)
    n += (size_t)got;
  out[n] = '\0';
  close(po[0]);
  close(pe[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  *secs = now_seconds() - t0;
  return status;
}

static void test_watchdog_and_print(const char *dir, int slow) {
  char out[256], err[2048], want[1200];
  double secs;

  kg_sandbox_opts_t o;
  kg_sandbox_opts_default(&o);
  o.max_seconds = 1;
  int status =
      run_child(dir, "slow_find.lua", &o, out, sizeof out, err, sizeof err, &secs);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 1);
  snprintf(want, sizeof want,
           "%s/slow_find.lua:3: error: wall-clock limit of 1 s exceeded (raise it with "
           "--max-seconds)\n",
           dir);
  CHECK_STR(err, want);
  fprintf(stderr, "  the watchdog stopped string.find after %.2f s\n", secs);
  CHECK(secs > 0.9 && secs < (slow ? 10 : 3.5));

  status = run_child(dir, "print.lua", NULL, out, sizeof out, err, sizeof err, &secs);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK_STR(out, "");
  CHECK_STR(err, "a\t1\tnil\ttable\ttrue\tfunction\n\n");
}

/* Two sandboxes draw the same random numbers. */
static void test_determinism(const char *dir) {
  char path[1024], first[256] = "";
  path_of(path, sizeof path, dir, "determinism.lua");
  for (int i = 0; i < 2; i++) {
    kg_diag_t d;
    kg_sandbox_t *sb;
    CHECK_EQ(kg_sandbox_new(NULL, path, &sb, &d), 0);
    int rc = kg_sandbox_run_model(sb, &d);
    if (rc != 0)
      fprintf(stderr, "%s\n", d.msg);
    CHECK_EQ(rc, 0);
    lua_State *L = kg_sandbox_lua(sb);
    lua_getglobal(L, "draws");
    const char *draws = lua_tostring(L, -1);
    CHECK(draws != NULL);
    if (i == 0)
      snprintf(first, sizeof first, "%s", draws ? draws : "");
    else
      CHECK_STR(draws ? draws : "", first);
    lua_pop(L, 1);
    kg_sandbox_free(sb);
  }
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s <test/unit/sandbox>\n", argv[0]);
    return 2;
  }
  const char *dir = argv[1];
  const char *env = getenv("KGEN_TEST_SLOW");
  int slow = env && strcmp(env, "1") == 0;
  expect_ok(dir, "libs.lua");
  expect_ok(dir, "require_ok.lua");
  test_errors(dir);
  test_c_calls(dir);
  test_determinism(dir);
  test_limits(dir, slow);
  test_watchdog_and_print(dir, slow);
  return TEST_DONE();
}
