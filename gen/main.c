/* main.c - the kgen command line, and the whole pipeline in one function
 * (kg_build): model -> graph -> kernels -> arena plan -> per-target source ->
 * code objects -> kernel table. Nothing is written until every step has
 * succeeded; errors are one line and exit code 1. A target's platform names
 * its files: amdgcn writes <model>_<arch>.hip and .hsaco, cuda .cu and .cubin. */
#include <getopt.h>
#include <lauxlib.h>
#include <lua.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "compile.h"
#include "diag.h"
#include "front.h"
#include "fuse.h"
#include "ir.h"
#include "kgrt_codeobj.h"
#include "lower.h"
#include "outdir.h"
#include "plan.h"
#include "res.h"
#include "sandbox.h"
#include "table.h"
#include "target.h"
#include "version.h"

#define KG_MAX_ARCHES 16

typedef enum emit {
  EMIT_BUILD = 0, /* the kernel table folder */
  EMIT_HIP,
  EMIT_LLVM,
  EMIT_ASM,
  EMIT_META,
  EMIT_TABLE,
} emit_t;

typedef struct options {
  const char *model;
  const char *out;
  int num_arches;
  char *arches[KG_MAX_ARCHES];
  emit_t emit;
  kg_compiler_t compiler;
  const char *clang;
  int code_object_version;
  int sim; /* build sim images */
  int verbose;
  kg_sandbox_opts_t limits;
} options_t;

static void usage(FILE *f) {
  fputs(
      "usage: kgen --arch ARCH[,ARCH...] [options] MODEL.lua [-o DIR]\n"
      "\n"
      "Expands the model's ops into HIP specialised per target, compiles them to code\n"
      "objects and writes a C kernel table with the launch plan:\n"
      "  DIR/<model>.h, <model>.c, kgrt_table.h, and per arch <model>_<arch>.c,\n"
      "  <model>_<arch>.hip, <model>_<arch>.hsaco (cuda targets: .cu, .cubin)\n"
      "Without -o, everything is built and checked but nothing is written.\n"
      "\n"
      "options:\n"
      "  --arch LIST          targets, comma-separated (see --list-targets)\n"
      "  -o PATH              output folder; with --emit, a file or - for stdout\n"
      "  --emit=KIND          hip | llvm | asm | meta | table: one artifact of one arch\n"
      "                       (cuda targets: hip is the CUDA source, asm is PTX;\n"
      "                       llvm is not available)\n"
      "  --compiler=NAME      auto (default: comgr when it supports the arch, nvrtc for\n"
      "                       cuda targets) | comgr | clang | nvrtc\n"
      "  --clang=PATH         the clang to use (default: $KGEN_CLANG, ROCm's, clang-19)\n"
      "  --code-object=N      code object version 4, 5 (default) or 6\n"
      "  --no-sim             do not build the host images for the sim device\n"
      "  --max-memory=MIB     Lua memory cap for the model (default 256)\n"
      "  --max-instructions=N Lua instruction budget (default 200000000)\n"
      "  --max-seconds=S      wall-clock limit for running the model (default 10)\n"
      "  --list-targets       the targets kgen knows\n"
      "  --list-ops           the ops a model can call, with their docs\n"
      "  -v                   say which compiler ran, and the commands\n"
      "  --version, --help\n",
      f);
}

static int parse_arches(options_t *o, const char *list, kg_diag_t *d) {
  char *copy = kg_xstrdup(list);
  for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
    if (o->num_arches == KG_MAX_ARCHES) {
      free(copy);
      return kg_error(d, "--arch: more than %d targets", KG_MAX_ARCHES);
    }
    for (int i = 0; i < o->num_arches; i++)
      if (strcmp(o->arches[i], tok) == 0) {
        free(copy);
        return kg_error(d, "--arch: %s given twice", tok);
      }
    o->arches[o->num_arches++] = kg_xstrdup(tok);
  }
  free(copy);
  return o->num_arches ? 0 : kg_error(d, "--arch: no target given");
}

static int parse_number(const char *opt, const char *s, double lo, double hi, double *out,
                        kg_diag_t *d) {
  char *end;
  double v = strtod(s, &end);
  if (!*s || *end || !(v >= lo && v <= hi))
    return kg_error(d, "%s=%s: expected a number in [%g, %g]", opt, s, lo, hi);
  *out = v;
  return 0;
}

enum {
  OPT_ARCH = 256,
  OPT_EMIT,
  OPT_COMPILER,
  OPT_CLANG,
  OPT_COV,
  OPT_NO_SIM,
  OPT_MAX_MEM,
  OPT_MAX_INSN,
  OPT_MAX_SEC,
  OPT_LIST_TARGETS,
  OPT_LIST_OPS,
  OPT_VERSION,
  OPT_HELP,
};

/* Returns 0 to go on, 1 when done (help, version), -1 on error. */
static int parse_args(int argc, char **argv, options_t *o, int *list, kg_diag_t *d) {
  static const struct option longs[] = {
      {"arch", required_argument, 0, OPT_ARCH},
      {"emit", required_argument, 0, OPT_EMIT},
      {"compiler", required_argument, 0, OPT_COMPILER},
      {"clang", required_argument, 0, OPT_CLANG},
      {"code-object", required_argument, 0, OPT_COV},
      {"no-sim", no_argument, 0, OPT_NO_SIM},
      {"max-memory", required_argument, 0, OPT_MAX_MEM},
      {"max-instructions", required_argument, 0, OPT_MAX_INSN},
      {"max-seconds", required_argument, 0, OPT_MAX_SEC},
      {"list-targets", no_argument, 0, OPT_LIST_TARGETS},
      {"list-ops", no_argument, 0, OPT_LIST_OPS},
      {"version", no_argument, 0, OPT_VERSION},
      {"help", no_argument, 0, OPT_HELP},
      {0, 0, 0, 0},
  };
  static const char *const emits[] = {"", "hip", "llvm", "asm", "meta", "table"};
  opterr = 0;
  int c;
  double v;
  while ((c = getopt_long(argc, argv, ":o:v", longs, NULL)) != -1) {
    switch (c) {
    case 'o':
      o->out = optarg;
      break;
    case 'v':
      o->verbose = 1;
      break;
    case OPT_ARCH:
      KG_TRY(parse_arches(o, optarg, d));
      break;
    case OPT_EMIT:
      o->emit = EMIT_BUILD;
      for (int i = 1; i < 6; i++)
        if (strcmp(optarg, emits[i]) == 0)
          o->emit = (emit_t)i;
      if (o->emit == EMIT_BUILD)
        return kg_error(d, "--emit=%s: expected hip, llvm, asm, meta or table", optarg);
      break;
    case OPT_COMPILER:
      if (strcmp(optarg, "auto") == 0)
        o->compiler = KG_COMPILER_AUTO;
      else if (strcmp(optarg, "comgr") == 0)
        o->compiler = KG_COMPILER_COMGR;
      else if (strcmp(optarg, "clang") == 0)
        o->compiler = KG_COMPILER_CLANG;
      else if (strcmp(optarg, "nvrtc") == 0)
        o->compiler = KG_COMPILER_NVRTC;
      else
        return kg_error(d, "--compiler=%s: expected auto, comgr, clang or nvrtc", optarg);
      break;
    case OPT_CLANG:
      o->clang = optarg;
      break;
    case OPT_COV:
      if (strcmp(optarg, "4") && strcmp(optarg, "5") && strcmp(optarg, "6"))
        return kg_error(d, "--code-object=%s: expected 4, 5 or 6", optarg);
      o->code_object_version = atoi(optarg);
      break;
    case OPT_NO_SIM:
      o->sim = 0;
      break;
    case OPT_MAX_MEM:
      KG_TRY(parse_number("--max-memory", optarg, 1, 65536, &v, d));
      o->limits.max_memory = (size_t)(v * 1024 * 1024);
      break;
    case OPT_MAX_INSN:
      KG_TRY(parse_number("--max-instructions", optarg, 1000, 1e15, &v, d));
      o->limits.max_instructions = (unsigned long long)v;
      break;
    case OPT_MAX_SEC:
      KG_TRY(parse_number("--max-seconds", optarg, 0.1, 86400, &v, d));
      o->limits.max_seconds = v;
      break;
    case OPT_LIST_TARGETS:
    case OPT_LIST_OPS:
      *list = c;
      break;
    case OPT_VERSION:
      printf("kgen %s\n", KGEN_VERSION);
      return 1;
    case OPT_HELP:
      usage(stdout);
      return 1;
    case ':':
      return kg_error(d, "%s needs a value (see --help)", argv[optind - 1]);
    default:
      return kg_error(d, "unknown option %s (see --help)", argv[optind - 1]);
    }
  }
  if (*list)
    return 0;
  if (optind == argc)
    return kg_error(d, "no model given (usage: kgen --arch ARCH MODEL.lua -o DIR)");
  if (optind + 1 < argc)
    return kg_error(d, "one model at a time: %s and %s", argv[optind], argv[optind + 1]);
  o->model = argv[optind];
  if (o->num_arches == 0)
    return kg_error(d, "--arch is required (known: see --list-targets)");
  if (o->emit != EMIT_BUILD && o->num_arches != 1)
    return kg_error(d, "--emit takes one --arch, got %d", o->num_arches);
  if (o->emit != EMIT_BUILD && !o->out)
    return kg_error(d, "--emit needs -o FILE (or -o - for stdout)");
  return 0;
}

static int list_ops(kg_sandbox_t *sb, kg_diag_t *d) {
  lua_State *L = kg_sandbox_lua(sb);
  KG_TRY(kg_sandbox_require(sb, "kgen", d));
  lua_getfield(L, -1, "env");
  KG_TRY(kg_sandbox_pcall(sb, 0, 1, d));
  lua_pop(L, 1);
  lua_getfield(L, -1, "op_order");
  lua_getfield(L, -2, "ops");
  int n = (int)luaL_len(L, -2);
  for (int i = 1; i <= n; i++) {
    lua_geti(L, -2, i);
    const char *name = lua_tostring(L, -1);
    lua_getfield(L, -2, name);
    lua_getfield(L, -1, "doc");
    printf("%-10s %s\n", name, lua_tostring(L, -1));
    lua_pop(L, 3);
  }
  lua_pop(L, 3);
  return 0;
}

static void codeobj_write(void *user, const char *text, size_t len) {
  kg_buf_put((kg_buf_t *)user, text, len);
}

/* Compiles one target's sources and reads the code object back. */
static int compile_arch(const options_t *o, kg_arch_build_t *a, kg_artifact_t what,
                        kg_buf_t *artifact, kg_diag_t *d) {
  kg_compile_opts_t co = {0};
  co.arch = a->target.name;
  co.triple = a->target.triple;
  co.platform = a->target.platform;
  co.flags = (const char *const *)a->target.flags;
  co.num_flags = a->target.num_flags;
  co.code_object_version = o->code_object_version;
  co.compiler = o->compiler;
  co.clang_path = o->clang;
  co.verbose = o->verbose;
  KG_TRY(kg_compile_device(&co, a->source.data, a->source.len, what, artifact,
                           &a->compiler, d));
  if (o->verbose)
    fprintf(stderr, "kgen: %s: compiled with %s\n", a->target.name, a->compiler);
  if (what != KG_ARTIFACT_CODE_OBJECT)
    return 0;
  char err[256];
  if (kgrt_codeobj_parse(artifact->data, artifact->len, NULL, &a->meta, err, sizeof err))
    return kg_error(d, "%s: the compiler's code object is unreadable: %s", a->target.name,
                    err);
  a->have_meta = 1;
  return 0;
}

static int is_cuda(const kg_target_t *t) {
  return strcmp(t->platform, "cuda") == 0;
}

/* Per kernel and arch. For cuda targets (see kgrt_codeobj.h) vgpr is the
 * registers per thread, sgpr does not apply, lds is the static shared memory
 * and scratch the local memory (stack) per thread. */
static void print_summary(const kg_program_t *p, const kg_arch_build_t *arches, int n) {
  printf("%-32s %-8s %4s %5s %5s %6s %7s %6s\n", "kernel", "arch", "wave", "vgpr", "sgpr",
         "lds", "scratch", "code");
  for (int a = 0; a < n; a++)
    for (int k = 0; k < p->num_kernels; k++) {
      const kgrt_codeobj_kernel_t *m =
          arches[a].have_meta ? kgrt_codeobj_find(&arches[a].meta, p->kernels[k].name)
                              : NULL;
      if (!m)
        continue;
      char sgprs[16];
      snprintf(sgprs, sizeof sgprs, "%u", m->sgprs);
      printf("%-32s %-8s %4u %5u %5s %6u %7u %6llu\n", p->kernels[k].name,
             arches[a].target.name, m->wave_size, m->vgprs,
             is_cuda(&arches[a].target) ? "-" : sgprs, m->lds_bytes, m->scratch_bytes,
             (unsigned long long)m->code_bytes);
    }
}

static void add_file(kg_outfile_t *files, int *n, char *name, const kg_buf_t *b) {
  files[*n].name = name;
  files[*n].data = b->data ? b->data : "";
  files[*n].size = b->len;
  (*n)++;
}

/* The pipeline. */
static int kg_build(const options_t *o, kg_sandbox_t *sb, kg_diag_t *d) {
  kg_graph_t g;
  kg_program_t p = {0};
  kg_arch_build_t arches[KG_MAX_ARCHES];
  memset(arches, 0, sizeof arches);
  kg_buf_t emitted, files_buf[3];
  kg_buf_init(&emitted);
  for (int i = 0; i < 3; i++)
    kg_buf_init(&files_buf[i]);
  int rc = 0;

  /* targets first: a bad --arch should not wait for the model */
  for (int i = 0; i < o->num_arches && rc == 0; i++)
    rc = kg_target_load(sb, o->arches[i], &arches[i].target, d);
  /* 1 the model, in the sandbox -> graph */
  if (rc == 0)
    rc = kg_front_load(sb, o->model, &g, d);
  else
    memset(&g, 0, sizeof g);
  /* 2 fuse and plan memory */
  if (rc == 0)
    rc = kg_fuse(&g, &p, d);
  if (rc == 0)
    rc = kg_plan(&g, &p, d);
  /* 3-5 per target: expand, compile, read the code object back */
  int want_sim = o->sim && (o->emit == EMIT_BUILD || o->emit == EMIT_TABLE);
  for (int i = 0; i < o->num_arches && rc == 0; i++) {
    kg_arch_build_t *a = &arches[i];
    a->lowered = kg_xcalloc((size_t)p.num_kernels + 1, sizeof *a->lowered);
    rc = kg_lower(sb, &g, &p, &a->target, a->lowered, &a->source,
                  want_sim ? &a->sim_source : NULL, d);
    if (rc || o->emit == EMIT_HIP)
      continue;
    kg_artifact_t what = o->emit == EMIT_LLVM  ? KG_ARTIFACT_LLVM
                         : o->emit == EMIT_ASM ? KG_ARTIFACT_ASM
                                               : KG_ARTIFACT_CODE_OBJECT;
    rc = compile_arch(o, a, what, what == KG_ARTIFACT_CODE_OBJECT ? &a->image : &emitted,
                      d);
    if (rc == 0 && want_sim)
      rc = kg_compile_host(a->sim_source.data, a->sim_source.len, o->verbose,
                           &a->sim_image, d);
  }
  /* 6 write */
  if (rc == 0 && o->emit != EMIT_BUILD) {
    kg_arch_build_t *a = &arches[0];
    if (o->emit == EMIT_HIP)
      kg_buf_put(&emitted, a->source.data, a->source.len);
    else if (o->emit == EMIT_META) {
      char err[256];
      if (kgrt_codeobj_dump_metadata(a->image.data, a->image.len, codeobj_write, &emitted,
                                     err, sizeof err))
        rc = kg_error(d, "%s: cannot read the code object's metadata: %s", a->target.name,
                      err);
    } else if (o->emit == EMIT_TABLE)
      kg_table_arch(&g, &p, a, &emitted);
    if (rc == 0)
      rc = kg_out_write_file(o->out, emitted.data ? emitted.data : "", emitted.len, d);
  } else if (rc == 0) {
    kg_outfile_t files[3 + 3 * KG_MAX_ARCHES + 1];
    int n = 0;
    kg_buf_t name;
    kg_buf_init(&name);
    kg_table_header(&g, arches, o->num_arches, &files_buf[0]);
    kg_table_index(&g, arches, o->num_arches, &files_buf[1]);
    const kg_res_t *abi = kg_res_find("runtime/kgrt_table.h");
    kg_buf_put(&files_buf[2], abi->data, abi->size);
    kg_buf_printf(&name, "%s.h", g.model);
    add_file(files, &n, kg_buf_take(&name, NULL), &files_buf[0]);
    kg_buf_printf(&name, "%s.c", g.model);
    add_file(files, &n, kg_buf_take(&name, NULL), &files_buf[1]);
    add_file(files, &n, kg_xstrdup("kgrt_table.h"), &files_buf[2]);
    kg_buf_t *tables = kg_xcalloc((size_t)o->num_arches, sizeof *tables);
    for (int i = 0; i < o->num_arches; i++) {
      kg_arch_build_t *a = &arches[i];
      kg_table_arch(&g, &p, a, &tables[i]);
      kg_buf_printf(&name, "%s_%s.c", g.model, a->target.name);
      add_file(files, &n, kg_buf_take(&name, NULL), &tables[i]);
      int cuda = is_cuda(&a->target);
      kg_buf_printf(&name, "%s_%s.%s", g.model, a->target.name, cuda ? "cu" : "hip");
      add_file(files, &n, kg_buf_take(&name, NULL), &a->source);
      kg_buf_printf(&name, "%s_%s.%s", g.model, a->target.name, cuda ? "cubin" : "hsaco");
      add_file(files, &n, kg_buf_take(&name, NULL), &a->image);
    }
    if (o->out)
      rc = kg_out_write_dir(o->out, files, n, d);
    if (rc == 0)
      print_summary(&p, arches, o->num_arches);
    for (int i = 0; i < n; i++)
      free(files[i].name);
    for (int i = 0; i < o->num_arches; i++)
      kg_buf_free(&tables[i]);
    free(tables);
  }

  for (int i = 0; i < KG_MAX_ARCHES; i++) {
    kg_arch_build_t *a = &arches[i];
    kg_target_free(&a->target);
    free(a->lowered);
    kg_buf_free(&a->source);
    kg_buf_free(&a->sim_source);
    kg_buf_free(&a->image);
    kg_buf_free(&a->sim_image);
    if (a->have_meta)
      kgrt_codeobj_free(&a->meta, NULL);
  }
  for (int i = 0; i < 3; i++)
    kg_buf_free(&files_buf[i]);
  kg_buf_free(&emitted);
  kg_program_free(&p);
  kg_graph_free(&g);
  return rc;
}

int main(int argc, char **argv) {
  options_t o;
  memset(&o, 0, sizeof o);
  o.sim = 1;
  o.code_object_version = 5;
  kg_sandbox_opts_default(&o.limits);
  kg_diag_t d = {{0}};
  int list = 0;
  int rc = parse_args(argc, argv, &o, &list, &d);
  if (rc == 0) {
    kg_sandbox_t *sb = NULL;
    rc = kg_sandbox_new(&o.limits, o.model ? o.model : "kgen", &sb, &d);
    if (rc == 0) {
      if (list == OPT_LIST_TARGETS)
        rc = kg_target_list(sb, &d);
      else if (list == OPT_LIST_OPS)
        rc = list_ops(sb, &d);
      else
        rc = kg_build(&o, sb, &d);
      kg_sandbox_free(sb);
    }
  }
  for (int i = 0; i < o.num_arches; i++)
    free(o.arches[i]);
  if (rc < 0) {
    fprintf(stderr, "%s\n", d.msg[0] ? d.msg : "kgen: error: failed");
    return 1;
  }
  return 0;
}
