/* compile_nvrtc.c - the in-process backend for NVIDIA targets: libnvrtc,
 * opened with dlopen on each call and never unloaded (see nvrtc_load). No
 * build-time dependency on CUDA: the few entry points we use are declared
 * here, matching nvrtc.h of CUDA 11.1 and later (nvrtcGetCUBIN is 11.1's).
 * Needs: expanded CUDA C++ (prelude_cuda.hip, common.hip, kernels) that
 * includes nothing. Gives: a cubin for the target's real architecture
 * (--gpu-architecture=sm_90 makes NVRTC run ptxas itself), or the PTX of the
 * same compile for --emit=asm. The source is named "kernel.cu" so messages
 * and the output never hold a path; a failed compile's log supplies the first
 * error line of the one-line diag. */
#include "compile.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tmpfiles.h"

/* From nvrtc.h: nvrtcResult is an int-sized enum, 0 = NVRTC_SUCCESS. */
typedef int nvrtc_result_t;
typedef struct nvrtc_program *nvrtc_program_t;

/* The NVRTC entry points we use, looked up once per load. */
typedef struct nvrtc_api {
  void *lib;
  char path[512]; /* what dlopen was given */
  int major, minor;
  const char *(*get_error_string)(nvrtc_result_t result);
  nvrtc_result_t (*version)(int *major, int *minor);
  nvrtc_result_t (*create_program)(nvrtc_program_t *prog, const char *src,
                                   const char *name, int num_headers,
                                   const char *const *headers,
                                   const char *const *include_names);
  nvrtc_result_t (*destroy_program)(nvrtc_program_t *prog);
  nvrtc_result_t (*compile_program)(nvrtc_program_t prog, int num_options,
                                    const char *const *options);
  nvrtc_result_t (*get_log_size)(nvrtc_program_t prog, size_t *size);
  nvrtc_result_t (*get_log)(nvrtc_program_t prog, char *log);
  nvrtc_result_t (*get_ptx_size)(nvrtc_program_t prog, size_t *size);
  nvrtc_result_t (*get_ptx)(nvrtc_program_t prog, char *ptx);
  nvrtc_result_t (*get_cubin_size)(nvrtc_program_t prog, size_t *size);
  nvrtc_result_t (*get_cubin)(nvrtc_program_t prog, char *cubin);
} nvrtc_api_t;

static const struct {
  const char *name;
  size_t offset;
} nvrtc_symbols[] = {
    {"nvrtcGetErrorString", offsetof(nvrtc_api_t, get_error_string)},
    {"nvrtcVersion", offsetof(nvrtc_api_t, version)},
    {"nvrtcCreateProgram", offsetof(nvrtc_api_t, create_program)},
    {"nvrtcDestroyProgram", offsetof(nvrtc_api_t, destroy_program)},
    {"nvrtcCompileProgram", offsetof(nvrtc_api_t, compile_program)},
    {"nvrtcGetProgramLogSize", offsetof(nvrtc_api_t, get_log_size)},
    {"nvrtcGetProgramLog", offsetof(nvrtc_api_t, get_log)},
    {"nvrtcGetPTXSize", offsetof(nvrtc_api_t, get_ptx_size)},
    {"nvrtcGetPTX", offsetof(nvrtc_api_t, get_ptx)},
    {"nvrtcGetCUBINSize", offsetof(nvrtc_api_t, get_cubin_size)},
    {"nvrtcGetCUBIN", offsetof(nvrtc_api_t, get_cubin)},
};

/* Tried in order when $KGEN_NVRTC is not set; names without a '/' go
 * through the dynamic loader's search (LD_LIBRARY_PATH, ld.so.cache). */
static const char *const nvrtc_candidates[] = {
    "/usr/local/cuda/lib64/libnvrtc.so",
    "libnvrtc.so.13",
    "libnvrtc.so.12",
    "libnvrtc.so",
};

/* Loads NVRTC into `api`. $KGEN_NVRTC, when set and not empty, is the only
 * library tried: a wrong explicit choice is an error, not a reason to pick
 * another. Returns 0, or -1 with a diag naming every place looked at. */
static int nvrtc_load(nvrtc_api_t *api, const char *arch, kg_diag_t *diag) {
  memset(api, 0, sizeof *api);
  const char *env = getenv("KGEN_NVRTC");
  const char *const *names = nvrtc_candidates;
  size_t count = sizeof nvrtc_candidates / sizeof nvrtc_candidates[0];
  if (env && *env) {
    names = &env;
    count = 1;
  }
  kg_buf_t tried;
  kg_buf_init(&tried);
  char why[512] = "";
  for (size_t i = 0; i < count && !api->lib; i++) {
    /* NODELETE: NVRTC maps its builtins library and keeps process-wide
     * state; mapping it once per process and handing that mapping back to
     * every later dlopen is cheaper and never runs its destructors midway. */
    api->lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (api->lib) {
      snprintf(api->path, sizeof api->path, "%s", names[i]);
      break;
    }
    const char *e = dlerror();
    snprintf(why, sizeof why, "%s", e ? e : "unknown reason");
    kg_buf_printf(&tried, "%s%s%s", tried.len ? ", " : "",
                  names[i] == env ? "$KGEN_NVRTC=" : "", names[i]);
  }
  if (!api->lib) {
    kg_error(diag,
             "nvrtc: libnvrtc not found for %s (tried %s; last dlopen: %s); install "
             "CUDA's NVRTC or set KGEN_NVRTC to the library",
             arch, tried.data, why);
    kg_buf_free(&tried);
    return -1;
  }
  kg_buf_free(&tried);
  for (size_t i = 0; i < sizeof nvrtc_symbols / sizeof nvrtc_symbols[0]; i++) {
    void *sym = dlsym(api->lib, nvrtc_symbols[i].name);
    if (!sym) {
      kg_error(diag, "nvrtc: %s has no %s (NVRTC older than CUDA 11.1)", api->path,
               nvrtc_symbols[i].name);
      dlclose(api->lib);
      api->lib = NULL;
      return -1;
    }
    /* POSIX: a function's address round-trips through void *. */
    memcpy((char *)api + nvrtc_symbols[i].offset, &sym, sizeof sym);
  }
  if (api->version(&api->major, &api->minor) != 0)
    api->major = api->minor = 0;
  return 0;
}

static void nvrtc_unload(nvrtc_api_t *api) {
  if (api->lib)
    dlclose(api->lib);
  api->lib = NULL;
}

const char *kg_nvrtc_describe(void) {
  static _Thread_local char text[600]; /* valid until the next call here */
  nvrtc_api_t api;
  kg_diag_t ignored;
  if (nvrtc_load(&api, "", &ignored) != 0) {
    snprintf(text, sizeof text, "nvrtc (not found)");
    return text;
  }
  snprintf(text, sizeof text, "nvrtc %d.%d (%s)", api.major, api.minor, api.path);
  nvrtc_unload(&api);
  return text;
}

static const char *nvrtc_status(const nvrtc_api_t *api, nvrtc_result_t r) {
  const char *s = api->get_error_string(r);
  return s ? s : "unknown NVRTC error";
}

/* The compile log, NUL-terminated, appended to `log` (empty when none). */
static void take_log(const nvrtc_api_t *api, nvrtc_program_t prog, kg_buf_t *log) {
  size_t size = 0;
  if (api->get_log_size(prog, &size) != 0 || size <= 1)
    return;
  kg_buf_reserve(log, size);
  if (api->get_log(prog, log->data + log->len) != 0)
    return;
  log->len += strnlen(log->data + log->len, size);
  log->data[log->len] = '\0';
}

/* Appends one output of a compiled program: the cubin, or the PTX text
 * without the NUL that NVRTC counts in its size. */
static int take_output(const nvrtc_api_t *api, nvrtc_program_t prog, const char *arch,
                       kg_artifact_t what, kg_buf_t *out, kg_diag_t *diag) {
  int ptx = what == KG_ARTIFACT_ASM;
  size_t size = 0;
  nvrtc_result_t r =
      ptx ? api->get_ptx_size(prog, &size) : api->get_cubin_size(prog, &size);
  if (r != 0 || size == 0)
    return kg_error(diag, "nvrtc %d.%d: no %s for %s (%s)", api->major, api->minor,
                    ptx ? "PTX" : "cubin", arch, r != 0 ? nvrtc_status(api, r) : "empty");
  kg_buf_reserve(out, size);
  r = ptx ? api->get_ptx(prog, out->data + out->len)
          : api->get_cubin(prog, out->data + out->len);
  if (r != 0)
    return kg_error(diag, "nvrtc %d.%d: cannot read the %s for %s: %s", api->major,
                    api->minor, ptx ? "PTX" : "cubin", arch, nvrtc_status(api, r));
  out->len += ptx ? strnlen(out->data + out->len, size) : size;
  out->data[out->len] = '\0';
  return 0;
}

/* The first line of an NVRTC log that reports an error: the front end's
 * "kernel.cu(2): error: ...", ptxas's "ptxas error   : ...", NVRTC's own
 * "nvrtc: error: ..."; warnings come first in the log, so the first line will
 * not do. Else what kg_proc_first_error picks. */
static void log_error_line(const char *log, char *out, size_t cap) {
  for (const char *line = log; *line;) {
    size_t n = strcspn(line, "\n");
    const char *e = line;
    while ((e = strstr(e, "error")) != NULL && e < line + n) {
      const char *colon = e + 5 + strspn(e + 5, " ");
      if (*colon == ':') {
        if (n >= cap)
          n = cap - 1;
        memcpy(out, line, n);
        out[n] = '\0';
        return;
      }
      e += 5;
    }
    line += n;
    line += *line == '\n';
  }
  kg_proc_first_error(log, NULL, out, cap);
}

/* The compile proper, once NVRTC is loaded. */
static int nvrtc_build(const nvrtc_api_t *api, const kg_compile_opts_t *opts,
                       const char *source, size_t len, kg_artifact_t what, kg_buf_t *out,
                       kg_diag_t *diag) {
  /* NVRTC takes a C string: copy the source to add its NUL. */
  char *text = kg_xmalloc(len + 1);
  memcpy(text, source, len);
  text[len] = '\0';
  char arch_flag[96];
  snprintf(arch_flag, sizeof arch_flag, "--gpu-architecture=%s", opts->arch);
  const char **options = kg_xcalloc((size_t)opts->num_flags + 4, sizeof *options);
  int n = 0;
  options[n++] = arch_flag; /* a real arch: NVRTC runs ptxas and keeps the cubin */
  options[n++] = "-default-device";
  options[n++] = "-std=c++17";
  for (int i = 0; i < opts->num_flags; i++)
    options[n++] = opts->flags[i];
  if (opts->verbose) {
    fprintf(stderr, "kgen: nvrtc: compile kernel.cu");
    for (int i = 0; i < n; i++)
      fprintf(stderr, " %s", options[i]);
    fputc('\n', stderr);
  }

  nvrtc_program_t prog = NULL;
  int rc = 0;
  nvrtc_result_t r = api->create_program(&prog, text, "kernel.cu", 0, NULL, NULL);
  if (r != 0) {
    rc = kg_error(diag, "nvrtc %d.%d: cannot create a program for %s: %s", api->major,
                  api->minor, opts->arch, nvrtc_status(api, r));
    prog = NULL;
  }
  if (rc == 0) {
    r = api->compile_program(prog, n, options);
    kg_buf_t log;
    kg_buf_init(&log);
    take_log(api, prog, &log);
    if (opts->verbose && log.len > 0)
      fprintf(stderr, "%s%s", log.data, log.data[log.len - 1] == '\n' ? "" : "\n");
    if (r != 0) {
      char line[1024];
      log_error_line(log.len ? log.data : "", line, sizeof line);
      rc = kg_error(diag, "nvrtc %d.%d: %s for %s: %s", api->major, api->minor,
                    nvrtc_status(api, r), opts->arch, line[0] ? line : "no log");
    }
    kg_buf_free(&log);
  }
  if (rc == 0)
    rc = take_output(api, prog, opts->arch, what, out, diag);
  if (prog)
    api->destroy_program(&prog);
  free(options);
  free(text);
  return rc;
}

int kg_nvrtc_compile(const kg_compile_opts_t *opts, const char *source, size_t len,
                     kg_artifact_t what, kg_buf_t *out, kg_diag_t *diag) {
  if (what == KG_ARTIFACT_LLVM)
    return kg_error(diag,
                    "--emit=llvm is not available for cuda targets (%s): NVRTC gives "
                    "no LLVM IR text; --emit=asm gives PTX",
                    opts->arch);
  nvrtc_api_t api;
  KG_TRY(nvrtc_load(&api, opts->arch, diag));
  kg_buf_t result;
  kg_buf_init(&result);
  int rc = nvrtc_build(&api, opts, source, len, what, &result, diag);
  if (rc == 0)
    kg_buf_put(out, result.data, result.len);
  kg_buf_free(&result);
  nvrtc_unload(&api);
  return rc;
}
