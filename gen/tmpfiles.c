/* tmpfiles.c - private temp directories and child processes for the compile
 * backends (see tmpfiles.h). Needs POSIX (mkdtemp, nftw, fork/execv, pipes,
 * poll, setrlimit, sigaction); gives kg_tmpdir_*, kg_proc_* and kg_cleanup_*.
 * No shell is ever involved: argv goes straight to execv, so source paths and
 * flags need no quoting.
 *
 * Process-wide state, on purpose: the children's limits (set once by main)
 * and the paths and children that SIGINT, SIGTERM and SIGHUP must clean up
 * (a signal handler can reach nothing else). */
#include "tmpfiles.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- cleanup on a signal ---- */

#define KG_CLEANUP_SLOTS 64

/* A path to remove (a file, or a folder and what it holds) or a child to
 * kill when a signal ends kgen. state: 0 free, 1 being filled, 2 live. */
typedef struct cleanup_slot {
  atomic_int state;
  pid_t pid; /* > 0: a child; else path */
  char path[PATH_MAX];
} cleanup_slot_t;

static cleanup_slot_t cleanup_slots[KG_CLEANUP_SLOTS];

static int cleanup_claim(const char *path, pid_t pid) {
  for (int i = 0; i < KG_CLEANUP_SLOTS; i++) {
    int expect = 0;
    if (!atomic_compare_exchange_strong(&cleanup_slots[i].state, &expect, 1))
      continue;
    cleanup_slots[i].pid = pid;
    cleanup_slots[i].path[0] = '\0';
    if (path)
      snprintf(cleanup_slots[i].path, sizeof cleanup_slots[i].path, "%s", path);
    atomic_store(&cleanup_slots[i].state, 2);
    return i;
  }
  return -1; /* full: that path is left to the normal exit */
}

static void cleanup_release(int slot) {
  if (slot >= 0)
    atomic_store(&cleanup_slots[slot].state, 0);
}

int kg_cleanup_add(const char *path) {
  return cleanup_claim(path, 0);
}

void kg_cleanup_remove(int slot) {
  cleanup_release(slot);
}

/* Removes path: a file, or a folder with its files and folders (depth
 * `depth` at most). Async-signal-safe: system calls only. */
static void remove_tree(int at, const char *path, int depth) {
  if (unlinkat(at, path, 0) == 0 || errno == ENOENT)
    return;
  int fd = openat(at, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return;
  char buf[4096];
  for (;;) {
    long n = syscall(SYS_getdents64, fd, buf, sizeof buf);
    if (n <= 0)
      break;
    for (long off = 0; off < n;) {
      struct linux_dirent64 {
        unsigned long long d_ino;
        long long d_off;
        unsigned short d_reclen;
        unsigned char d_type;
        char d_name[];
      } *e = (void *)(buf + off);
      off += e->d_reclen;
      const char *name = e->d_name;
      if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0')))
        continue;
      if (unlinkat(fd, name, 0) != 0 && depth > 0)
        remove_tree(fd, name, depth - 1);
    }
  }
  close(fd);
  unlinkat(at, path, AT_REMOVEDIR);
}

static void cleanup_on_signal(int sig) {
  int saved = errno;
  for (int i = 0; i < KG_CLEANUP_SLOTS; i++)
    if (atomic_load(&cleanup_slots[i].state) == 2 && cleanup_slots[i].pid > 0) {
      kill(-cleanup_slots[i].pid, SIGKILL);
      kill(cleanup_slots[i].pid, SIGKILL);
      waitpid(cleanup_slots[i].pid, NULL, 0);
    }
  for (int i = 0; i < KG_CLEANUP_SLOTS; i++)
    if (atomic_load(&cleanup_slots[i].state) == 2 && cleanup_slots[i].pid <= 0 &&
        cleanup_slots[i].path[0])
      remove_tree(AT_FDCWD, cleanup_slots[i].path, 4);
  errno = saved;
  signal(sig, SIG_DFL);
  raise(sig);
}

void kg_cleanup_install(void) {
  static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = cleanup_on_signal;
    sigfillset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    struct sigaction old;
    /* an ignored signal (nohup) stays ignored */
    if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
      sigaction(sigs[i], &sa, NULL);
  }
}

/* ---- children's limits ---- */

static double proc_max_seconds = 600;
static unsigned long long proc_max_memory = 8ULL << 30;

void kg_proc_set_limits(double max_seconds, unsigned long long max_memory) {
  proc_max_seconds = max_seconds;
  proc_max_memory = max_memory;
}

static double mono_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

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
  t->cleanup = kg_cleanup_add(t->path);
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
  kg_cleanup_remove(t->cleanup);
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

/* Appends what child `pid` writes to fd until it closes it, for at most the
 * compilers' wall-clock limit; past it, kills the child and its group and
 * returns 1. */
static int read_child(int fd, pid_t pid, kg_buf_t *out) {
  const double deadline = mono_seconds() + proc_max_seconds;
  for (;;) {
    double left = deadline - mono_seconds();
    if (left <= 0) {
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      return 1;
    }
    struct pollfd pfd = {fd, POLLIN, 0};
    int ready = poll(&pfd, 1, left > 1 ? 1000 : (int)(left * 1000) + 1);
    if (ready == 0 || (ready < 0 && errno == EINTR))
      continue;
    char chunk[4096];
    ssize_t n = read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return 0;
    kg_buf_put(out, chunk, (size_t)n);
  }
}

/* Waits for child pid, retrying on EINTR; returns its status, or -1. */
static int wait_child(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      return -1;
  return status;
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
  /* the environment, with TMPDIR the child's folder: what a compiler leaves
   * there when killed goes with the folder */
  extern char **environ;
  size_t nenv = 0;
  while (environ[nenv])
    nenv++;
  char **envp = kg_xcalloc(nenv + 2, sizeof *envp);
  size_t k = 0;
  for (size_t i = 0; i < nenv; i++)
    if (!cwd || strncmp(environ[i], "TMPDIR=", 7) != 0)
      envp[k++] = environ[i];
  kg_buf_t tmpdir_var;
  kg_buf_init(&tmpdir_var);
  if (cwd) {
    kg_buf_printf(&tmpdir_var, "TMPDIR=%s", cwd);
    envp[k++] = tmpdir_var.data;
  }
  int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  pid_t pid = fork();
  if (pid == 0) {
    /* Child: only async-signal-safe calls from here on. dup2 clears
     * O_CLOEXEC on the copies, so just 0, 1 and 2 survive exec. */
    setpgid(0, 0); /* its own group: a timeout kills the tools it runs too */
    if (cwd && chdir(cwd) != 0)
      child_fail(fail_pipe[1], 1);
    /* the compilers' caps: CPU time (the wall clock is the parent's) and
     * address space */
    struct rlimit cpu = {(rlim_t)proc_max_seconds + 1, (rlim_t)proc_max_seconds + 2};
    struct rlimit as = {(rlim_t)proc_max_memory, (rlim_t)proc_max_memory};
    setrlimit(RLIMIT_CPU, &cpu);
    setrlimit(RLIMIT_AS, &as);
    if (null_fd >= 0)
      dup2(null_fd, 0);
    dup2(out_pipe[1], 1);
    dup2(out_pipe[1], 2);
    execve(argv[0], (char *const *)argv, envp);
    child_fail(fail_pipe[1], 0);
  }
  int fork_err = errno;
  free(envp);
  kg_buf_free(&tmpdir_var);
  close(out_pipe[1]);
  close(fail_pipe[1]);
  if (null_fd >= 0)
    close(null_fd);
  if (pid < 0) {
    close(out_pipe[0]);
    close(fail_pipe[0]);
    return kg_error(diag, "cannot run %s: fork: %s", argv[0], strerror(fork_err));
  }
  const int slot = cleanup_claim(NULL, pid);
  const int timed_out = read_child(out_pipe[0], pid, output);
  close(out_pipe[0]);
  child_failure_t f;
  ssize_t got;
  do {
    got = read(fail_pipe[0], &f, sizeof f);
  } while (got < 0 && errno == EINTR);
  close(fail_pipe[0]);
  const int status = wait_child(pid);
  cleanup_release(slot);
  if (status < 0)
    return kg_error(diag, "cannot run %s: waitpid: %s", argv[0], strerror(errno));
  if (timed_out || (WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU))
    return kg_error(diag,
                    "%s ran past the compile limit of %g s (raise it with "
                    "--max-compile-seconds)",
                    argv[0], proc_max_seconds);
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

/* What a kg_proc_call child sends back, then msg_len bytes of its diag and
 * len bytes of its result. */
typedef struct call_record {
  int32_t rc;
  uint32_t msg_len;
  uint64_t len;
} call_record_t;

/* Writes all n bytes to fd; 0, or -1. Async-signal-safe. */
static int write_all(int fd, const void *data, size_t n) {
  const char *p = data;
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return -1;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

/* The bytes this process has mapped (/proc/self/statm), or 0 when unknown. */
static unsigned long long mapped_bytes(void) {
  FILE *f = fopen("/proc/self/statm", "re");
  unsigned long long pages = 0;
  if (f) {
    if (fscanf(f, "%llu", &pages) != 1)
      pages = 0;
    fclose(f);
  }
  return pages * (unsigned long long)sysconf(_SC_PAGESIZE);
}

int kg_proc_call(const char *what, kg_proc_fn_t fn, void *arg, kg_buf_t *result,
                 kg_diag_t *diag) {
  /* the child's TMPDIR: what a killed compiler leaves there goes with it */
  kg_tmpdir_t tmp;
  KG_TRY(kg_tmpdir_create(&tmp, diag));
  int out_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) {
    kg_tmpdir_remove(&tmp);
    return kg_error(diag, "cannot run %s: pipe: %s", what, strerror(errno));
  }
  /* the address space the child may grow by: what kgen has mapped (its
   * threads, the compiler's libraries already loaded) plus the cap */
  const unsigned long long as_limit = mapped_bytes() + proc_max_memory;
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
      signal(sigs[i], SIG_DFL); /* kgen's cleanup is the parent's */
    struct rlimit cpu = {(rlim_t)proc_max_seconds + 1, (rlim_t)proc_max_seconds + 2};
    struct rlimit as = {(rlim_t)as_limit, (rlim_t)as_limit};
    setrlimit(RLIMIT_CPU, &cpu);
    setrlimit(RLIMIT_AS, &as);
    setenv("TMPDIR", tmp.path, 1);
    close(out_pipe[0]);
    kg_buf_t out;
    kg_buf_init(&out);
    kg_diag_t d;
    d.msg[0] = '\0';
    const int rc = fn(arg, &out, &d);
    call_record_t rec = {rc, (uint32_t)strnlen(d.msg, sizeof d.msg),
                         rc == 0 ? out.len : 0};
    if (write_all(out_pipe[1], &rec, sizeof rec) != 0 ||
        write_all(out_pipe[1], d.msg, rec.msg_len) != 0 ||
        write_all(out_pipe[1], out.data, (size_t)rec.len) != 0)
      _exit(1);
    _exit(0);
  }
  const int fork_err = errno;
  close(out_pipe[1]);
  if (pid < 0) {
    close(out_pipe[0]);
    kg_tmpdir_remove(&tmp);
    return kg_error(diag, "cannot run %s: fork: %s", what, strerror(fork_err));
  }
  const int slot = cleanup_claim(NULL, pid);
  kg_buf_t reply;
  kg_buf_init(&reply);
  const int timed_out = read_child(out_pipe[0], pid, &reply);
  close(out_pipe[0]);
  const int status = wait_child(pid), wait_err = errno;
  cleanup_release(slot);
  kg_tmpdir_remove(&tmp);
  int rc = -1;
  call_record_t rec;
  if (status < 0) {
    kg_error(diag, "cannot run %s: waitpid: %s", what, strerror(wait_err));
  } else if (timed_out || (WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU)) {
    kg_error(
        diag,
        "%s ran past the compile limit of %g s (raise it with --max-compile-seconds)",
        what, proc_max_seconds);
  } else if (WIFSIGNALED(status)) {
    kg_error(
        diag,
        "%s stopped with signal %d (%s), as it does past the compile memory limit of "
        "%llu MiB (raise it with --max-compile-memory)",
        what, WTERMSIG(status), strsignal(WTERMSIG(status)), proc_max_memory >> 20);
  } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || reply.len < sizeof rec ||
             (memcpy(&rec, reply.data, sizeof rec),
              rec.msg_len >= KG_DIAG_MAX ||
                  reply.len != sizeof rec + rec.msg_len + (size_t)rec.len)) {
    kg_error(diag, "%s failed in its child process (exit status %d)", what,
             WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  } else if (rec.rc != 0) {
    kg_diag_t child;
    memcpy(child.msg, reply.data + sizeof rec, rec.msg_len);
    child.msg[rec.msg_len] = '\0';
    kg_error_raw(diag, child.msg[0] ? child.msg : "kgen: error: the compiler failed");
  } else {
    kg_buf_put(result, reply.data + sizeof rec + rec.msg_len, (size_t)rec.len);
    rc = 0;
  }
  kg_buf_free(&reply);
  return rc;
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
