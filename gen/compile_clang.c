/* compile_clang.c - the out-of-process backend: clang -x hip
 * --offload-device-only, which drives ld.lld itself to link the code object.
 * Needs: a clang with the AMDGPU target (Debian's clang-19 + lld-19, or ROCm's
 * own) and expanded HIP source that needs no HIP headers or device libraries.
 * Gives: the code object, LLVM IR text (-S -emit-llvm) or assembly (-S).
 * The source is written as "kernel.hip" into a private temp directory and clang
 * runs there on that relative name, so no temp path reaches the output;
 * -fuse-cuid=none keeps clang from naming a symbol after a hash of the path. */
#include "compile.h"

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tmpfiles.h"

/* Tried in order when neither --clang nor $KGEN_CLANG names one. */
static const char *const clang_candidates[] = {
    "/opt/rocm/llvm/bin/clang",
    "/usr/lib/llvm-19/bin/clang",
    "clang-19",
    "clang",
};

/* The clang to run, malloc'd, or NULL; `tried` gets the places looked at.
 * A clang named by --clang or $KGEN_CLANG is the only one tried: a wrong
 * explicit choice is an error, not a reason to pick another compiler. */
static char *clang_find(const kg_compile_opts_t *opts, kg_buf_t *tried) {
  return kg_proc_pick(opts->clang_path, "KGEN_CLANG", clang_candidates,
                      sizeof clang_candidates / sizeof clang_candidates[0], tried);
}

/* "19.1.7" from `clang --version` ("Debian clang version 19.1.7 (3~deb12u1)",
 * "AMD clang version 17.0.0 (...)"); "" when it cannot be told. */
static void clang_version(const char *clang, char *out, size_t cap) {
  const char *argv[] = {clang, "--version", NULL};
  kg_buf_t text;
  kg_buf_init(&text);
  kg_diag_t ignored;
  int status = -1;
  out[0] = '\0';
  if (kg_proc_run(argv, NULL, &text, &status, &ignored) == 0 && status == 0 && text.len) {
    const char *v = strstr(text.data, "clang version ");
    if (v) {
      v += strlen("clang version ");
      size_t n = strcspn(v, " \t\r\n");
      if (n >= cap)
        n = cap - 1;
      memcpy(out, v, n);
      out[n] = '\0';
    }
  }
  kg_buf_free(&text);
}

const char *kg_clang_describe(const kg_compile_opts_t *opts) {
  static _Thread_local char text[1024]; /* valid until the next call here */
  kg_buf_t tried;
  kg_buf_init(&tried);
  char *clang = clang_find(opts, &tried);
  kg_buf_free(&tried);
  if (!clang) {
    snprintf(text, sizeof text, "clang (not found)");
    return text;
  }
  char version[64];
  clang_version(clang, version, sizeof version);
  if (version[0])
    snprintf(text, sizeof text, "clang %s (%s)", version, clang);
  else
    snprintf(text, sizeof text, "clang (%s)", clang);
  free(clang);
  return text;
}

/* The linker to name with --ld-path, malloc'd, or NULL when clang will find
 * ld.lld beside itself (as in /usr/lib/llvm-19/bin and /opt/rocm/llvm/bin). */
static char *lld_for(const char *clang) {
  char *real = realpath(clang, NULL);
  if (!real)
    return NULL;
  kg_buf_t beside;
  kg_buf_init(&beside);
  kg_buf_printf(&beside, "%s/ld.lld", dirname(real));
  free(real);
  int found = kg_proc_is_executable(beside.data);
  kg_buf_free(&beside);
  return found ? NULL : kg_proc_find("ld.lld");
}

static const char *output_name(kg_artifact_t what) {
  switch (what) {
  case KG_ARTIFACT_LLVM:
    return "kernel.ll";
  case KG_ARTIFACT_ASM:
    return "kernel.s";
  case KG_ARTIFACT_CODE_OBJECT:
    break;
  }
  return "kernel.hsaco";
}

/* Runs clang in `dir` on kernel.hip; appends its output file to `out`. */
static int clang_run(const kg_compile_opts_t *opts, const char *clang,
                     const kg_tmpdir_t *dir, kg_artifact_t what, kg_buf_t *out,
                     kg_diag_t *diag) {
  char arch_flag[128], cov_flag[64];
  snprintf(arch_flag, sizeof arch_flag, "--offload-arch=%s", opts->arch);
  snprintf(cov_flag, sizeof cov_flag, "-mcode-object-version=%d",
           opts->code_object_version ? opts->code_object_version : 5);
  char *lld = lld_for(clang);
  kg_buf_t ld_flag;
  kg_buf_init(&ld_flag);
  if (lld)
    kg_buf_printf(&ld_flag, "--ld-path=%s", lld);
  free(lld);

  const char **argv = kg_xcalloc((size_t)opts->num_flags + 24, sizeof *argv);
  int n = 0;
  argv[n++] = clang;
  argv[n++] = "-x";
  argv[n++] = "hip";
  argv[n++] = "-std=c++17";
  argv[n++] = arch_flag;
  argv[n++] = "--offload-device-only";
  argv[n++] = "--no-gpu-bundle-output";
  argv[n++] = "-nogpuinc";
  argv[n++] = "-nogpulib";
  argv[n++] = "-fuse-cuid=none";
  argv[n++] = KG_AMDGCN_OPT;
  argv[n++] = cov_flag;
  if (ld_flag.len)
    argv[n++] = ld_flag.data;
  for (int i = 0; i < opts->num_flags; i++)
    argv[n++] = opts->flags[i];
  if (what != KG_ARTIFACT_CODE_OBJECT)
    argv[n++] = "-S";
  if (what == KG_ARTIFACT_LLVM)
    argv[n++] = "-emit-llvm";
  argv[n++] = "-o";
  argv[n++] = output_name(what);
  argv[n++] = "kernel.hip";
  argv[n] = NULL;

  if (opts->verbose)
    kg_proc_print(argv, dir->path);
  kg_buf_t log;
  kg_buf_init(&log);
  int status = -1;
  int rc = kg_proc_run(argv, dir->path, &log, &status, diag);
  if (rc == 0 && opts->verbose && log.len)
    fprintf(stderr, "%s%s", log.data, log.data[log.len - 1] == '\n' ? "" : "\n");
  if (rc == 0 && status != 0) {
    char line[1024];
    kg_proc_first_error(log.len ? log.data : "", clang, line, sizeof line);
    if (status > 128)
      rc = kg_error(diag, "clang: %s for %s died of signal %d%s%s", clang, opts->arch,
                    status - 128, line[0] ? ": " : "", line);
    else if (line[0])
      rc = kg_error(diag, "clang: %s", line);
    else
      rc = kg_error(diag, "clang: %s for %s exited with status %d", clang, opts->arch,
                    status);
  }
  if (rc == 0)
    rc = kg_tmpdir_read(dir, output_name(what), out, diag);
  kg_buf_free(&log);
  kg_buf_free(&ld_flag);
  free(argv);
  return rc;
}

int kg_clang_compile(const kg_compile_opts_t *opts, const char *source, size_t len,
                     kg_artifact_t what, kg_buf_t *out, kg_diag_t *diag) {
  if (opts->triple && strcmp(opts->triple, "amdgcn-amd-amdhsa") != 0)
    return kg_error(diag, "--compiler=clang: %s: only amdgcn-amd-amdhsa is supported",
                    opts->triple);
  kg_buf_t tried;
  kg_buf_init(&tried);
  char *clang = clang_find(opts, &tried);
  if (!clang) {
    kg_error(diag,
             "no clang found for %s (tried %s); install clang-19 and lld-19 or pass "
             "--clang=PATH",
             opts->arch, tried.data);
    kg_buf_free(&tried);
    return -1;
  }
  kg_buf_free(&tried);
  kg_tmpdir_t dir;
  int rc = kg_tmpdir_create(&dir, diag);
  if (rc == 0)
    rc = kg_tmpdir_write(&dir, "kernel.hip", source, len, diag);
  if (rc == 0)
    rc = clang_run(opts, clang, &dir, what, out, diag);
  kg_tmpdir_remove(&dir);
  free(clang);
  return rc;
}
