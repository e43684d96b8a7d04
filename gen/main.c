/* main.c - the kgen command line, and the whole pipeline in one function
 * (kg_build): model -> graph -> kernels -> arena plan -> per-target source ->
 * code objects -> kernel table. Nothing is written until every step has
 * succeeded; errors are one line and exit code 1. A target's platform names
 * its files: amdgcn writes <model>_<arch>.hip and .hsaco, cuda .cu and .cubin. */
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "cache.h"
#include "caps.h"
#include "compile.h"
#include "defines.h"
#include "diag.h"
#include "front.h"
#include "fuse.h"
#include "ir.h"
#include "kgrt_codeobj.h"
#include "ir_print.h"
#include "lower.h"
#include "outdir.h"
#include "params.h"
#include "plan.h"
#include "res.h"
#include "sandbox.h"
#include "sizes.h"
#include "table.h"
#include "target.h"
#include "tmpfiles.h"
#include "version.h"

#define KG_MAX_ARCHES 16

typedef enum emit {
  EMIT_BUILD = 0, /* the kernel table folder */
  EMIT_HIP,
  EMIT_LLVM,
  EMIT_ASM,
  EMIT_META,
  EMIT_TABLE,
  EMIT_GRAPH,   /* the graph the front end built (ir_print.c) */
  EMIT_KERNELS, /* the plan's kernels as the target lowers them */
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
  int jobs;        /* compiles at once (-j) */
  int no_cache;    /* --no-cache */
  int time_report; /* --time-report */
  kg_sandbox_opts_t limits;
  /* --define NAME=VALUE, in order (a NAME given again: the last wins) */
  int num_defines;
  char *define_names[KG_MAX_DEFINES];
  const char *define_values[KG_MAX_DEFINES];
  double compile_seconds;    /* --max-compile-seconds */
  double compile_memory_mib; /* --max-compile-memory */
} options_t;

static void usage(FILE *f) {
  kg_sandbox_opts_t lim;
  kg_sandbox_opts_default(&lim);
  fprintf(
      f,
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
      "  --emit=KIND          hip | llvm | asm | meta | table | graph | kernels: one\n"
      "                       artifact of one arch (graph: the ops as the model built\n"
      "                       them; kernels: the fused kernels with their arguments,\n"
      "                       grids and template holes)\n"
      "                       (cuda targets: hip is the CUDA source, asm is PTX;\n"
      "                       llvm is not available)\n"
      "  --compiler=NAME      auto (default: comgr when it supports the arch, nvrtc for\n"
      "                       cuda targets) | comgr | clang | nvrtc\n"
      "  --clang=PATH         the clang to use (default: $KGEN_CLANG, ROCm's, clang-19)\n"
      "  --code-object=N      code object version 4, 5 (default) or 6\n"
      "  --no-sim             do not build the host images for the sim device\n"
      "  -j N                 compiles run at once (default: the CPUs)\n"
      "  --no-cache           neither use nor fill the cache of compiled code objects\n"
      "                       and sim images ($KGEN_CACHE_DIR, default ~/.cache/kgen)\n"
      "  --time-report        print each phase's time (and each compile's) to stderr\n"
      "  --define NAME=VALUE  a value the model reads with define(NAME); a weight\n"
      "                       file's header with weights_file(NAME), a JSON file\n"
      "                       with json_file(NAME) (repeatable)\n"
      "  --max-memory=MIB     memory cap of kgen while the model runs (default %zu)\n"
      "  --max-instructions=N Lua instruction budget (default %llu)\n"
      "  --max-seconds=S      wall-clock limit for running the model (default %g)\n"
      "  --max-compile-seconds=S  wall-clock and CPU limit of each compiler kgen runs\n"
      "                       (a child process; comgr and NVRTC in a forked child)\n"
      "                       (default %d)\n"
      "  --max-compile-memory=MIB address-space limit of each such compiler (comgr,\n"
      "                       NVRTC: growth past kgen's own) (default %d)\n"
      "  --list-targets       the targets kgen knows\n"
      "  --list-ops           the ops a model can call, with their docs\n"
      "  --list-limits        the limits kgen puts on a model and on its compilers,\n"
      "                       with their defaults\n"
      "  -v                   say which compiler ran, and the commands\n"
      "  --version, --help\n",
      lim.max_memory >> 20, (unsigned long long)lim.max_instructions, lim.max_seconds,
      KG_DEFAULT_COMPILE_SECONDS, KG_DEFAULT_COMPILE_MEMORY_MIB);
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
  OPT_NO_CACHE,
  OPT_TIME_REPORT,
  OPT_MAX_MEM,
  OPT_MAX_INSN,
  OPT_MAX_SEC,
  OPT_MAX_COMPILE_SEC,
  OPT_MAX_COMPILE_MEM,
  OPT_DEFINE,
  OPT_LIST_TARGETS,
  OPT_LIST_OPS,
  OPT_LIST_LIMITS,
  OPT_VERSION,
  OPT_HELP,
};

/* The error for what getopt_long did not know, naming the argument it is in:
 * getopt leaves optind on a group of short options ("-dash.lua") while it
 * has letters left, and moves past it after the last one (or a long
 * option). */
static int unknown_option(int argc, char **argv, kg_diag_t *d) {
  const char *arg = argv[optind - 1];
  if (optopt != 0) {
    const size_t n = strlen(arg);
    const int last = arg[0] == '-' && arg[1] != '-' && n > 1 && arg[n - 1] == optopt;
    if (!last && optind < argc)
      arg = argv[optind];
    const size_t len = strlen(arg);
    if (len > 4 && strcmp(arg + len - 4, ".lua") == 0)
      return kg_error(d,
                      "unknown option -%c in %s (a model whose name starts with '-': "
                      "give it as ./%s or after --)",
                      optopt, arg, arg);
    if (len == 2)
      return kg_error(d, "unknown option %s (see --help)", arg);
    return kg_error(d, "unknown option -%c in %s (see --help)", optopt, arg);
  }
  return kg_error(d, "unknown option %s (see --help)", arg);
}

/* Returns 0 to go on, 1 when done (help, version), -1 on error. */
static int parse_args(int argc, char **argv, options_t *o, int *list, kg_diag_t *d) {
  static const struct option longs[] = {
      {"arch", required_argument, 0, OPT_ARCH},
      {"emit", required_argument, 0, OPT_EMIT},
      {"compiler", required_argument, 0, OPT_COMPILER},
      {"clang", required_argument, 0, OPT_CLANG},
      {"code-object", required_argument, 0, OPT_COV},
      {"no-sim", no_argument, 0, OPT_NO_SIM},
      {"no-cache", no_argument, 0, OPT_NO_CACHE},
      {"time-report", no_argument, 0, OPT_TIME_REPORT},
      {"max-memory", required_argument, 0, OPT_MAX_MEM},
      {"define", required_argument, 0, OPT_DEFINE},
      {"max-instructions", required_argument, 0, OPT_MAX_INSN},
      {"max-seconds", required_argument, 0, OPT_MAX_SEC},
      {"max-compile-seconds", required_argument, 0, OPT_MAX_COMPILE_SEC},
      {"max-compile-memory", required_argument, 0, OPT_MAX_COMPILE_MEM},
      {"list-targets", no_argument, 0, OPT_LIST_TARGETS},
      {"list-ops", no_argument, 0, OPT_LIST_OPS},
      {"list-limits", no_argument, 0, OPT_LIST_LIMITS},
      {"version", no_argument, 0, OPT_VERSION},
      {"help", no_argument, 0, OPT_HELP},
      {0, 0, 0, 0},
  };
  static const char *const emits[] = {"",     "hip",   "llvm",  "asm",
                                      "meta", "table", "graph", "kernels"};
  opterr = 0;
  int c;
  double v;
  while ((c = getopt_long(argc, argv, ":o:vj:", longs, NULL)) != -1) {
    switch (c) {
    case 'o':
      o->out = optarg;
      break;
    case 'v':
      o->verbose = 1;
      break;
    case 'j':
      KG_TRY(parse_number("-j", optarg, 1, 256, &v, d));
      if (v != (int)v)
        return kg_error(d, "-j %s: expected a whole number of compiles", optarg);
      o->jobs = (int)v;
      break;
    case OPT_NO_CACHE:
      o->no_cache = 1;
      break;
    case OPT_DEFINE: {
      char *name;
      const char *value;
      KG_TRY(kg_define_parse(optarg, &name, &value, d));
      int at = 0;
      while (at < o->num_defines && strcmp(o->define_names[at], name) != 0)
        at++;
      if (at == KG_MAX_DEFINES) {
        free(name);
        return kg_error(d, "--define: more than %d names", KG_MAX_DEFINES);
      }
      if (at == o->num_defines)
        o->define_names[o->num_defines++] = name;
      else
        free(name);
      o->define_values[at] = value;
      break;
    }
    case OPT_TIME_REPORT:
      o->time_report = 1;
      break;
    case OPT_ARCH:
      KG_TRY(parse_arches(o, optarg, d));
      break;
    case OPT_EMIT:
      o->emit = EMIT_BUILD;
      for (int i = 1; i < (int)(sizeof emits / sizeof emits[0]); i++)
        if (strcmp(optarg, emits[i]) == 0)
          o->emit = (emit_t)i;
      if (o->emit == EMIT_BUILD)
        return kg_error(
            d, "--emit=%s: expected hip, llvm, asm, meta, table, graph or kernels",
            optarg);
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
    case OPT_MAX_COMPILE_SEC:
      KG_TRY(parse_number("--max-compile-seconds", optarg, 1, 86400, &v, d));
      o->compile_seconds = v;
      break;
    case OPT_MAX_COMPILE_MEM:
      KG_TRY(parse_number("--max-compile-memory", optarg, 64, 1 << 20, &v, d));
      o->compile_memory_mib = v;
      break;
    case OPT_LIST_TARGETS:
    case OPT_LIST_OPS:
      *list = c;
      break;
    case OPT_LIST_LIMITS:
      kg_caps_print(stdout);
      return 1;
    case OPT_VERSION:
      printf("kgen %s\n", KGEN_VERSION);
      return 1;
    case OPT_HELP:
      usage(stdout);
      return 1;
    case ':':
      return kg_error(d, "%s needs a value (see --help)", argv[optind - 1]);
    default:
      return unknown_option(argc, argv, d);
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

static void codeobj_write(void *user, const char *text, size_t len) {
  kg_buf_put((kg_buf_t *)user, text, len);
}

static double seconds_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The in-process compilers (comgr, NVRTC): one thread at a time probes their
 * libraries or forks a child to compile with them (kg_compile_device), so
 * that no child starts with a lock inside them held by another thread. */
static pthread_mutex_t inprocess_lock = PTHREAD_MUTEX_INITIALIZER;

/* Compiles one target's sources, through the cache when it is open (the
 * table build), and reads the code object back. */
static int compile_arch(const options_t *o, kg_arch_build_t *a, kg_artifact_t what,
                        kg_buf_t *artifact, const kg_cache_t *cache, int *cached,
                        kg_diag_t *d) {
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
  /* the key: the compiler that would run, the target, its flags, the
   * code-object version, the source */
  kg_buf_t id;
  kg_buf_init(&id);
  pthread_mutex_lock(&inprocess_lock);
  kg_compile_identity(&co, what, &id);
  pthread_mutex_unlock(&inprocess_lock);
  kg_buf_printf(&id, "|%s|%s|%s|cov %d", a->target.name, a->target.triple,
                a->target.platform, o->code_object_version);
  for (int i = 0; i < a->target.num_flags; i++)
    kg_buf_printf(&id, "|%s", a->target.flags[i]);
  const char *parts[] = {"device", id.data, a->source.data ? a->source.data : ""};
  const size_t lens[] = {6, id.len, a->source.len};
  kg_cache_key_t key;
  kg_cache_key(cache, &key, parts, lens, 3);
  const int inprocess =
      strcmp(a->target.platform, "cuda") == 0 || strncmp(id.data, "comgr", 5) == 0;
  kg_buf_free(&id);
  *cached = kg_cache_get(cache, &key, artifact);
  if (*cached) {
    a->compiler = "the cache";
  } else {
    if (inprocess)
      pthread_mutex_lock(&inprocess_lock);
    const int rc = kg_compile_device(&co, a->source.data, a->source.len, what, artifact,
                                     &a->compiler, d);
    if (inprocess)
      pthread_mutex_unlock(&inprocess_lock);
    KG_TRY(rc);
    kg_cache_put(cache, &key, artifact->data, artifact->len);
  }
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

/* The sim image of one target, through the cache when it is open. */
static int compile_sim(const options_t *o, kg_arch_build_t *a, const kg_cache_t *cache,
                       int *cached, kg_diag_t *d) {
  kg_cache_key_t key;
  if (cache->dir) {
    kg_buf_t id;
    kg_buf_init(&id);
    kg_host_identity(&id);
    const char *parts[] = {"sim", id.data, a->sim_source.data ? a->sim_source.data : ""};
    const size_t lens[] = {3, id.len, a->sim_source.len};
    kg_cache_key(cache, &key, parts, lens, 3);
    kg_buf_free(&id);
  }
  *cached = cache->dir && kg_cache_get(cache, &key, &a->sim_image);
  if (*cached)
    return 0;
  KG_TRY(kg_compile_host(a->sim_source.data, a->sim_source.len, o->verbose, &a->sim_image,
                         d));
  if (cache->dir)
    kg_cache_put(cache, &key, a->sim_image.data, a->sim_image.len);
  return 0;
}

/* One compile of the build: a target's code object (or the artifact --emit
 * asks for) or its sim image. */
typedef struct compile_job {
  const options_t *o;
  kg_arch_build_t *arch;
  int sim;
  kg_artifact_t what;
  kg_buf_t *out;
  const kg_cache_t *cache; /* closed (dir NULL): compile whatever it holds */
  int rc, cached;
  double seconds;
  kg_diag_t diag;
} compile_job_t;

typedef struct job_pool {
  compile_job_t *jobs;
  int n;
  atomic_int next;
  pthread_mutex_t lock;
  pthread_cond_t done_cond;
  int done;
} job_pool_t;

static void *job_worker(void *arg) {
  job_pool_t *pool = arg;
  for (;;) {
    const int i = atomic_fetch_add(&pool->next, 1);
    if (i >= pool->n)
      return NULL;
    compile_job_t *j = &pool->jobs[i];
    const double start = seconds_now();
    j->rc = j->sim ? compile_sim(j->o, j->arch, j->cache, &j->cached, &j->diag)
                   : compile_arch(j->o, j->arch, j->what, j->out, j->cache, &j->cached,
                                  &j->diag);
    j->seconds = seconds_now() - start;
    pthread_mutex_lock(&pool->lock);
    pool->done++;
    pthread_cond_signal(&pool->done_cond);
    pthread_mutex_unlock(&pool->lock);
  }
}

/* Runs the jobs, o->jobs at once (on a terminal, a line of progress once a
 * second has passed); the first failure, in job order, is the error. */
static int run_jobs(const options_t *o, compile_job_t *jobs, int n, kg_diag_t *d) {
  job_pool_t pool = {jobs, n, 0, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
  int workers = o->jobs > 0 ? o->jobs : (int)sysconf(_SC_NPROCESSORS_ONLN);
  workers = workers < 1 ? 1 : workers > n ? n : workers;
  pthread_t threads[2 * KG_MAX_ARCHES];
  int started = 0;
  for (int i = 0; i < workers && workers > 1; i++)
    if (pthread_create(&threads[started], NULL, job_worker, &pool) == 0)
      started++;
  const int progress = isatty(2) && !o->verbose;
  const double start = seconds_now();
  int shown = 0;
  if (started == 0) {
    job_worker(&pool); /* -j 1, or no threads: all on this one */
  } else {
    pthread_mutex_lock(&pool.lock);
    while (pool.done < n) {
      struct timespec until;
      clock_gettime(CLOCK_REALTIME, &until);
      until.tv_sec += 1;
      pthread_cond_timedwait(&pool.done_cond, &pool.lock, &until);
      if (progress && seconds_now() - start > 1.0) {
        fprintf(stderr, "\rkgen: compiling: %d of %d done\033[K", pool.done, n);
        shown = 1;
      }
    }
    pthread_mutex_unlock(&pool.lock);
    for (int i = 0; i < started; i++)
      pthread_join(threads[i], NULL);
  }
  if (shown)
    fputs("\r\033[K", stderr);
  for (int i = 0; i < n; i++)
    if (jobs[i].rc) {
      *d = jobs[i].diag;
      return -1;
    }
  return 0;
}

static int is_cuda(const kg_target_t *t) {
  return strcmp(t->platform, "cuda") == 0;
}

/* Per distinct kernel and arch. For cuda targets (see kgrt_codeobj.h) vgpr is the
 * registers per thread, sgpr does not apply, lds is the static shared memory
 * and scratch the local memory (stack) per thread. */
static void print_summary(const kg_program_t *p, const kg_arch_build_t *arches, int n) {
  printf("%-32s %-8s %4s %5s %5s %6s %7s %6s\n", "kernel", "arch", "wave", "vgpr", "sgpr",
         "lds", "scratch", "code");
  for (int a = 0; a < n; a++)
    for (int k = 0; k < p->num_kernels; k++) {
      const kg_lowered_t *lw = &arches[a].lowered[k];
      const kgrt_codeobj_kernel_t *m = arches[a].have_meta && lw->code == k
                                           ? kgrt_codeobj_find(&arches[a].meta, lw->name)
                                           : NULL;
      if (!m)
        continue;
      char sgprs[16];
      snprintf(sgprs, sizeof sgprs, "%u", m->sgprs);
      printf("%-32s %-8s %4u %5u %5s %6u %7u %6llu\n", lw->name, arches[a].target.name,
             m->wave_size, m->vgprs, is_cuda(&arches[a].target) ? "-" : sgprs,
             m->lds_bytes, m->scratch_bytes, (unsigned long long)m->code_bytes);
    }
}

static void add_file(kg_outfile_t *files, int *n, char *name, const kg_buf_t *b) {
  files[*n].name = name;
  files[*n].data = b->data ? b->data : "";
  files[*n].size = b->len;
  (*n)++;
}

/* --time-report: the phases in order, each with its seconds. */
typedef struct phase_times {
  const char *name[8];
  double s[8];
  int n;
  double last;
} phase_times_t;

static void phase_done(phase_times_t *t, const char *name) {
  const double now = seconds_now();
  if (t->n < 8) {
    t->name[t->n] = name;
    t->s[t->n++] = now - t->last;
  }
  t->last = now;
}

static void time_report(const phase_times_t *t, const compile_job_t *jobs, int n) {
  double total = 0;
  fputs("kgen: time:", stderr);
  for (int i = 0; i < t->n; i++) {
    fprintf(stderr, "%s %s %.2f s", i ? "," : "", t->name[i], t->s[i]);
    total += t->s[i];
  }
  fprintf(stderr, "; total %.2f s\n", total);
  for (int i = 0; i < n; i++)
    fprintf(stderr, "kgen: time:   %s %s %.2f s%s\n", jobs[i].arch->target.name,
            jobs[i].sim ? "sim image" : "code object", jobs[i].seconds,
            jobs[i].cached ? " (from the cache)" : "");
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
  phase_times_t times = {{0}, {0}, 0, seconds_now()};
  compile_job_t jobs[2 * KG_MAX_ARCHES];
  int num_jobs = 0;
  /* the cache serves table builds; --emit always runs the compiler */
  kg_cache_t cache;
  kg_cache_open(&cache, o->no_cache || o->emit != EMIT_BUILD, o->verbose);

  /* targets first: a bad --arch should not wait for the model */
  for (int i = 0; i < o->num_arches && rc == 0; i++)
    rc = kg_target_load(sb, o->arches[i], &arches[i].target, d);
  /* 1 the model, in the sandbox -> graph */
  kg_target_t targets[KG_MAX_ARCHES];
  for (int i = 0; i < o->num_arches; i++)
    targets[i] = arches[i].target;
  if (rc == 0)
    rc = kg_front_load(sb, o->model, targets, o->num_arches, &g, d);
  else
    memset(&g, 0, sizeof g);
  if (rc == 0)
    rc = kg_sizes_graph(&g, o->model, d);
  phase_done(&times, "model");
  if (rc == 0 && o->emit == EMIT_GRAPH) {
    kg_print_graph(&g, &emitted);
    kg_sandbox_close(sb);
    rc = kg_out_write_file(o->out, emitted.data ? emitted.data : "", emitted.len, d);
    goto done;
  }
  /* 2 fuse and plan memory */
  if (rc == 0)
    rc = kg_fuse(&g, &p, d);
  if (rc == 0)
    rc = kg_plan(&g, &p, d);
  if (rc == 0)
    rc = kg_sizes_plan(&p, o->model, d);
  phase_done(&times, "fuse and plan");
  /* 3 per target: the params rules (the sandbox's Lua: one target at a
   * time), then lowering and expansion (no Lua) */
  int want_sim = o->sim && (o->emit == EMIT_BUILD || o->emit == EMIT_TABLE);
  kg_buf_t *holes = o->emit == EMIT_KERNELS
                        ? kg_xcalloc((size_t)p.num_kernels + 1, sizeof *holes)
                        : NULL;
  for (int i = 0; i < o->num_arches && rc == 0; i++) {
    kg_arch_build_t *a = &arches[i];
    a->lowered = kg_xcalloc((size_t)p.num_kernels + 1, sizeof *a->lowered);
    kg_params_t *params = kg_xcalloc((size_t)p.num_kernels + 1, sizeof *params);
    rc = kg_params_resolve(sb, &g, &p, &a->target, params, d);
    if (rc == 0)
      rc = kg_lower(&g, &p, &a->target, params, a->lowered, &a->source,
                    want_sim ? &a->sim_source : NULL, holes, d);
    kg_params_free(params, p.num_kernels);
    free(params);
    int distinct = 0;
    for (int k = 0; k < p.num_kernels && rc == 0; k++)
      distinct += a->lowered[k].code == k;
    if (rc == 0 && distinct > KG_MAX_DISTINCT_KERNELS)
      rc = kg_error_at(d, o->model, 0,
                       "%s: the model needs %d distinct kernels, more than %d (the most "
                       "kgen compiles for one target)",
                       a->target.name, distinct, KG_MAX_DISTINCT_KERNELS);
    if (rc == 0)
      rc = kg_sizes_grids(&g, &p, a->lowered, a->target.name, o->model, d);
  }
  /* no Lua runs past here: what the model held goes before the compilers */
  kg_sandbox_close(sb);
  phase_done(&times, "lower");
  if (holes) {
    if (rc == 0) {
      kg_print_kernels(&g, &p, &arches[0].target, arches[0].lowered, holes, &emitted);
      rc = kg_out_write_file(o->out, emitted.data ? emitted.data : "", emitted.len, d);
    }
    for (int k = 0; k < p.num_kernels; k++)
      kg_buf_free(&holes[k]);
    free(holes);
    goto done;
  }
  /* 4-5 every target's code object and sim image, -j at once: compile (or
   * take from the cache), read the code object back */
  if (rc == 0 && o->emit != EMIT_HIP) {
    const kg_artifact_t what = o->emit == EMIT_LLVM  ? KG_ARTIFACT_LLVM
                               : o->emit == EMIT_ASM ? KG_ARTIFACT_ASM
                                                     : KG_ARTIFACT_CODE_OBJECT;
    for (int i = 0; i < o->num_arches; i++) {
      kg_arch_build_t *a = &arches[i];
      compile_job_t *j = &jobs[num_jobs++];
      memset(j, 0, sizeof *j);
      j->o = o, j->arch = a, j->what = what, j->cache = &cache;
      j->out = what == KG_ARTIFACT_CODE_OBJECT ? &a->image : &emitted;
      if (want_sim) {
        j = &jobs[num_jobs++];
        memset(j, 0, sizeof *j);
        j->o = o, j->arch = a, j->sim = 1, j->cache = &cache;
      }
    }
    rc = run_jobs(o, jobs, num_jobs, d);
  }
  phase_done(&times, "compile");
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
    phase_done(&times, "tables");
    if (o->out)
      rc = kg_out_write_dir(o->out, files, n, d);
    phase_done(&times, "write");
    if (rc == 0)
      print_summary(&p, arches, o->num_arches);
    for (int i = 0; i < n; i++)
      free(files[i].name);
    for (int i = 0; i < o->num_arches; i++)
      kg_buf_free(&tables[i]);
    free(tables);
  }

done:
  if (rc == 0 && o->time_report)
    time_report(&times, jobs, num_jobs);
  kg_cache_close(&cache);
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
  o.compile_seconds = KG_DEFAULT_COMPILE_SECONDS;
  o.compile_memory_mib = KG_DEFAULT_COMPILE_MEMORY_MIB;
  kg_sandbox_opts_default(&o.limits);
  o.limits.define_names = (const char *const *)o.define_names;
  o.limits.define_values = o.define_values;
  kg_cleanup_install();
  kg_diag_t d = {{0}};
  int list = 0;
  int rc = parse_args(argc, argv, &o, &list, &d);
  o.limits.num_defines = o.num_defines;
  kg_proc_set_limits(o.compile_seconds,
                     (unsigned long long)(o.compile_memory_mib * 1048576));
  if (rc == 0) {
    kg_sandbox_t *sb = NULL;
    rc = kg_sandbox_new(&o.limits, o.model ? o.model : "kgen", &sb, &d);
    if (rc == 0) {
      if (list == OPT_LIST_TARGETS)
        rc = kg_target_list(sb, &d);
      else if (list == OPT_LIST_OPS)
        rc = kg_front_list_ops(sb, &d);
      else
        rc = kg_build(&o, sb, &d);
      kg_sandbox_free(sb);
    }
  }
  for (int i = 0; i < o.num_arches; i++)
    free(o.arches[i]);
  for (int i = 0; i < o.num_defines; i++)
    free(o.define_names[i]);
  if (rc < 0) {
    fprintf(stderr, "%s\n", d.msg[0] ? d.msg : "kgen: error: failed");
    return 1;
  }
  return 0;
}
