/* tmpfiles.c - private temp directories and child processes for the compile
 * backends (see tmpfiles.h). Needs POSIX (mkdtemp, nftw, fork/execv, pipes);
 * gives kg_tmpdir_* and kg_proc_*. No shell is ever involved: argv goes
 * straight to execv, so source paths and flags need no quoting. */
#include "tmpfiles.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int kg_tmpdir_create(kg_tmpdir_t *t, kg_diag_t *diag) {
  t->path = NULL;
  const char *base = getenv("TMPDIR");
  if (!base || !*base)
    base = "/tmp";
  kg_buf_t tmpl;
  kg_buf_init(&tmpl);
  kg_buf_puts(&tmpl, base);
  while (tmpl.len > 1 && tmpl.data[tmpl.len - 1] == '/')
    tmpl.data[--tmpl.len] = '\0';
  kg_buf_puts(&tmpl, "/kgen-XXXXXX");
  if (!mkdtemp(tmpl.data)) {
    int err = errno;
    kg_error(diag, "cannot make a temporary directory under %s: %s", base, strerror(err));
    kg_buf_free(&tmpl);
    return -1;
  }
  /* A relative $TMPDIR would break once a child runs elsewhere. */
  char *abs = realpath(tmpl.data, NULL);
  if (abs) {
    kg_buf_free(&tmpl);
    t->path = abs;
  } else {
    t->path = kg_buf_take(&tmpl, NULL);
  }
  return 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag,
                        struct FTW *ftw) {
  (void)st;
  (void)flag;
  (void)ftw;
  remove(path); /* best effort: keep going so the rest still goes */
  return 0;
}

void kg_tmpdir_remove(kg_tmpdir_t *t) {
  if (!t->path)
    return;
  nftw(t->path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
  free(t->path);
  t->path = NULL;
}

static char *tmpdir_file(const kg_tmpdir_t *t, const char *name) {
  kg_buf_t b;
  kg_buf_init(&b);
  kg_buf_printf(&b, "%s/%s", t->path, name);
  return kg_buf_take(&b, NULL);
}

int kg_tmpdir_write(const kg_tmpdir_t *t, const char *name, const void *data, size_t len,
                    kg_diag_t *diag) {
  char *path = tmpdir_file(t, name);
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    int err = errno;
    kg_error(diag, "cannot create %s: %s", path, strerror(err));
    free(path);
    return -1;
  }
  const char *p = data;
  size_t left = len;
  int err = 0;
  while (left > 0) {
    ssize_t n = write(fd, p, left);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      err = errno;
      break;
    }
    p += n;
    left -= (size_t)n;
  }
  if (close(fd) != 0 && !err)
    err = errno;
  if (err) {
    kg_error(diag, "cannot write %s: %s", path, strerror(err));
    free(path);
    return -1;
  }
  free(path);
  return 0;
}

int kg_tmpdir_read(const kg_tmpdir_t *t, const char *name, kg_buf_t *out,
                   kg_diag_t *diag) {
  char *path = tmpdir_file(t, name);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    kg_error(diag, "cannot open %s: %s", path, strerror(err));
    free(path);
    return -1;
  }
  for (;;) {
    char chunk[65536];
    ssize_t n = read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      int err = errno;
      close(fd);
      kg_error(diag, "cannot read %s: %s", path, strerror(err));
      free(path);
      return -1;
    }
    if (n == 0)
      break;
    kg_buf_put(out, chunk, (size_t)n);
  }
  close(fd);
  free(path);
  return 0;
}

/* What a child that failed before or at exec tells its parent. */
typedef struct child_failure {
  int in_chdir; /* 1: chdir(cwd) failed, 0: execv failed */
  int err;
} child_failure_t;

static void child_fail(int fd, int in_chdir) {
  child_failure_t f = {in_chdir, errno};
  ssize_t n = write(fd, &f, sizeof f);
  (void)n;
  _exit(127);
}

int kg_proc_run(const char *const *argv, const char *cwd, kg_buf_t *output, int *out_exit,
                kg_diag_t *diag) {
  *out_exit = -1;
  int out_pipe[2], fail_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0)
    return kg_error(diag, "cannot run %s: pipe: %s", argv[0], strerror(errno));
  if (pipe2(fail_pipe, O_CLOEXEC) != 0) {
    int err = errno;
    close(out_pipe[0]);
    close(out_pipe[1]);
    return kg_error(diag, "cannot run %s: pipe: %s", argv[0], strerror(err));
  }
  int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  pid_t pid = fork();
  if (pid == 0) {
    /* Child: only async-signal-safe calls from here on. dup2 clears
     * O_CLOEXEC on the copies, so just 0, 1 and 2 survive exec. */
    if (cwd && chdir(cwd) != 0)
      child_fail(fail_pipe[1], 1);
    if (null_fd >= 0)
      dup2(null_fd, 0);
    dup2(out_pipe[1], 1);
    dup2(out_pipe[1], 2);
    execv(argv[0], (char *const *)argv);
    child_fail(fail_pipe[1], 0);
  }
  int fork_err = errno;
  close(out_pipe[1]);
  close(fail_pipe[1]);
  if (null_fd >= 0)
    close(null_fd);
  if (pid < 0) {
    close(out_pipe[0]);
    close(fail_pipe[0]);
    return kg_error(diag, "cannot run %s: fork: %s", argv[0], strerror(fork_err));
  }
  for (;;) {
    char chunk[4096];
    ssize_t n = read(out_pipe[0], chunk, sizeof chunk);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    kg_buf_put(output, chunk, (size_t)n);
  }
  close(out_pipe[0]);
  child_failure_t f;
  ssize_t got;
  do {
    got = read(fail_pipe[0], &f, sizeof f);
  } while (got < 0 && errno == EINTR);
  close(fail_pipe[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR)
      return kg_error(diag, "cannot run %s: waitpid: %s", argv[0], strerror(errno));
  }
  if (got == (ssize_t)sizeof f) {
    if (f.in_chdir)
      return kg_error(diag, "cannot run %s: cannot enter %s: %s", argv[0], cwd,
                      strerror(f.err));
    return kg_error(diag, "cannot run %s: %s", argv[0], strerror(f.err));
  }
  if (WIFEXITED(status))
    *out_exit = WEXITSTATUS(status);
  else if (WIFSIGNALED(status))
    *out_exit = 128 + WTERMSIG(status);
  return 0;
}

int kg_proc_is_executable(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

char *kg_proc_find(const char *name) {
  if (strchr(name, '/'))
    return kg_proc_is_executable(name) ? kg_xstrdup(name) : NULL;
  const char *path = getenv("PATH");
  if (!path)
    path = "/usr/local/bin:/usr/bin:/bin";
  kg_buf_t cand;
  kg_buf_init(&cand);
  for (const char *p = path;;) {
    const char *end = strchr(p, ':');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    cand.len = 0;
    if (n == 0)
      kg_buf_puts(&cand, "."); /* an empty entry means the current directory */
    else
      kg_buf_put(&cand, p, n);
    kg_buf_printf(&cand, "/%s", name);
    if (kg_proc_is_executable(cand.data))
      return kg_buf_take(&cand, NULL);
    if (!end)
      break;
    p = end + 1;
  }
  kg_buf_free(&cand);
  return NULL;
}

char *kg_proc_pick(const char *chosen, const char *env_var, const char *const *candidates,
                   size_t num_candidates, kg_buf_t *tried) {
  if (chosen) {
    kg_buf_puts(tried, chosen);
    return kg_proc_find(chosen);
  }
  const char *env = getenv(env_var);
  if (env && *env) {
    kg_buf_printf(tried, "$%s=%s", env_var, env);
    return kg_proc_find(env);
  }
  kg_buf_printf(tried, "$%s", env_var);
  for (size_t i = 0; i < num_candidates; i++) {
    kg_buf_printf(tried, ", %s", candidates[i]);
    char *path = kg_proc_find(candidates[i]);
    if (path)
      return path;
  }
  return NULL;
}

void kg_proc_first_error(const char *output, const char *tool, char *out, size_t cap) {
  const char *pick = NULL;
  for (const char *line = output; *line;) {
    const char *end = strchr(line, '\n');
    size_t n = end ? (size_t)(end - line) : strlen(line);
    const char *hit = strstr(line, "error:");
    if (hit && hit < line + n) {
      pick = line;
      break;
    }
    if (!pick && strspn(line, " \t\r") < n)
      pick = line;
    if (!end)
      break;
    line = end + 1;
  }
  out[0] = '\0';
  if (!pick || cap == 0)
    return;
  size_t n = strcspn(pick, "\r\n");
  if (tool) {
    const char *base = strrchr(tool, '/');
    base = base ? base + 1 : tool;
    size_t b = strlen(base);
    if (n > b + 2 && strncmp(pick, base, b) == 0 && strncmp(pick + b, ": ", 2) == 0) {
      pick += b + 2;
      n -= b + 2;
    }
  }
  if (n >= cap)
    n = cap - 1;
  memcpy(out, pick, n);
  out[n] = '\0';
}

/* Characters that need no quoting when pasted into a POSIX shell. */
static int shell_plain(const char *s) {
  if (!*s)
    return 0;
  for (; *s; s++)
    if (!strchr(
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./=:+,-@%",
            *s))
      return 0;
  return 1;
}

static void put_quoted(kg_buf_t *b, const char *s) {
  if (shell_plain(s)) {
    kg_buf_puts(b, s);
    return;
  }
  kg_buf_putc(b, '\'');
  for (; *s; s++) {
    if (*s == '\'')
      kg_buf_puts(b, "'\\''");
    else
      kg_buf_putc(b, *s);
  }
  kg_buf_putc(b, '\'');
}

void kg_proc_print(const char *const *argv, const char *cwd) {
  kg_buf_t line;
  kg_buf_init(&line);
  kg_buf_puts(&line, "kgen: run:");
  if (cwd) {
    kg_buf_puts(&line, " cd ");
    put_quoted(&line, cwd);
    kg_buf_puts(&line, " &&");
  }
  for (int i = 0; argv[i]; i++) {
    kg_buf_putc(&line, ' ');
    put_quoted(&line, argv[i]);
  }
  kg_buf_putc(&line, '\n');
  fputs(line.data, stderr);
  kg_buf_free(&line);
}
