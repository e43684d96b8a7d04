/* compile_comgr.c - the in-process backend: libamd_comgr, opened with dlopen
 * on each call and never unloaded (see comgr_load). No build-time dependency
 * on ROCm: the few types and enum values we use are declared here, matching
 * amd_comgr.h of comgr 2.x.
 * Needs: expanded HIP source that defines its own __global__ etc. (no HIP
 * headers, no device libraries). Gives: an executable code object via
 * source -> bc -> relocatable -> executable, or assembly via bc -> assembly.
 * Every handle is released on every path; a failed action's log supplies the
 * first error line of the one-line diag. */
#include "compile.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tmpfiles.h"

/* From amd_comgr.h (comgr 2.x ABI). */
typedef enum comgr_status {
  COMGR_STATUS_SUCCESS = 0x0,
} comgr_status_t;
typedef enum comgr_language {
  COMGR_LANGUAGE_HIP = 0x4,
} comgr_language_t;
typedef enum comgr_data_kind {
  COMGR_DATA_KIND_SOURCE = 0x1,
  COMGR_DATA_KIND_LOG = 0x5,
  COMGR_DATA_KIND_BC = 0x6,
  COMGR_DATA_KIND_RELOCATABLE = 0x7,
  COMGR_DATA_KIND_EXECUTABLE = 0x8,
} comgr_data_kind_t;
typedef enum comgr_action_kind {
  COMGR_ACTION_COMPILE_SOURCE_TO_BC = 0x2,
  COMGR_ACTION_CODEGEN_BC_TO_RELOCATABLE = 0x6,
  COMGR_ACTION_CODEGEN_BC_TO_ASSEMBLY = 0x7,
  COMGR_ACTION_LINK_RELOCATABLE_TO_EXECUTABLE = 0x9,
} comgr_action_kind_t;
typedef struct comgr_data {
  uint64_t handle;
} comgr_data_t;
typedef struct comgr_data_set {
  uint64_t handle;
} comgr_data_set_t;
typedef struct comgr_action_info {
  uint64_t handle;
} comgr_action_info_t;

/* The comgr entry points we use, looked up once per load. */
typedef struct comgr_api {
  void *lib;
  const char *soname;
  size_t major, minor;
  void (*get_version)(size_t *major, size_t *minor);
  comgr_status_t (*status_string)(comgr_status_t status, const char **text);
  comgr_status_t (*get_isa_count)(size_t *count);
  comgr_status_t (*get_isa_name)(size_t index, const char **name);
  comgr_status_t (*create_data)(comgr_data_kind_t kind, comgr_data_t *data);
  comgr_status_t (*release_data)(comgr_data_t data);
  comgr_status_t (*set_data)(comgr_data_t data, size_t size, const char *bytes);
  comgr_status_t (*set_data_name)(comgr_data_t data, const char *name);
  comgr_status_t (*get_data)(comgr_data_t data, size_t *size, char *bytes);
  comgr_status_t (*create_data_set)(comgr_data_set_t *set);
  comgr_status_t (*destroy_data_set)(comgr_data_set_t set);
  comgr_status_t (*data_set_add)(comgr_data_set_t set, comgr_data_t data);
  comgr_status_t (*action_data_count)(comgr_data_set_t set, comgr_data_kind_t kind,
                                      size_t *count);
  comgr_status_t (*action_data_get_data)(comgr_data_set_t set, comgr_data_kind_t kind,
                                         size_t index, comgr_data_t *data);
  comgr_status_t (*create_action_info)(comgr_action_info_t *info);
  comgr_status_t (*destroy_action_info)(comgr_action_info_t info);
  comgr_status_t (*action_info_set_isa_name)(comgr_action_info_t info, const char *name);
  comgr_status_t (*action_info_set_language)(comgr_action_info_t info,
                                             comgr_language_t language);
  comgr_status_t (*action_info_set_option_list)(comgr_action_info_t info,
                                                const char *options[], size_t count);
  comgr_status_t (*action_info_set_logging)(comgr_action_info_t info, bool logging);
  comgr_status_t (*do_action)(comgr_action_kind_t kind, comgr_action_info_t info,
                              comgr_data_set_t input, comgr_data_set_t result);
} comgr_api_t;

static const struct {
  const char *name;
  size_t offset;
} comgr_symbols[] = {
    {"amd_comgr_get_version", offsetof(comgr_api_t, get_version)},
    {"amd_comgr_status_string", offsetof(comgr_api_t, status_string)},
    {"amd_comgr_get_isa_count", offsetof(comgr_api_t, get_isa_count)},
    {"amd_comgr_get_isa_name", offsetof(comgr_api_t, get_isa_name)},
    {"amd_comgr_create_data", offsetof(comgr_api_t, create_data)},
    {"amd_comgr_release_data", offsetof(comgr_api_t, release_data)},
    {"amd_comgr_set_data", offsetof(comgr_api_t, set_data)},
    {"amd_comgr_set_data_name", offsetof(comgr_api_t, set_data_name)},
    {"amd_comgr_get_data", offsetof(comgr_api_t, get_data)},
    {"amd_comgr_create_data_set", offsetof(comgr_api_t, create_data_set)},
    {"amd_comgr_destroy_data_set", offsetof(comgr_api_t, destroy_data_set)},
    {"amd_comgr_data_set_add", offsetof(comgr_api_t, data_set_add)},
    {"amd_comgr_action_data_count", offsetof(comgr_api_t, action_data_count)},
    {"amd_comgr_action_data_get_data", offsetof(comgr_api_t, action_data_get_data)},
    {"amd_comgr_create_action_info", offsetof(comgr_api_t, create_action_info)},
    {"amd_comgr_destroy_action_info", offsetof(comgr_api_t, destroy_action_info)},
    {"amd_comgr_action_info_set_isa_name",
     offsetof(comgr_api_t, action_info_set_isa_name)},
    {"amd_comgr_action_info_set_language",
     offsetof(comgr_api_t, action_info_set_language)},
    {"amd_comgr_action_info_set_option_list",
     offsetof(comgr_api_t, action_info_set_option_list)},
    {"amd_comgr_action_info_set_logging", offsetof(comgr_api_t, action_info_set_logging)},
    {"amd_comgr_do_action", offsetof(comgr_api_t, do_action)},
};

static const char *const comgr_sonames[] = {"libamd_comgr.so.3", "libamd_comgr.so.2",
                                            "libamd_comgr.so"};

/* Loads comgr into `api`. Returns 0, or -1 with a diag (not installed, or
 * too old to have a symbol we need). */
static int comgr_load(comgr_api_t *api, kg_diag_t *diag) {
  memset(api, 0, sizeof *api);
  for (size_t i = 0; i < sizeof comgr_sonames / sizeof comgr_sonames[0]; i++) {
    /* NODELETE: comgr registers LLVM command-line options in libLLVM, which
     * stays loaded; unloading comgr and loading it again would register them
     * twice and abort ("Option 'disassemble' registered more than once"). With
     * it, the next dlopen just hands back the loaded library. */
    api->lib = dlopen(comgr_sonames[i], RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (api->lib) {
      api->soname = comgr_sonames[i];
      break;
    }
  }
  if (!api->lib)
    return kg_error(diag, "--compiler=comgr: libamd_comgr not found (install "
                          "libamd-comgr-dev or use --compiler=clang)");
  for (size_t i = 0; i < sizeof comgr_symbols / sizeof comgr_symbols[0]; i++) {
    void *sym = dlsym(api->lib, comgr_symbols[i].name);
    if (!sym) {
      kg_error(diag,
               "--compiler=comgr: %s has no %s (comgr older than 2.0); use "
               "--compiler=clang",
               api->soname, comgr_symbols[i].name);
      dlclose(api->lib);
      api->lib = NULL;
      return -1;
    }
    memcpy((char *)api + comgr_symbols[i].offset, &sym, sizeof sym);
  }
  api->get_version(&api->major, &api->minor);
  return 0;
}

static void comgr_unload(comgr_api_t *api) {
  if (api->lib)
    dlclose(api->lib);
  api->lib = NULL;
}

/* The processor of an ISA name or arch: "amdgcn-amd-amdhsa--gfx90a:xnack-" and
 * "gfx90a:xnack-" both give "gfx90a". Writes at most cap-1 characters. */
static void isa_processor(const char *isa, char *out, size_t cap) {
  const char *p = strstr(isa, "--");
  p = p ? p + 2 : isa;
  size_t n = strcspn(p, ":");
  if (n >= cap)
    n = cap - 1;
  memcpy(out, p, n);
  out[n] = '\0';
}

/* 1 when comgr lists `arch`; when `list` is given, appends "gfx600, ..." (each
 * processor once, in comgr's order). */
static int comgr_lists(const comgr_api_t *api, const char *arch, kg_buf_t *list) {
  char want[64], have[64], last[64] = "";
  isa_processor(arch, want, sizeof want);
  size_t count = 0;
  if (api->get_isa_count(&count) != COMGR_STATUS_SUCCESS)
    return 0;
  int found = 0;
  for (size_t i = 0; i < count; i++) {
    const char *name = NULL;
    if (api->get_isa_name(i, &name) != COMGR_STATUS_SUCCESS || !name)
      continue;
    isa_processor(name, have, sizeof have);
    if (strcmp(have, want) == 0)
      found = 1;
    if (list && strcmp(have, last) != 0) {
      kg_buf_printf(list, "%s%s", list->len ? ", " : "", have);
      snprintf(last, sizeof last, "%s", have);
    }
  }
  return found;
}

int kg_comgr_supports(const char *arch, const char **out_version) {
  static _Thread_local char version[32]; /* what *out_version points at */
  comgr_api_t api;
  kg_diag_t ignored;
  if (out_version)
    *out_version = "not found";
  if (comgr_load(&api, &ignored) != 0)
    return 0;
  snprintf(version, sizeof version, "%zu.%zu", api.major, api.minor);
  if (out_version)
    *out_version = version;
  int found = comgr_lists(&api, arch, NULL);
  comgr_unload(&api);
  return found;
}

static const char *action_name(comgr_action_kind_t kind) {
  switch (kind) {
  case COMGR_ACTION_COMPILE_SOURCE_TO_BC:
    return "COMPILE_SOURCE_TO_BC";
  case COMGR_ACTION_CODEGEN_BC_TO_RELOCATABLE:
    return "CODEGEN_BC_TO_RELOCATABLE";
  case COMGR_ACTION_CODEGEN_BC_TO_ASSEMBLY:
    return "CODEGEN_BC_TO_ASSEMBLY";
  case COMGR_ACTION_LINK_RELOCATABLE_TO_EXECUTABLE:
    return "LINK_RELOCATABLE_TO_EXECUTABLE";
  }
  return "?";
}

/* Appends the data objects of `kind` in `set` to `out`; returns how many. */
static size_t take_data(const comgr_api_t *api, comgr_data_set_t set,
                        comgr_data_kind_t kind, kg_buf_t *out) {
  size_t count = 0;
  if (api->action_data_count(set, kind, &count) != COMGR_STATUS_SUCCESS)
    return 0;
  size_t taken = 0;
  for (size_t i = 0; i < count; i++) {
    comgr_data_t data;
    if (api->action_data_get_data(set, kind, i, &data) != COMGR_STATUS_SUCCESS)
      continue;
    size_t size = 0;
    if (api->get_data(data, &size, NULL) == COMGR_STATUS_SUCCESS) {
      kg_buf_reserve(out, size);
      if (api->get_data(data, &size, out->data + out->len) == COMGR_STATUS_SUCCESS) {
        out->len += size;
        out->data[out->len] = '\0';
        taken++;
      }
    }
    api->release_data(data); /* get_data handed us a reference */
  }
  return taken;
}

/* The first error line of an action log, without the directory comgr put
 * the source in ("/tmp/comgr-3ab135/input/kernel.hip:1:62: error: ..."). */
static void log_error_line(const char *log, char *out, size_t cap) {
  kg_proc_first_error(log, NULL, out, cap);
  char *file = strstr(out, "kernel.hip:");
  if (file && file != out)
    memmove(out, file, strlen(file) + 1);
}

/* Everything one compile holds; zero handles mean "not created". */
typedef struct comgr_run {
  const comgr_api_t *api;
  const char *arch;
  char isa[128]; /* "amdgcn-amd-amdhsa--gfx90a" */
  int verbose;
  comgr_action_info_t info;
  int have_info;
} comgr_run_t;

/* Runs one action from `in` into a fresh set *out (created here; the caller
 * destroys it even on failure). On failure fills diag from the action log. */
static int run_action(comgr_run_t *run, comgr_action_kind_t kind, const char **options,
                      size_t num_options, comgr_data_set_t in, comgr_data_set_t *out,
                      int *out_made, kg_diag_t *diag) {
  const comgr_api_t *api = run->api;
  *out_made = 0;
  if (api->create_data_set(out) != COMGR_STATUS_SUCCESS)
    return kg_error(diag, "comgr %zu.%zu: cannot create a data set", api->major,
                    api->minor);
  *out_made = 1;
  if (api->action_info_set_option_list(run->info, options, num_options) !=
      COMGR_STATUS_SUCCESS)
    return kg_error(diag, "comgr %zu.%zu: cannot set the options of %s", api->major,
                    api->minor, action_name(kind));
  if (run->verbose) {
    fprintf(stderr, "kgen: comgr: %s %s", action_name(kind), run->isa);
    for (size_t i = 0; i < num_options; i++)
      fprintf(stderr, " %s", options[i]);
    fputc('\n', stderr);
  }
  comgr_status_t status = api->do_action(kind, run->info, in, *out);
  kg_buf_t log;
  kg_buf_init(&log);
  take_data(api, *out, COMGR_DATA_KIND_LOG, &log);
  if (run->verbose && log.len > 0 && strspn(log.data, " \t\r\n") < log.len)
    fprintf(stderr, "%s%s", log.data, log.data[log.len - 1] == '\n' ? "" : "\n");
  if (status == COMGR_STATUS_SUCCESS) {
    kg_buf_free(&log);
    return 0;
  }
  char line[1024];
  log_error_line(log.len ? log.data : "", line, sizeof line);
  kg_buf_free(&log);
  if (!line[0]) {
    const char *text = NULL;
    if (api->status_string(status, &text) != COMGR_STATUS_SUCCESS || !text)
      text = "failed";
    snprintf(line, sizeof line, "%s", text);
  }
  return kg_error(diag, "comgr %zu.%zu: %s for %s: %s", api->major, api->minor,
                  action_name(kind), run->arch, line);
}

/* The compile proper, once comgr is loaded and lists the arch. */
static int comgr_build(comgr_run_t *run, const kg_compile_opts_t *opts,
                       const char *source, size_t len, kg_artifact_t what, kg_buf_t *out,
                       kg_diag_t *diag) {
  const comgr_api_t *api = run->api;
  int rc = -1;
  comgr_data_t src = {0};
  comgr_data_set_t sets[4]; /* input, bc, relocatable or assembly, executable */
  int made[4] = {0, 0, 0, 0};
  char cov[64];
  const char **options = kg_xcalloc((size_t)opts->num_flags + 5, sizeof *options);

  snprintf(run->isa, sizeof run->isa, "%s--%s",
           opts->triple ? opts->triple : "amdgcn-amd-amdhsa", opts->arch);
  snprintf(cov, sizeof cov, "-mcode-object-version=%d",
           opts->code_object_version ? opts->code_object_version : 5);
  /* Codegen and link take the flags too (target features, -O, the code
   * object version, which comgr 2.4 applies at codegen); only the frontend
   * needs -nogpuinc, which keeps clang from looking for HIP headers. */
  size_t num_options = 0;
  options[num_options++] = KG_AMDGCN_OPT;
  options[num_options++] = "-nogpulib";
  options[num_options++] = cov;
  for (int i = 0; i < opts->num_flags; i++)
    options[num_options++] = opts->flags[i];
  options[num_options++] = "-nogpuinc"; /* last: dropped after the frontend */

  if (api->create_data(COMGR_DATA_KIND_SOURCE, &src) != COMGR_STATUS_SUCCESS) {
    kg_error(diag, "comgr %zu.%zu: cannot create a data object", api->major, api->minor);
    goto done;
  }
  if (api->set_data(src, len, source) != COMGR_STATUS_SUCCESS ||
      api->set_data_name(src, "kernel.hip") != COMGR_STATUS_SUCCESS) {
    kg_error(diag, "comgr %zu.%zu: cannot set the source", api->major, api->minor);
    goto done;
  }
  if (api->create_data_set(&sets[0]) != COMGR_STATUS_SUCCESS) {
    kg_error(diag, "comgr %zu.%zu: cannot create a data set", api->major, api->minor);
    goto done;
  }
  made[0] = 1;
  if (api->data_set_add(sets[0], src) != COMGR_STATUS_SUCCESS) {
    kg_error(diag, "comgr %zu.%zu: cannot add the source", api->major, api->minor);
    goto done;
  }
  if (api->create_action_info(&run->info) != COMGR_STATUS_SUCCESS) {
    kg_error(diag, "comgr %zu.%zu: cannot create an action info", api->major, api->minor);
    goto done;
  }
  run->have_info = 1;
  if (api->action_info_set_isa_name(run->info, run->isa) != COMGR_STATUS_SUCCESS ||
      api->action_info_set_language(run->info, COMGR_LANGUAGE_HIP) !=
          COMGR_STATUS_SUCCESS ||
      api->action_info_set_logging(run->info, true) != COMGR_STATUS_SUCCESS) {
    kg_error(diag, "comgr %zu.%zu: cannot set up the action for %s", api->major,
             api->minor, run->isa);
    goto done;
  }
  if (run_action(run, COMGR_ACTION_COMPILE_SOURCE_TO_BC, options, num_options, sets[0],
                 &sets[1], &made[1], diag) != 0)
    goto done;
  num_options--; /* drop -nogpuinc */
  if (what == KG_ARTIFACT_ASM) {
    if (run_action(run, COMGR_ACTION_CODEGEN_BC_TO_ASSEMBLY, options, num_options,
                   sets[1], &sets[2], &made[2], diag) != 0)
      goto done;
    if (take_data(api, sets[2], COMGR_DATA_KIND_SOURCE, out) != 1) {
      kg_error(diag, "comgr %zu.%zu: CODEGEN_BC_TO_ASSEMBLY for %s gave no assembly",
               api->major, api->minor, opts->arch);
      goto done;
    }
  } else {
    if (run_action(run, COMGR_ACTION_CODEGEN_BC_TO_RELOCATABLE, options, num_options,
                   sets[1], &sets[2], &made[2], diag) != 0)
      goto done;
    if (run_action(run, COMGR_ACTION_LINK_RELOCATABLE_TO_EXECUTABLE, options, num_options,
                   sets[2], &sets[3], &made[3], diag) != 0)
      goto done;
    if (take_data(api, sets[3], COMGR_DATA_KIND_EXECUTABLE, out) != 1) {
      kg_error(diag,
               "comgr %zu.%zu: LINK_RELOCATABLE_TO_EXECUTABLE for %s gave no executable",
               api->major, api->minor, opts->arch);
      goto done;
    }
  }
  rc = 0;
done:
  for (int i = 0; i < 4; i++)
    if (made[i])
      api->destroy_data_set(sets[i]);
  if (run->have_info)
    api->destroy_action_info(run->info);
  run->have_info = 0;
  if (src.handle)
    api->release_data(src); /* the input set held its own reference */
  free(options);
  return rc;
}

int kg_comgr_compile(const kg_compile_opts_t *opts, const char *source, size_t len,
                     kg_artifact_t what, kg_buf_t *out, kg_diag_t *diag) {
  if (what == KG_ARTIFACT_LLVM)
    return kg_error(diag, "--emit=llvm needs --compiler=clang (comgr gives LLVM bitcode, "
                          "not LLVM IR text)");
  comgr_api_t api;
  KG_TRY(comgr_load(&api, diag));
  kg_buf_t isas;
  kg_buf_init(&isas);
  if (!comgr_lists(&api, opts->arch, &isas)) {
    kg_error(diag,
             "comgr %zu.%zu (%s) cannot compile for %s (its ISAs: %s); use "
             "--compiler=clang",
             api.major, api.minor, api.soname, opts->arch, isas.len ? isas.data : "none");
    kg_buf_free(&isas);
    comgr_unload(&api);
    return -1;
  }
  kg_buf_free(&isas);
  comgr_run_t run = {.api = &api, .arch = opts->arch, .verbose = opts->verbose};
  kg_buf_t result;
  kg_buf_init(&result);
  int rc = comgr_build(&run, opts, source, len, what, &result, diag);
  if (rc == 0)
    kg_buf_put(out, result.data, result.len);
  kg_buf_free(&result);
  comgr_unload(&api);
  return rc;
}
