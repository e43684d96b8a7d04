/* compile.c - picks the device compile backend and says which one ran.
 * Needs: compile_comgr.c, compile_clang.c and compile_nvrtc.c. Gives
 * kg_compile_device. The target's platform decides first: cuda targets have
 * one backend, nvrtc. For amdgcn, --compiler=auto takes comgr when its ISA
 * list holds the target (in process, no temp files) and clang otherwise, and
 * LLVM IR text always from clang, since comgr only gives bitcode. The
 * in-process backends (comgr, NVRTC) run in a child process (kg_proc_call),
 * so that the compilers' time and memory caps bind them as they bind clang. */
#include "compile.h"

#include <stdio.h>
#include <string.h>

#include "tmpfiles.h"

static const char *const compiler_names[] = {"auto", "comgr", "clang", "nvrtc"};

/* An in-process backend's compile, run in a child process under the
 * compilers' caps (kg_proc_call): used names it in a cap's message. */
typedef struct inprocess_compile {
  const kg_compile_opts_t *opts;
  const char *source;
  size_t len;
  kg_artifact_t what;
  int nvrtc; /* else comgr */
} inprocess_compile_t;

static int inprocess_child(void *arg, kg_buf_t *out, kg_diag_t *diag) {
  const inprocess_compile_t *c = arg;
  return c->nvrtc ? kg_nvrtc_compile(c->opts, c->source, c->len, c->what, out, diag)
                  : kg_comgr_compile(c->opts, c->source, c->len, c->what, out, diag);
}

static int compile_inprocess(const kg_compile_opts_t *opts, const char *source,
                             size_t len, kg_artifact_t what, int nvrtc, const char *used,
                             kg_buf_t *out, kg_diag_t *diag) {
  inprocess_compile_t c = {opts, source, len, what, nvrtc};
  return kg_proc_call(used, inprocess_child, &c, out, diag);
}

/* A cuda target: NVRTC or nothing. */
static int compile_cuda(const kg_compile_opts_t *opts, const char *source, size_t len,
                        kg_artifact_t what, kg_buf_t *out, char *used, size_t used_size,
                        kg_diag_t *diag) {
  if (opts->compiler != KG_COMPILER_AUTO && opts->compiler != KG_COMPILER_NVRTC)
    return kg_error(diag, "--compiler=%s: %s is a cuda target, which only nvrtc compiles",
                    compiler_names[opts->compiler], opts->arch);
  snprintf(used, used_size, "%s", kg_nvrtc_describe());
  if (opts->verbose)
    fprintf(stderr, "kgen: %s: compiler %s (%s)\n", opts->arch, used,
            opts->compiler == KG_COMPILER_NVRTC ? "--compiler=nvrtc"
                                                : "auto: a cuda target");
  return compile_inprocess(opts, source, len, what, 1, used, out, diag);
}

/* The amdgcn backend kg_compile_device runs for opts and what: `used` gets
 * its description, `why` the reason. comgr is probed once: auto needs its
 * ISA list, and "comgr 2.4" its version. */
static kg_compiler_t choose_amdgcn(const kg_compile_opts_t *opts, kg_artifact_t what,
                                   char *used, size_t used_size, char *why,
                                   size_t why_size) {
  char comgr_version[32] = "not found";
  int comgr_lists = 0;
  if (opts->compiler != KG_COMPILER_CLANG) {
    const char *version = NULL;
    comgr_lists = kg_comgr_supports(opts->arch, &version);
    snprintf(comgr_version, sizeof comgr_version, "%s", version);
  }

  kg_compiler_t compiler = opts->compiler;
  if (compiler == KG_COMPILER_COMGR) {
    snprintf(why, why_size, "--compiler=comgr");
  } else if (compiler == KG_COMPILER_CLANG) {
    snprintf(why, why_size, "--compiler=clang");
  } else if (what == KG_ARTIFACT_LLVM) {
    compiler = KG_COMPILER_CLANG;
    snprintf(why, why_size, "auto: LLVM IR text needs clang");
  } else if (comgr_lists) {
    compiler = KG_COMPILER_COMGR;
    snprintf(why, why_size, "auto: comgr lists %s", opts->arch);
  } else {
    compiler = KG_COMPILER_CLANG;
    if (strcmp(comgr_version, "not found") == 0)
      snprintf(why, why_size, "auto: comgr not found");
    else
      snprintf(why, why_size, "auto: comgr %s does not list %s", comgr_version,
               opts->arch);
  }

  if (compiler == KG_COMPILER_COMGR)
    snprintf(used, used_size, "comgr %s", comgr_version);
  else
    snprintf(used, used_size, "%s", kg_clang_describe(opts));
  return compiler;
}

int kg_compile_device(const kg_compile_opts_t *opts, const char *source, size_t len,
                      kg_artifact_t what, kg_buf_t *out, const char **out_used,
                      kg_diag_t *diag) {
  static _Thread_local char used[1200]; /* what *out_used points at */
  *out_used = NULL;
  if (!opts->arch || !*opts->arch)
    return kg_error(diag, "no target processor given to compile for");
  const char *platform = opts->platform ? opts->platform : "amdgcn";
  if (strcmp(platform, "cuda") == 0) {
    kg_buf_t result;
    kg_buf_init(&result);
    int rc = compile_cuda(opts, source, len, what, &result, used, sizeof used, diag);
    if (rc == 0) {
      out->len = 0;
      kg_buf_put(out, result.data, result.len);
      *out_used = used;
    }
    kg_buf_free(&result);
    return rc;
  }
  if (strcmp(platform, "amdgcn") != 0)
    return kg_error(diag, "%s: platform %s has no compile backend (amdgcn, cuda)",
                    opts->arch, platform);
  if (opts->compiler == KG_COMPILER_NVRTC)
    return kg_error(diag, "--compiler=nvrtc: %s is an amdgcn target (use comgr or clang)",
                    opts->arch);

  char why[256];
  const kg_compiler_t compiler =
      choose_amdgcn(opts, what, used, sizeof used, why, sizeof why);
  if (opts->verbose)
    fprintf(stderr, "kgen: %s: compiler %s (%s)\n", opts->arch, used, why);

  kg_buf_t result;
  kg_buf_init(&result);
  int rc = compiler == KG_COMPILER_COMGR
               ? compile_inprocess(opts, source, len, what, 0, used, &result, diag)
               : kg_clang_compile(opts, source, len, what, &result, diag);
  if (rc == 0) {
    out->len = 0;
    kg_buf_put(out, result.data, result.len);
    *out_used = used;
  }
  kg_buf_free(&result);
  return rc;
}

void kg_compile_identity(const kg_compile_opts_t *opts, kg_artifact_t what,
                         kg_buf_t *out) {
  const char *platform = opts->platform ? opts->platform : "amdgcn";
  if (strcmp(platform, "cuda") == 0) {
    kg_buf_puts(out, kg_nvrtc_describe());
    return;
  }
  char used[1200], why[256];
  choose_amdgcn(opts, what, used, sizeof used, why, sizeof why);
  kg_buf_puts(out, used);
}
