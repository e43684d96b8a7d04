/* compile_host.c - the sim image: the expanded source (C++17 with the sim
 * prelude) compiled by a host C++ compiler into a shared object that the
 * runtime's sim device dlopens. Needs a host C++ compiler ($KGEN_HOST_CXX,
 * clang++-19 or the system c++/g++). Gives the .so bytes. Like the clang
 * backend it runs in a private temp directory on the relative names
 * kernel.cpp and kernel.so, so the output does not depend on where that is. */
#include "compile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tmpfiles.h"

/* Tried in order when $KGEN_HOST_CXX is not set. */
static const char *const host_candidates[] = {
    "/usr/lib/llvm-19/bin/clang++",
    "clang++-19",
    "c++",
    "g++",
};

/* The compiler to run, malloc'd, or NULL; `tried` gets the places looked at.
 * $KGEN_HOST_CXX, when set, is the only one tried. */
static char *host_find(kg_buf_t *tried) {
  return kg_proc_pick(NULL, "KGEN_HOST_CXX", host_candidates,
                      sizeof host_candidates / sizeof host_candidates[0], tried);
}

static int host_run(const char *cxx, const kg_tmpdir_t *dir, int verbose, kg_buf_t *out,
                    kg_diag_t *diag) {
  const char *argv[] = {
      cxx,         "-x",    "c++",       "-std=c++17",
      "-O2",       "-fPIC", "-shared",   "-fno-exceptions",
      "-fno-rtti", "-o",    "kernel.so", "kernel.cpp",
      NULL,
  };
  if (verbose)
    kg_proc_print(argv, dir->path);
  kg_buf_t log;
  kg_buf_init(&log);
  int status = -1;
  int rc = kg_proc_run(argv, dir->path, &log, &status, diag);
  if (rc == 0 && verbose && log.len)
    fprintf(stderr, "%s%s", log.data, log.data[log.len - 1] == '\n' ? "" : "\n");
  if (rc == 0 && status != 0) {
    char line[1024];
    kg_proc_first_error(log.len ? log.data : "", cxx, line, sizeof line);
    if (line[0])
      rc = kg_error(diag, "host c++: %s", line);
    else
      rc = kg_error(diag, "host c++: %s exited with status %d", cxx, status);
  }
  if (rc == 0)
    rc = kg_tmpdir_read(dir, "kernel.so", out, diag);
  kg_buf_free(&log);
  return rc;
}

int kg_compile_host(const char *source, size_t len, int verbose, kg_buf_t *out,
                    kg_diag_t *diag) {
  kg_buf_t tried;
  kg_buf_init(&tried);
  char *cxx = host_find(&tried);
  if (!cxx) {
    kg_error(diag,
             "no host C++ compiler found for the sim image (tried %s); install "
             "clang-19 or g++, or set KGEN_HOST_CXX",
             tried.data);
    kg_buf_free(&tried);
    return -1;
  }
  kg_buf_free(&tried);
  kg_buf_t result;
  kg_buf_init(&result);
  kg_tmpdir_t dir;
  int rc = kg_tmpdir_create(&dir, diag);
  if (rc == 0)
    rc = kg_tmpdir_write(&dir, "kernel.cpp", source, len, diag);
  if (rc == 0)
    rc = host_run(cxx, &dir, verbose, &result, diag);
  kg_tmpdir_remove(&dir);
  free(cxx);
  if (rc == 0) {
    out->len = 0;
    kg_buf_put(out, result.data, result.len);
  }
  kg_buf_free(&result);
  return rc;
}

void kg_host_identity(kg_buf_t *out) {
  kg_buf_t tried;
  kg_buf_init(&tried);
  char *cxx = host_find(&tried);
  kg_buf_free(&tried);
  if (!cxx) {
    kg_buf_puts(out, "no host compiler");
    return;
  }
  const char *argv[] = {cxx, "--version", NULL};
  kg_buf_t log;
  kg_buf_init(&log);
  int status = -1;
  kg_diag_t ignored;
  kg_buf_printf(out, "%s: ", cxx);
  if (kg_proc_run(argv, NULL, &log, &status, &ignored) == 0 && status == 0 && log.len) {
    size_t n = 0;
    while (n < log.len && log.data[n] != '\n')
      n++;
    kg_buf_put(out, log.data, n);
  }
  kg_buf_free(&log);
  free(cxx);
}
