/* test_runtime.c - kgrt's public API: device specs, model validation (each
 * kind of corruption its own status), dims, bindings, and a two-step plan run
 * on the sim device with the right numbers; every failure path is checked to
 * free everything (a counting allocator, plus an allocation-failure sweep).
 *
 * Usage: test_runtime [GFX1100_HSACO SIM_SO]. Without the two files only the
 * tests that need no code object run. The files come from runtime_kernel.hip
 * (run from the repository root):
 *   clang-19 -x hip --offload-arch=gfx1100 --offload-device-only \
 *     --no-gpu-bundle-output -nogpuinc -nogpulib -O2 \
 *     test/unit/runtime_kernel.hip -o runtime_kernel_gfx1100.hsaco
 *   clang++-19 -x c++ -std=c++17 -DKG_SIM -O2 -fPIC -shared -fno-exceptions \
 *     -fno-rtti -include runtime/kgrt_sim_abi.h -include templates/prelude_sim.hip \
 *     test/unit/runtime_kernel.hip -o runtime_kernel_sim.so
 * Needs the kgrt sources; links with -ldl -lpthread only. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kgrt.h"
#include "kgrt_device.h" /* kgrt_model_dim_value */
#include "kgrt_hash.h"
#include "runtime_kernel.h"
#include "test.h"

/* ---- a counting allocator that can be told to fail ------------------------ */

/* Atomic: the sim device's worker threads allocate at once (kgrt.h). */
typedef struct counting {
  long live;    /* allocations not yet freed */
  long calls;   /* allocations asked for */
  long fail_at; /* the call that returns NULL (1-based); 0: never */
} counting_t;

static void *counting_alloc(void *user, size_t size) {
  counting_t *c = user;
  if (__atomic_add_fetch(&c->calls, 1, __ATOMIC_SEQ_CST) == c->fail_at)
    return NULL;
  void *p = malloc(size);
  if (p != NULL)
    __atomic_add_fetch(&c->live, 1, __ATOMIC_SEQ_CST);
  return p;
}

static void counting_free(void *user, void *ptr) {
  counting_t *c = user;
  __atomic_sub_fetch(&c->live, 1, __ATOMIC_SEQ_CST);
  free(ptr);
}

static kgrt_allocator_t counting_allocator(counting_t *c) {
  memset(c, 0, sizeof *c);
  kgrt_allocator_t a = {counting_alloc, counting_free, c};
  return a;
}

/* ---- the test model: x[T, 32] * w[32] -> arena -> out[T] = row sums ------- */

enum { COLS = 32, T_MAX = 8 };

static const kgrt_sym_t syms[] = {{"T", T_MAX, 0}};
static const kgrt_tensor_info_t inputs[] = {
    {"x", KGRT_DTYPE_F32, 2, {{0, 0}, {COLS, -1}}, 0, 0, 0}};
static const kgrt_tensor_info_t weights[] = {
    {"w", KGRT_DTYPE_F32, 1, {{COLS, -1}}, 0, 0, 0}};
static const kgrt_tensor_info_t outputs[] = {
    {"out", KGRT_DTYPE_F32, 1, {{0, 0}}, 0, 0, 0}};

/* scale * dim `sym`, and a constant. */
static kgrt_expr_t expr(int64_t scale, int sym) {
  kgrt_expr_t e = {scale, {(int16_t)sym, -1, -1, -1}};
  return e;
}
static kgrt_expr_t constant(int64_t v) {
  return expr(v, -1);
}

static kgrt_step_arg_t buffer_arg(kgrt_space_t space, kgrt_expr_t bytes) {
  kgrt_step_arg_t a = {space, 0, 0, bytes, constant(0), constant(0), NULL};
  return a;
}
static kgrt_step_arg_t i64_arg(kgrt_expr_t value) {
  kgrt_step_arg_t a = {KGRT_SPACE_ARENA, 0, 0, constant(0), value, constant(0), NULL};
  return a;
}

typedef struct test_model {
  kgrt_kernel_arg_t scale_args[4], rowsum_args[3];
  kgrt_kernel_t kernels[2];
  kgrt_step_arg_t step0_args[4], step1_args[3];
  kgrt_step_t steps[2];
  kgrt_arch_table_t gfx942, gfx1100;
  const kgrt_arch_table_t *arches[2];
  kgrt_model_table_t table;
} test_model_t;

static const unsigned char *g_hsaco, *g_sim;
static size_t g_hsaco_size, g_sim_size;

/* The hashes of an arch's images as they are now (after a test changed
 * them, so that the check it aims at is the one that fails). */
static void rehash(kgrt_arch_table_t *a) {
  a->image_hash = kgrt_hash64(a->image, a->image_size);
  a->sim_image_hash = kgrt_hash64(a->sim_image, a->sim_image_size);
}

/* A valid table, mutable so each test can break one thing. Its arches are
 * gfx942 (no sim image; the gfx1100 code object, never validated unless
 * picked) and gfx1100. */
static void test_model_init(test_model_t *m) {
  memset(m, 0, sizeof *m);
  memcpy(m->scale_args, rk_scale_args, sizeof rk_scale_args);
  memcpy(m->rowsum_args, rk_rowsum_args, sizeof rk_rowsum_args);
  m->kernels[0] = (kgrt_kernel_t){
      "k_scale", 64, RK_SCALE_KERNARG, 4, m->scale_args, 32, 0, 0, 0, 0, 0, 0};
  m->kernels[1] = (kgrt_kernel_t){
      "k_rowsum", 64, RK_ROWSUM_KERNARG, 3, m->rowsum_args, 32, 0, 0, 0, 0, 0, 0};

  /* step 0: y (arena) = x * w over 32 T elements, 64 per workgroup */
  m->step0_args[0] = buffer_arg(KGRT_SPACE_INPUT, expr(4 * COLS, 0));
  m->step0_args[1] = buffer_arg(KGRT_SPACE_WEIGHT, constant(4 * COLS));
  m->step0_args[2] = buffer_arg(KGRT_SPACE_ARENA, expr(4 * COLS, 0));
  m->step0_args[3] = i64_arg(expr(COLS, 0));
  m->steps[0] = (kgrt_step_t){.kernel = 0,
                              .units = expr(COLS, 0),
                              .per_block = 64,
                              .repeat = 1,
                              .args = m->step0_args};
  /* step 1: out = row sums of y, 2 rows per workgroup */
  m->step1_args[0] = buffer_arg(KGRT_SPACE_ARENA, expr(4 * COLS, 0));
  m->step1_args[1] = buffer_arg(KGRT_SPACE_OUTPUT, expr(4, 0));
  m->step1_args[2] = i64_arg(expr(1, 0));
  m->steps[1] = (kgrt_step_t){.kernel = 1,
                              .units = expr(1, 0),
                              .per_block = 2,
                              .repeat = 1,
                              .args = m->step1_args};

  kgrt_arch_table_t arch = {
      .arch = "gfx1100",
      .triple = "amdgcn-amd-amdhsa",
      .wave_size = 32,
      .image = g_hsaco,
      .image_size = g_hsaco_size,
      .sim_image = g_sim,
      .sim_image_size = g_sim_size,
      .num_kernels = 2,
      .kernels = m->kernels,
      .num_steps = 2,
      .steps = m->steps,
      .arena_bytes = 4 * COLS * T_MAX,
      .arena_align = 256,
  };
  rehash(&arch);
  m->gfx1100 = arch;
  m->gfx942 = arch;
  m->gfx942.arch = "gfx942";
  m->gfx942.wave_size = 64;
  m->gfx942.sim_image = NULL;
  m->gfx942.sim_image_size = 0;
  rehash(&m->gfx942);
  m->arches[0] = &m->gfx942;
  m->arches[1] = &m->gfx1100;
  m->table = (kgrt_model_table_t){
      .abi = KGRT_TABLE_ABI,
      .name = "blocks",
      .kgen_version = "test",
      .num_syms = 1,
      .syms = syms,
      .num_inputs = 1,
      .inputs = inputs,
      .num_weights = 1,
      .weights = weights,
      .num_outputs = 1,
      .outputs = outputs,
      .num_arches = 2,
      .arches = m->arches,
  };
}

static void fill_data(float *x, float *w, int rows) {
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < COLS; ++c)
      x[r * COLS + c] = 0.5f * (float)(r + 1) + 0.25f * (float)c - 3.0f;
  for (int c = 0; c < COLS; ++c)
    w[c] = 1.0f + (float)c / 16.0f;
}

static double row_ref(const float *x, const float *w, int r) {
  double s = 0;
  for (int c = 0; c < COLS; ++c)
    s += (double)x[r * COLS + c] * (double)w[c];
  return s;
}

static int close_enough(float got, double want) {
  return fabs((double)got - want) <= 1e-5 * (fabs(want) + 1.0);
}

/* ---- helpers -------------------------------------------------------------- */

/* Loads `table` on a device opened from `spec` with a counting allocator and
 * returns the status; checks the failure leaves nothing allocated. */
static kgrt_status_t load_status(const char *spec, const kgrt_model_table_t *table,
                                 kgrt_error_t *err) {
  counting_t c;
  kgrt_allocator_t a = counting_allocator(&c);
  kgrt_device_t *dev = NULL;
  kgrt_model_t *model = (kgrt_model_t *)&c; /* must come back NULL on failure */
  kgrt_status_t st = kgrt_device_open(spec, &a, &dev, err);
  CHECK_EQ(st, KGRT_STATUS_OK);
  if (st != KGRT_STATUS_OK)
    return st;
  st = kgrt_model_load(dev, table, &model, err);
  CHECK_EQ(err->status, st);
  if (st != KGRT_STATUS_OK)
    CHECK(model == NULL);
  kgrt_model_unload(model);
  kgrt_device_close(dev);
  CHECK_EQ(c.live, 0);
  return st;
}

static int contains(const char *s, const char *part) {
  return strstr(s, part) != NULL;
}

/* Calls fn(arg) with stdout and stderr sent to a temporary file; returns the
 * number of bytes written to them. */
static long output_of(void (*fn)(void *), void *arg) {
  fflush(stdout);
  fflush(stderr);
  FILE *tmp = tmpfile();
  if (tmp == NULL)
    return -1;
  int saved_out = dup(1), saved_err = dup(2);
  dup2(fileno(tmp), 1);
  dup2(fileno(tmp), 2);
  fn(arg);
  fflush(stdout);
  fflush(stderr);
  dup2(saved_out, 1);
  dup2(saved_err, 2);
  close(saved_out);
  close(saved_err);
  long n = lseek(fileno(tmp), 0, SEEK_END);
  fclose(tmp);
  return n;
}

/* ---- tests without a code object ------------------------------------------ */

static void test_status_names(void) {
  CHECK_STR(kgrt_status_name(KGRT_STATUS_OK), "OK");
  CHECK_STR(kgrt_status_name(KGRT_STATUS_NO_MATCHING_ARCH), "NO_MATCHING_ARCH");
  CHECK_STR(kgrt_status_name(KGRT_STATUS_OUT_OF_RANGE), "OUT_OF_RANGE");
  CHECK_STR(kgrt_status_name(KGRT_STATUS_INTERNAL), "INTERNAL");
  CHECK_STR(kgrt_status_name((kgrt_status_t)999), "UNKNOWN");
  for (int i = KGRT_STATUS_OK; i <= KGRT_STATUS_INTERNAL; ++i)
    for (int j = i + 1; j <= KGRT_STATUS_INTERNAL; ++j)
      CHECK(
          strcmp(kgrt_status_name((kgrt_status_t)i), kgrt_status_name((kgrt_status_t)j)));
}

typedef struct open_call {
  const char *spec;
  kgrt_status_t status;
  kgrt_error_t err;
  kgrt_device_t *dev;
  long live;
} open_call_t;

static void open_and_close(void *arg) {
  open_call_t *o = arg;
  counting_t c;
  kgrt_allocator_t a = counting_allocator(&c);
  o->dev = (kgrt_device_t *)&c;
  o->status = kgrt_device_open(o->spec, &a, &o->dev, &o->err);
  int opened = o->dev != NULL;
  kgrt_device_close(o->dev);
  o->dev = opened ? (kgrt_device_t *)1 : NULL;
  o->live = c.live;
}

/* No AMD GPU here: "hip" must say so in one line, print nothing, leak nothing. */
static void test_hip_unavailable(void) {
  /* the options parse: what fails is the GPU */
  const char *specs[] = {"hip", "hip:0", "hip:3", "hip:0,ctas=8,graphs=0"};
  for (int i = 0; i < 4; ++i) {
    open_call_t o = {.spec = specs[i]};
    long printed = output_of(open_and_close, &o);
    CHECK_EQ(printed, 0);
    CHECK_EQ(o.live, 0);
    if (o.status == KGRT_STATUS_OK) {
      fprintf(stderr, "note: %s opened: this machine has an AMD GPU\n", specs[i]);
      continue;
    }
    CHECK_EQ(o.status, KGRT_STATUS_UNAVAILABLE);
    CHECK_EQ(o.err.status, KGRT_STATUS_UNAVAILABLE);
    CHECK(o.dev == NULL);
    CHECK(strncmp(o.err.message, "hip", 3) == 0);
    CHECK(strchr(o.err.message, '\n') == NULL);
    if (i == 0)
      fprintf(stderr, "hip: %s: %s\n", kgrt_status_name(o.status), o.err.message);
  }
}

static void test_bad_specs(void) {
  const char *bad[] = {"",
                       "gpu",
                       "sim:",
                       "sim,",
                       "sim,wave",
                       "sim,wave=",
                       "sim,wave=48",
                       "sim,wave=128",
                       "sim,x=1",
                       "sim,wave=32,,",
                       "sim:gfx 1100",
                       "hip:x",
                       "hip:-1",
                       "hip,wave=32",
                       "cuda:zero",
                       "simulator",
                       "sim:a:b",
                       "sim,memory=0",
                       "sim,graphs=2",
                       "sim,memory=",
                       "hip,graphs=2",
                       "hip,ctas=65",
                       "hip,ctas=",
                       "cuda,ctas=x",
                       "cuda,early_launch=2",
                       "cuda,time_flush=x",
                       "cuda,graphs=1,",
                       "cuda,=1",
                       "sim,wave=32,workers"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    kgrt_error_t err;
    kgrt_device_t *dev = (kgrt_device_t *)&err;
    kgrt_status_t st = kgrt_device_open(bad[i], NULL, &dev, &err);
    if (st != KGRT_STATUS_INVALID_ARGUMENT)
      fprintf(stderr, "spec '%s': %s: %s\n", bad[i], kgrt_status_name(st), err.message);
    CHECK_EQ(st, KGRT_STATUS_INVALID_ARGUMENT);
    CHECK(dev == NULL);
  }
  kgrt_device_t *dev = NULL;
  CHECK_EQ(kgrt_device_open(NULL, NULL, &dev, NULL), KGRT_STATUS_INVALID_ARGUMENT);
  CHECK_EQ(kgrt_device_open("sim", NULL, NULL, NULL), KGRT_STATUS_INVALID_ARGUMENT);
}

static void test_sim_names(void) {
  const char *specs[][2] = {{"sim", "sim"},
                            {"sim:gfx1100", "sim:gfx1100"},
                            {"sim:gfx1100,wave=64", "sim:gfx1100,wave=64"},
                            {"sim,workers=2,wave=32", "sim,wave=32,workers=2"}};
  for (int i = 0; i < 4; ++i) {
    kgrt_error_t err;
    kgrt_device_t *dev = NULL;
    CHECK_EQ(kgrt_device_open(specs[i][0], NULL, &dev, &err), KGRT_STATUS_OK);
    CHECK_EQ(err.status, KGRT_STATUS_OK);
    CHECK_STR(err.message, "");
    CHECK_STR(kgrt_device_name(dev), specs[i][1]);
    kgrt_device_close(dev);
  }
  kgrt_device_close(NULL);
  kgrt_model_unload(NULL);
}

/* ---- validation ----------------------------------------------------------- */

static void test_no_matching_arch(void) {
  test_model_t m;
  kgrt_error_t err;
  test_model_init(&m);
  CHECK_EQ(load_status("sim:gfx1030", &m.table, &err), KGRT_STATUS_NO_MATCHING_ARCH);
  CHECK_STR(err.message, "model blocks: built for gfx942, gfx1100; device is gfx1030");

  /* gfx942 is built but has no sim image */
  CHECK_EQ(load_status("sim:gfx942", &m.table, &err), KGRT_STATUS_NO_MATCHING_ARCH);
  CHECK(contains(err.message, "without a sim image"));

  /* no arch has one */
  m.gfx1100.sim_image = NULL;
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_NO_MATCHING_ARCH);
}

static void test_code_object_errors(void) {
  test_model_t m;
  kgrt_error_t err;

  /* the gfx942 slot holding a gfx1100 code object */
  test_model_init(&m);
  m.gfx942.sim_image = g_sim;
  m.gfx942.sim_image_size = g_sim_size;
  m.gfx942.wave_size = 32;
  rehash(&m.gfx942);
  CHECK_EQ(load_status("sim:gfx942", &m.table, &err), KGRT_STATUS_INVALID_CODE_OBJECT);
  CHECK(contains(err.message, "gfx942 code object is built for gfx1100"));

  test_model_init(&m);
  m.gfx1100.image_size = 100;
  rehash(&m.gfx1100);
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_INVALID_CODE_OBJECT);
  fprintf(stderr, "truncated: %s\n", err.message);

  unsigned char *copy = malloc(g_hsaco_size);
  memcpy(copy, g_hsaco, g_hsaco_size);
  test_model_init(&m);
  m.gfx1100.image = copy;
  copy[18] = 62; /* e_machine: EM_X86_64 */
  copy[19] = 0;
  rehash(&m.gfx1100);
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_INVALID_CODE_OBJECT);
  CHECK(contains(err.message, "62"));
  fprintf(stderr, "e_machine: %s\n", err.message);

  memcpy(copy, g_hsaco, g_hsaco_size);
  copy[4] = 1; /* EI_CLASS: ELFCLASS32 */
  rehash(&m.gfx1100);
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_INVALID_CODE_OBJECT);
  free(copy);

  test_model_init(&m);
  m.kernels[1].name = "k_nothere";
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_MISSING_KERNEL);
  CHECK(contains(err.message, "k_nothere"));

  /* a sim image that is not a shared object */
  test_model_init(&m);
  m.gfx1100.sim_image_size = 100;
  rehash(&m.gfx1100);
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_INVALID_CODE_OBJECT);
  CHECK(contains(err.message, "sim image"));
}

static void test_abi_errors(void) {
  test_model_t m;
  kgrt_error_t err;

  test_model_init(&m);
  m.table.abi = KGRT_TABLE_ABI + 1;
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_ABI_MISMATCH);

  test_model_init(&m);
  m.scale_args[3].offset = 16; /* the code object has n at 24 */
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_ABI_MISMATCH);
  CHECK(contains(err.message, "k_scale: argument 3"));

  test_model_init(&m);
  m.kernels[1].kernarg_size = 32;
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_ABI_MISMATCH);

  test_model_init(&m);
  m.kernels[1].num_args = 2;
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_ABI_MISMATCH);

  test_model_init(&m);
  m.scale_args[0].kind = KGRT_ARG_I64; /* a buffer in the code object */
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_ABI_MISMATCH);

  test_model_init(&m);
  m.kernels[0].block_size = 128; /* __launch_bounds__(64) */
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_ABI_MISMATCH);
  CHECK(contains(err.message, "max_flat_workgroup_size 64"));

  test_model_init(&m);
  m.scale_args[3].offset = 28; /* past the 32-byte kernarg segment */
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_ABI_MISMATCH);

  /* y over x: refused before the code object is read (a code object whose
   * metadata said the same would not make the sim thunk read it there) */
  test_model_init(&m);
  m.scale_args[2].offset = 0;
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_ABI_MISMATCH);
  CHECK(contains(err.message, "argument 2 (kind 0, offset 0, size 8) is not 8 bytes at "
                              "offset 16"));
}

static void test_table_errors(void) {
  test_model_t m;
  kgrt_error_t err;

  test_model_init(&m);
  m.steps[1].kernel = 2;
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_INVALID_ARGUMENT);

  test_model_init(&m);
  m.steps[0].per_block = 0;
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_INVALID_ARGUMENT);

  /* a step's rank: one of the table's ranks (a whole model: rank 0), or -1 */
  test_model_init(&m);
  m.steps[0].rank = 1;
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_INVALID_ARGUMENT);
  CHECK(contains(err.message, "rank 1"));
  test_model_init(&m);
  m.steps[1].rank = -2;
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_INVALID_ARGUMENT);
  test_model_init(&m);
  m.steps[0].rank = -1;
  m.steps[1].rank = 0;
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_OK);

  /* a broadcast's root is a rank; no other collective has one */
  test_model_init(&m);
  m.steps[1].collective = KGRT_COLLECTIVE_BROADCAST;
  m.steps[1].dtype = KGRT_DTYPE_F32;
  m.steps[1].rank = -1;
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_INVALID_ARGUMENT);
  CHECK(contains(err.message, "a bad collective"));
  test_model_init(&m);
  m.steps[1].collective = KGRT_COLLECTIVE_ALL_REDUCE;
  m.steps[1].dtype = KGRT_DTYPE_F32;
  m.steps[1].rank = 0;
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_INVALID_ARGUMENT);
  CHECK(contains(err.message, "a bad collective"));

  test_model_init(&m);
  m.step1_args[1].index = 1; /* one output only */
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_INVALID_ARGUMENT);

  test_model_init(&m);
  m.step0_args[0].bytes.sym[0] = 3; /* one dim only */
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_INVALID_ARGUMENT);

  test_model_init(&m);
  m.step0_args[2].offset = 256; /* 256 + 1024 > the 1024-byte arena */
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_OUT_OF_RANGE);

  test_model_init(&m);
  m.step1_args[1].bytes = expr(8, 0); /* twice the output */
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_OUT_OF_RANGE);

  test_model_init(&m);
  m.steps[0].units = expr(INT64_MAX / 4, 0); /* overflows at T=8 */
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_OUT_OF_RANGE);

  test_model_init(&m);
  m.gfx1100.arena_zero_bytes = m.gfx1100.arena_bytes + 256; /* past the arena */
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_INVALID_ARGUMENT);

  test_model_init(&m);
  m.table.num_arches = 0;
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_NO_MATCHING_ARCH);

  test_model_init(&m);
  m.kernels[1].flags = KGRT_KERNEL_EARLY_LAUNCH | 0x4u; /* a flag kgrt does not know */
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_INVALID_ARGUMENT);
  CHECK(contains(err.message, "k_rowsum: unknown flags 0x5"));

  /* a tensor of more than 2^48 bytes */
  test_model_t big;
  test_model_init(&big);
  kgrt_sym_t big_syms[] = {{"T", (int64_t)1 << 42, 0}}; /* x: 2^49 bytes */
  big.table.syms = big_syms;
  CHECK_EQ(load_status("sim", &big.table, &err), KGRT_STATUS_OUT_OF_RANGE);
  CHECK(contains(err.message, "input x: more than 2^48 bytes"));

  kgrt_device_t *dev = NULL;
  kgrt_model_t *model = NULL;
  CHECK_EQ(kgrt_device_open("sim", NULL, &dev, NULL), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_load(dev, NULL, &model, &err), KGRT_STATUS_INVALID_ARGUMENT);
  CHECK_EQ(kgrt_model_load(dev, &m.table, NULL, &err), KGRT_STATUS_INVALID_ARGUMENT);
  kgrt_device_close(dev);
}

/* The model's rank as a dim (KGRT_SYM_RANK): one, of a split model, with max
 * ranks - 1; only kernel arguments' values use it; kgrt sets it (0 until
 * kgrt_model_join), a caller cannot. */
static void test_rank_sym(void) {
  test_model_t m;
  kgrt_error_t err;
  kgrt_sym_t rs[] = {{"T", T_MAX, 0}, {"rank", 1, KGRT_SYM_RANK}};
  const kgrt_expr_t by_rank = {COLS, {1, -1, -1, -1}};
#define RANK_MODEL()                                                                     \
  do {                                                                                   \
    test_model_init(&m);                                                                 \
    m.table.syms = rs;                                                                   \
    m.table.num_syms = 2;                                                                \
    m.table.ranks = 2;                                                                   \
    m.step0_args[3].value = by_rank; /* a kernel argument: allowed */                    \
  } while (0)

  RANK_MODEL();
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_OK);

  RANK_MODEL();
  m.table.ranks = 0; /* a whole model has no rank */
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_INVALID_ARGUMENT);
  CHECK(contains(err.message, "dim rank: bad flags 0x1"));
  RANK_MODEL();
  rs[1].max = 2; /* ranks 0 .. 1 */
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_INVALID_ARGUMENT);
  rs[1].max = 1;
  rs[0].flags = 0x4; /* a flag kgrt does not know */
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_INVALID_ARGUMENT);
  CHECK(contains(err.message, "dim T: bad flags 0x4"));
  rs[0].flags = 0;

  /* not a size: a buffer's bytes, a grid, a tensor's dim */
  RANK_MODEL();
  m.step0_args[0].bytes = by_rank;
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_INVALID_ARGUMENT);
  CHECK(contains(err.message, "(the rank)"));
  RANK_MODEL();
  m.steps[1].units = by_rank;
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_INVALID_ARGUMENT);
  kgrt_tensor_info_t in = inputs[0];
  in.dims[0].sym = 1;
  RANK_MODEL();
  m.table.inputs = &in;
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_INVALID_ARGUMENT);
  CHECK(contains(err.message, "input x: dim 0 is bad"));

  /* kgrt's to set: 0 before joining; set_dim and step_dim refuse it */
  RANK_MODEL();
  kgrt_device_t *dev = NULL;
  kgrt_model_t *model = NULL;
  CHECK_EQ(kgrt_device_open("sim", NULL, &dev, NULL), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_load(dev, &m.table, &model, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_dim_value(model, 1), 0);
  CHECK_EQ(kgrt_model_set_dim(model, "rank", 1, &err), KGRT_STATUS_INVALID_ARGUMENT);
  CHECK(
      contains(err.message, "dim rank is the model's rank, which kgrt_model_join sets"));
  CHECK_EQ(kgrt_model_step_dim(model, "rank", 1, &err), KGRT_STATUS_INVALID_ARGUMENT);
  CHECK(contains(err.message, "kgrt_model_join sets"));
  CHECK_EQ(kgrt_model_dim_value(model, 1), 0);
  CHECK_EQ(kgrt_model_set_dim(model, "T", 2, &err), KGRT_STATUS_OK);
  kgrt_model_unload(model);
  kgrt_device_close(dev);
#undef RANK_MODEL
}

/* A count (KGRT_SYM_COUNT): 0 .. max, a launch's units and kernel arguments
 * only; a launch it makes empty is skipped. Here step 0 computes the first N
 * rows of y (N a count), so rows past N stay the arena's poison. */
static void test_count_sym(void) {
  test_model_t m;
  kgrt_error_t err;
  kgrt_sym_t cs[] = {{"T", T_MAX, 0}, {"N", T_MAX, KGRT_SYM_COUNT}};
#define COUNT_MODEL()                                                                    \
  do {                                                                                   \
    test_model_init(&m);                                                                 \
    m.table.syms = cs;                                                                   \
    m.table.num_syms = 2;                                                                \
    m.steps[0].units = expr(COLS, 1);                                                    \
  } while (0)

  /* not a tensor's dim, a buffer's bytes, nor with the rank's flag */
  kgrt_tensor_info_t in = inputs[0];
  in.dims[0].sym = 1;
  COUNT_MODEL();
  m.table.inputs = &in;
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_INVALID_ARGUMENT);
  CHECK(contains(err.message, "input x: dim 0 is bad"));
  COUNT_MODEL();
  m.step0_args[0].bytes = expr(4 * COLS, 1);
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_INVALID_ARGUMENT);
  CHECK(contains(err.message, "(a count)"));
  COUNT_MODEL();
  cs[1].flags = KGRT_SYM_COUNT | KGRT_SYM_RANK;
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_INVALID_ARGUMENT);
  CHECK(contains(err.message, "dim N: bad flags 0x3"));
  cs[1].flags = KGRT_SYM_COUNT;

  COUNT_MODEL();
  kgrt_device_t *dev = NULL;
  kgrt_model_t *model = NULL;
  float x[T_MAX * COLS], w[COLS], out[T_MAX];
  fill_data(x, w, T_MAX);
  CHECK_EQ(kgrt_device_open("sim", NULL, &dev, NULL), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_load(dev, &m.table, &model, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_set_dim(model, "T", T_MAX, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_set_weight(model, "w", w, sizeof w, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_set_input(model, "x", x, sizeof x, &err), KGRT_STATUS_OK);
  /* not set until set, 0 included */
  CHECK_EQ(kgrt_model_run(model, &err), KGRT_STATUS_FAILED_PRECONDITION);
  CHECK(contains(err.message, "dim N is not set"));
  CHECK_EQ(kgrt_model_set_dim(model, "N", -1, &err), KGRT_STATUS_OUT_OF_RANGE);
  CHECK_EQ(kgrt_model_set_dim(model, "N", T_MAX + 1, &err), KGRT_STATUS_OUT_OF_RANGE);
  CHECK_STR(err.message, "model blocks: dim N = 9 is out of range 0..8");
  CHECK_EQ(kgrt_model_set_dim(model, "T", 0, &err), KGRT_STATUS_OUT_OF_RANGE);
  CHECK_EQ(kgrt_model_set_dim(model, "N", 0, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_run(model, &err), KGRT_STATUS_OK); /* step 0 skipped */
  CHECK_EQ(kgrt_model_get_output(model, "out", out, sizeof out, &err), KGRT_STATUS_OK);
  for (int row = 0; row < T_MAX; ++row)
    CHECK(isnan(out[row]));
  /* 2 rows: 64 elements, one workgroup of step 0's 64 */
  CHECK_EQ(kgrt_model_set_dim(model, "N", 2, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_run(model, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_get_output(model, "out", out, sizeof out, &err), KGRT_STATUS_OK);
  for (int row = 0; row < T_MAX; ++row)
    CHECK(row < 2 ? close_enough(out[row], row_ref(x, w, row)) : isnan(out[row]));
  kgrt_model_unload(model);
  kgrt_device_close(dev);
#undef COUNT_MODEL
}

/* Grids and the arena in 64 bits: sizes that wrap to small numbers are
 * refused, not launched short or allocated short. */
static void test_size_overflow(void) {
  test_model_t m;
  kgrt_error_t err;

  /* 2^62 units, 1 per workgroup, 4 times: 2^64 workgroups wrap to 0 */
  test_model_init(&m);
  m.steps[0].units = constant((int64_t)1 << 62);
  m.steps[0].per_block = 1;
  m.steps[0].repeat = 4;
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_OUT_OF_RANGE);
  CHECK(contains(err.message, "step 0 (k_scale)"));
  CHECK(contains(err.message, "more than 2^32 - 1 threads"));

  /* 2^58 workgroups of 64 threads: 2^64 threads wrap to 0 */
  test_model_init(&m);
  m.steps[0].units = constant((int64_t)1 << 58);
  m.steps[0].per_block = 1;
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_OUT_OF_RANGE);

  /* 2^32 threads exactly: one too many */
  test_model_init(&m);
  m.steps[0].units = constant((int64_t)1 << 26);
  m.steps[0].per_block = 1;
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_OUT_OF_RANGE);

  /* an arena whose size plus alignment wraps to 256 bytes */
  test_model_init(&m);
  m.gfx1100.arena_bytes = UINT64_MAX - 255;
  m.gfx1100.arena_align = 512;
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_OUT_OF_RANGE);
  CHECK(contains(err.message, "more than 2^48"));
}

/* Only amdgcn and nvptx code objects are validated, so only they load. */
static void test_unknown_triple(void) {
  const char *bad[] = {"x86_64-pc-linux-gnu", "", "amdgcn", "nvptx64-nvidia-cudax",
                       "amdgcn-amd-amdhsa\n"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    test_model_t m;
    kgrt_error_t err;
    test_model_init(&m);
    m.gfx1100.triple = bad[i];
    CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_INVALID_ARGUMENT);
    CHECK(contains(err.message, "is not one kgrt validates"));
  }
}

/* The sim image is checked before dlopen maps it: a truncated image or one
 * whose headers point past its end is refused, not mapped (mapped, the
 * loader would touch pages past the end of the file: SIGBUS). */
static void test_sim_image_errors(void) {
  const size_t sizes[] = {g_sim_size - 1, g_sim_size / 2, 4096, 65, 64, 63, 16};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
    test_model_t m;
    kgrt_error_t err;
    test_model_init(&m);
    m.gfx1100.sim_image_size = sizes[i];
    rehash(&m.gfx1100);
    CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_INVALID_CODE_OBJECT);
    CHECK(contains(err.message, "sim image"));
    if (i == 1)
      fprintf(stderr, "truncated sim image: %s\n", err.message);
  }
  /* headers that point past the end, or are not a host shared object */
  struct {
    size_t at, len;
    uint64_t value;
    const char *says;
  } bad[] = {
      {4, 1, 1, "64-bit"},          /* EI_CLASS: 32-bit */
      {5, 1, 2, "little-endian"},   /* EI_DATA: big-endian */
      {16, 2, 1, "shared object"},  /* e_type: ET_REL */
      {18, 2, 224, "machine"},      /* e_machine: AMDGPU */
      {32, 8, 1u << 30, "program"}, /* e_phoff */
      {54, 2, 64, "program"},       /* e_phentsize */
      {56, 2, 0, "program"},        /* e_phnum */
      {56, 2, 60000, "program"},    /* e_phnum */
  };
  unsigned char *copy = malloc(g_sim_size);
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    memcpy(copy, g_sim, g_sim_size);
    for (size_t k = 0; k < bad[i].len; ++k)
      copy[bad[i].at + k] = (unsigned char)(bad[i].value >> (8 * k));
    test_model_t m;
    kgrt_error_t err;
    test_model_init(&m);
    m.gfx1100.sim_image = copy;
    rehash(&m.gfx1100);
    CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_INVALID_CODE_OBJECT);
    if (!contains(err.message, bad[i].says))
      fprintf(stderr, "byte %zu: %s\n", bad[i].at, err.message);
    CHECK(contains(err.message, bad[i].says));
  }
  /* the last loadable segment's file bytes end one byte past the image */
  memcpy(copy, g_sim, g_sim_size);
  uint64_t phoff = 0;
  for (int k = 0; k < 8; ++k)
    phoff |= (uint64_t)copy[32 + k] << (8 * k);
  const unsigned phnum = copy[56] | copy[57] << 8;
  unsigned char *last = NULL;
  for (unsigned p = 0; p < phnum; ++p)
    if (copy[phoff + 56u * p] == 1) /* PT_LOAD */
      last = copy + phoff + 56u * p;
  CHECK(last != NULL);
  uint64_t off = 0;
  for (int k = 0; k < 8; ++k)
    off |= (uint64_t)last[8 + k] << (8 * k);
  const uint64_t filesz = g_sim_size - off + 1;
  for (int k = 0; k < 8; ++k) { /* p_filesz, and p_memsz to match */
    last[32 + k] = (unsigned char)(filesz >> (8 * k));
    last[40 + k] = (unsigned char)((filesz + 4096) >> (8 * k));
  }
  test_model_t m;
  kgrt_error_t err;
  test_model_init(&m);
  m.gfx1100.sim_image = copy;
  rehash(&m.gfx1100);
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_INVALID_CODE_OBJECT);
  CHECK(contains(err.message, "past the end"));
  free(copy);
}

/* Every image's bytes must hash to what the table says: one byte changed
 * anywhere (here in the code, where no other check looks) is refused. */
static void test_hash_errors(void) {
  test_model_t m;
  kgrt_error_t err;
  unsigned char *code = malloc(g_hsaco_size), *sim = malloc(g_sim_size);
  memcpy(code, g_hsaco, g_hsaco_size);
  memcpy(sim, g_sim, g_sim_size);

  test_model_init(&m);
  m.gfx1100.image = code;
  code[g_hsaco_size / 2] ^= 0x10;
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_INVALID_CODE_OBJECT);
  CHECK(contains(err.message, "gfx1100: the code object's"));
  CHECK(contains(err.message, "a damaged table"));
  fprintf(stderr, "hash: %s\n", err.message);
  code[g_hsaco_size / 2] ^= 0x10;
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_OK);

  test_model_init(&m);
  m.gfx1100.sim_image = sim;
  sim[0x1010] ^= 0x01; /* in the first executable page */
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_INVALID_CODE_OBJECT);
  CHECK(contains(err.message, "gfx1100: the sim image's"));
  sim[0x1010] ^= 0x01;
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_OK);

  test_model_init(&m);
  m.gfx1100.image_hash ^= 1;
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_INVALID_CODE_OBJECT);
  test_model_init(&m);
  m.gfx1100.sim_image_hash = 0;
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_INVALID_CODE_OBJECT);
  free(code);
  free(sim);
}

/* Whether every byte of s is printable ASCII. */
static int printable(const char *s) {
  for (; *s; ++s)
    if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
      return 0;
  return 1;
}

/* Names from a table, a code object or a device spec reach messages with
 * every byte outside printable ASCII escaped as \xNN. */
static void test_message_bytes(void) {
  test_model_t m;
  kgrt_error_t err;
  test_model_init(&m);
  m.kernels[1].name = "k_\x1b[2J\nevil\xff";
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_MISSING_KERNEL);
  CHECK(printable(err.message));
  CHECK(contains(err.message, "kernel k_\\x1b[2J\\x0aevil\\xff is not"));

  test_model_init(&m);
  m.table.name = "\x07"
                 "bell\r";
  m.gfx1100.triple = "\tx86";
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_INVALID_ARGUMENT);
  CHECK(printable(err.message));
  CHECK(contains(err.message, "model \\x07bell\\x0d: gfx1100: triple '\\x09x86'"));

  kgrt_device_t *dev = NULL;
  CHECK_EQ(kgrt_device_open("gpu\x01\x80,\n", NULL, &dev, &err),
           KGRT_STATUS_INVALID_ARGUMENT);
  CHECK(printable(err.message));
  CHECK(contains(err.message, "device spec 'gpu\\x01\\x80,\\x0a'"));
  CHECK_EQ(kgrt_device_open("sim,wave=\x1b", NULL, &dev, &err),
           KGRT_STATUS_INVALID_ARGUMENT);
  CHECK(printable(err.message));
  CHECK(contains(err.message, "bad option 'wave=\\x1b'"));

  /* a long message of escapes is cut, still terminated and printable */
  char name[600];
  memset(name, 0x1b, sizeof name - 1);
  name[sizeof name - 1] = '\0';
  CHECK_EQ(kgrt_device_open(name, NULL, &dev, &err), KGRT_STATUS_INVALID_ARGUMENT);
  CHECK(printable(err.message));
  CHECK(strlen(err.message) < sizeof err.message);
}

/* ---- running -------------------------------------------------------------- */

typedef struct run_result {
  kgrt_status_t status; /* the first failure, or OK */
  kgrt_error_t err;
  float out[T_MAX];
} run_result_t;

/* The full life cycle with T rows: open, load, bind, run, read, unload, close. */
static void run_model(const char *spec, const kgrt_model_table_t *table,
                      const kgrt_allocator_t *alloc, int rows, run_result_t *r) {
  float x[T_MAX * COLS], w[COLS];
  kgrt_device_t *dev = NULL;
  kgrt_model_t *model = NULL;
  fill_data(x, w, rows);
  memset(r, 0, sizeof *r);
  kgrt_error_t *err = &r->err;
  kgrt_status_t st = kgrt_device_open(spec, alloc, &dev, err);
  if (st == KGRT_STATUS_OK)
    st = kgrt_model_load(dev, table, &model, err);
  if (st == KGRT_STATUS_OK)
    st = kgrt_model_set_dim(model, "T", rows, err);
  if (st == KGRT_STATUS_OK)
    st = kgrt_model_set_weight(model, "w", w, sizeof w, err);
  if (st == KGRT_STATUS_OK)
    st = kgrt_model_set_input(model, "x", x, sizeof(float) * COLS * (size_t)rows, err);
  if (st == KGRT_STATUS_OK)
    st = kgrt_model_run(model, err);
  if (st == KGRT_STATUS_OK)
    st = kgrt_model_get_output(model, "out", r->out, sizeof(float) * (size_t)rows, err);
  r->status = st;
  kgrt_model_unload(model);
  kgrt_device_close(dev);
}

static void test_dims_and_bindings(void) {
  test_model_t m;
  test_model_init(&m);
  counting_t c;
  kgrt_allocator_t a = counting_allocator(&c);
  kgrt_error_t err;
  kgrt_device_t *dev = NULL;
  kgrt_model_t *model = NULL;
  float x[T_MAX * COLS], w[COLS], out[T_MAX];
  size_t bytes = 1;
  fill_data(x, w, T_MAX);

  CHECK_EQ(kgrt_device_open("sim", &a, &dev, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_load(dev, &m.table, &model, &err), KGRT_STATUS_OK);
  CHECK_STR(kgrt_model_arch(model), "gfx1100");

  CHECK_EQ(kgrt_model_set_dim(model, "T", T_MAX + 1, &err), KGRT_STATUS_OUT_OF_RANGE);
  CHECK_STR(err.message, "model blocks: dim T = 9 is out of range 1..8");
  CHECK_EQ(kgrt_model_set_dim(model, "T", 0, &err), KGRT_STATUS_OUT_OF_RANGE);
  CHECK_EQ(kgrt_model_set_dim(model, "Q", 1, &err), KGRT_STATUS_NOT_FOUND);

  CHECK_EQ(kgrt_model_tensor_bytes(model, "w", &bytes, &err), KGRT_STATUS_OK);
  CHECK_EQ(bytes, 4 * COLS);
  CHECK_EQ(kgrt_model_tensor_bytes(model, "x", &bytes, &err),
           KGRT_STATUS_FAILED_PRECONDITION);
  CHECK_EQ(kgrt_model_tensor_bytes(model, "nope", &bytes, &err), KGRT_STATUS_NOT_FOUND);
  CHECK_EQ(kgrt_model_run(model, &err), KGRT_STATUS_FAILED_PRECONDITION);
  CHECK(contains(err.message, "dim T is not set"));

  CHECK_EQ(kgrt_model_set_dim(model, "T", 4, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_tensor_bytes(model, "x", &bytes, &err), KGRT_STATUS_OK);
  CHECK_EQ(bytes, 4 * COLS * 4);
  CHECK_EQ(kgrt_model_tensor_bytes(model, "out", &bytes, &err), KGRT_STATUS_OK);
  CHECK_EQ(bytes, 16);

  CHECK_EQ(kgrt_model_run(model, &err), KGRT_STATUS_FAILED_PRECONDITION);
  CHECK(contains(err.message, "input x is not bound"));
  CHECK_EQ(kgrt_model_set_input(model, "x", x, 4 * COLS * 3, &err),
           KGRT_STATUS_OUT_OF_RANGE);
  CHECK_EQ(kgrt_model_set_input(model, "w", w, sizeof w, &err), KGRT_STATUS_NOT_FOUND);
  CHECK_EQ(kgrt_model_set_input(model, "x", x, 4 * COLS * 4, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_run(model, &err), KGRT_STATUS_FAILED_PRECONDITION);
  CHECK(contains(err.message, "weight w is not bound"));
  CHECK_EQ(kgrt_model_set_weight(model, "w", w, sizeof w, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_get_output(model, "out", out, 16, &err),
           KGRT_STATUS_FAILED_PRECONDITION);

  CHECK_EQ(kgrt_model_run(model, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_get_output(model, "out", out, 12, &err), KGRT_STATUS_OUT_OF_RANGE);
  CHECK_EQ(kgrt_model_get_output(model, "x", out, 16, &err), KGRT_STATUS_NOT_FOUND);
  CHECK_EQ(kgrt_model_get_output(model, "out", out, 16, &err), KGRT_STATUS_OK);
  for (int r = 0; r < 4; ++r)
    CHECK(close_enough(out[r], row_ref(x, w, r)));

  /* Fewer rows: x was bound for 4 and must be bound again; odd rows work. */
  CHECK_EQ(kgrt_model_set_dim(model, "T", 3, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_get_output(model, "out", out, 12, &err),
           KGRT_STATUS_FAILED_PRECONDITION);
  CHECK_EQ(kgrt_model_run(model, &err), KGRT_STATUS_FAILED_PRECONDITION);
  CHECK(contains(err.message, "bind it again"));
  CHECK_EQ(kgrt_model_set_input(model, "x", x, 4 * COLS * 3, &err), KGRT_STATUS_OK);
  memset(out, 0, sizeof out);
  CHECK_EQ(kgrt_model_run(model, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_get_output(model, "out", out, 12, &err), KGRT_STATUS_OK);
  for (int r = 0; r < 3; ++r)
    CHECK(close_enough(out[r], row_ref(x, w, r)));

  /* Timing: the median of runs on the device's clock; the outputs stay right. */
  double us = -1;
  CHECK_EQ(kgrt_model_time(model, 1, 0, &us, &err), KGRT_STATUS_INVALID_ARGUMENT);
  CHECK_EQ(kgrt_model_time(NULL, 1, 3, &us, &err), KGRT_STATUS_INVALID_ARGUMENT);
  CHECK_EQ(kgrt_model_time(model, 2, 5, &us, &err), KGRT_STATUS_OK);
  CHECK(us > 0 && us < 5e6);
  memset(out, 0, sizeof out);
  CHECK_EQ(kgrt_model_get_output(model, "out", out, 12, &err), KGRT_STATUS_OK);
  for (int r = 0; r < 3; ++r)
    CHECK(close_enough(out[r], row_ref(x, w, r)));
  CHECK_EQ(kgrt_model_set_dim(model, "T", 4, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_time(model, 0, 3, &us, &err), KGRT_STATUS_FAILED_PRECONDITION);

  kgrt_model_unload(model);
  kgrt_device_close(dev);
  CHECK_EQ(c.live, 0);
}

static void test_run_numbers(void) {
  test_model_t m;
  test_model_init(&m);
  float x[T_MAX * COLS], w[COLS];
  fill_data(x, w, T_MAX);
  const char *specs[] = {"sim", "sim:gfx1100", "sim,workers=1", "sim,workers=3"};
  for (int i = 0; i < 4; ++i) {
    run_result_t r;
    counting_t c;
    kgrt_allocator_t a = counting_allocator(&c);
    run_model(specs[i], &m.table, &a, T_MAX, &r);
    CHECK_EQ(r.status, KGRT_STATUS_OK);
    if (r.status != KGRT_STATUS_OK)
      fprintf(stderr, "%s: %s\n", specs[i], r.err.message);
    for (int row = 0; row < T_MAX; ++row)
      CHECK(close_enough(r.out[row], row_ref(x, w, row)));
    CHECK_EQ(c.live, 0);
  }
  /* the sim ignores KGRT_KERNEL_EARLY_LAUNCH: it runs launches in order */
  m.kernels[1].flags = KGRT_KERNEL_EARLY_LAUNCH;
  run_result_t r;
  run_model("sim", &m.table, NULL, T_MAX, &r);
  CHECK_EQ(r.status, KGRT_STATUS_OK);
  for (int row = 0; row < T_MAX; ++row)
    CHECK(close_enough(r.out[row], row_ref(x, w, row)));
}

/* The arena starts poisoned (NaN), but its first arena_zero_bytes as zeros:
 * with step 0 skipped (0 units), step 1 sums the arena as it was loaded. */
static void test_arena_zeroed(void) {
  test_model_t m;
  test_model_init(&m);
  m.steps[0].units = expr(0, 0);
  run_result_t r;
  run_model("sim", &m.table, NULL, T_MAX, &r);
  CHECK_EQ(r.status, KGRT_STATUS_OK);
  CHECK(isnan(r.out[0]));
  m.gfx1100.arena_zero_bytes = m.gfx1100.arena_bytes;
  run_model("sim", &m.table, NULL, T_MAX, &r);
  CHECK_EQ(r.status, KGRT_STATUS_OK);
  for (int row = 0; row < T_MAX; ++row)
    CHECK_EQ(r.out[row], 0.0f);
}

/* k_rowsum is a wave32 kernel: at wave 64 every odd row is left unwritten. */
static void test_wrong_wave_size(void) {
  test_model_t m;
  test_model_init(&m);
  float x[T_MAX * COLS], w[COLS];
  fill_data(x, w, 4);
  run_result_t r;
  run_model("sim:gfx1100,wave=64", &m.table, NULL, 4, &r);
  CHECK_EQ(r.status, KGRT_STATUS_OK);
  CHECK(close_enough(r.out[0], row_ref(x, w, 0)));
  CHECK(close_enough(r.out[2], row_ref(x, w, 2)));
  CHECK(!close_enough(r.out[1], row_ref(x, w, 1)));
  CHECK(!close_enough(r.out[3], row_ref(x, w, 3)));
}

/* A step that declares fewer bytes than its kernel touches: the sim catches it. */
static void test_out_of_bounds(void) {
  test_model_t m;
  test_model_init(&m);
  m.step1_args[1].bytes = constant(4); /* one float; the kernel writes T */
  counting_t c;
  kgrt_allocator_t a = counting_allocator(&c);
  run_result_t r;
  run_model("sim", &m.table, &a, 4, &r);
  CHECK_EQ(r.status, KGRT_STATUS_DEVICE_ERROR);
  CHECK(contains(r.err.message, "k_rowsum"));
  fprintf(stderr, "out of bounds: %s\n", r.err.message);
  CHECK_EQ(c.live, 0);
}

/* Every allocation of the whole life cycle fails in turn: nothing leaks, and
 * the failure is reported. With one worker every allocation matters; with
 * more, the sim engine may go on without an extra worker that could not start,
 * so there a run may also succeed, with the right numbers. */
static void test_allocation_failures(void) {
  test_model_t m;
  test_model_init(&m);
  float x[T_MAX * COLS], w[COLS];
  fill_data(x, w, 5);
  const char *specs[] = {"sim,workers=1", "sim,workers=2"};
  for (int s = 0; s < 2; ++s) {
    long n_fail = 0;
    for (long fail_at = 1; fail_at < 1000; ++fail_at) {
      counting_t c;
      kgrt_allocator_t a = counting_allocator(&c);
      c.fail_at = fail_at;
      run_result_t r;
      run_model(specs[s], &m.table, &a, 5, &r);
      CHECK_EQ(c.live, 0);
      if (c.calls < fail_at) { /* no allocation failed: the run went through */
        CHECK_EQ(r.status, KGRT_STATUS_OK);
        break;
      }
      if (r.status == KGRT_STATUS_OK) {
        CHECK(s == 1);
        for (int row = 0; row < 5; ++row)
          CHECK(close_enough(r.out[row], row_ref(x, w, row)));
      } else {
        n_fail++;
      }
    }
    CHECK(n_fail > 10);
  }
}

/* ---- memory, state, replay, loops, profiles -------------------------------- */

/* The bytes load allocates, told before loading; a device with less memory
 * refuses the load with OUT_OF_MEMORY, a message with that total, and no
 * leak; with exactly that much it loads. */
static void test_memory(void) {
  test_model_t m;
  test_model_init(&m);
  kgrt_error_t err;
  kgrt_device_t *dev = NULL;
  kgrt_memory_t mem;
  CHECK_EQ(kgrt_device_open("sim", NULL, &dev, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_memory(dev, &m.table, &mem, &err), KGRT_STATUS_OK);
  const uint64_t io = 4 * COLS * T_MAX + 4 * COLS + 4 * T_MAX;
  CHECK_EQ(mem.arena, 4 * COLS * T_MAX);
  CHECK_EQ(mem.inputs + mem.weights + mem.outputs, io);
  CHECK_EQ(mem.total, 4 * COLS * T_MAX + io);
  CHECK_EQ(mem.state, 0);
  m.gfx1100.arena_zero_bytes = 256;
  m.gfx1100.arena_align = 1024; /* the arena is allocated with room to align */
  CHECK_EQ(kgrt_model_memory(dev, &m.table, &mem, &err), KGRT_STATUS_OK);
  CHECK_EQ(mem.state, 256);
  CHECK_EQ(mem.arena, 4 * COLS * T_MAX + 1024);
  m.gfx1100.arena_zero_bytes = 0;
  m.gfx1100.arena_align = 256;
  m.table.abi = 6;
  CHECK_EQ(kgrt_model_memory(dev, &m.table, &mem, &err), KGRT_STATUS_ABI_MISMATCH);
  m.table.abi = KGRT_TABLE_ABI;
  kgrt_device_close(dev);

  char spec[64];
  for (int more = 0; more < 2; ++more) {
    counting_t c;
    kgrt_allocator_t a = counting_allocator(&c);
    snprintf(spec, sizeof spec, "sim,memory=%llu",
             (unsigned long long)(4 * COLS * T_MAX + io - 1 + more));
    kgrt_model_t *model = NULL;
    CHECK_EQ(kgrt_device_open(spec, &a, &dev, &err), KGRT_STATUS_OK);
    kgrt_status_t st = kgrt_model_load(dev, &m.table, &model, &err);
    CHECK_EQ(st, more ? KGRT_STATUS_OK : KGRT_STATUS_OUT_OF_MEMORY);
    if (!more) {
      char need[64];
      snprintf(need, sizeof need, "needs %llu bytes of device memory",
               (unsigned long long)(4 * COLS * T_MAX + io));
      CHECK(contains(err.message, need));
      CHECK(contains(err.message, "out of device memory"));
      fprintf(stderr, "memory: %s\n", err.message);
    }
    kgrt_model_unload(model);
    kgrt_device_close(dev);
    CHECK_EQ(c.live, 0);
  }
}

/* x marked as state: zeros from load, no binding needed, kept across runs,
 * zeros again after kgrt_model_reset_state. */
static void test_state(void) {
  test_model_t m;
  test_model_init(&m);
  kgrt_tensor_info_t in = m.table.inputs[0];
  in.flags = KGRT_TENSOR_STATE;
  m.table.inputs = &in;
  float x[T_MAX * COLS], w[COLS], out[T_MAX];
  fill_data(x, w, T_MAX);
  counting_t c;
  kgrt_allocator_t a = counting_allocator(&c);
  kgrt_error_t err;
  kgrt_device_t *dev = NULL;
  kgrt_model_t *model = NULL;
  CHECK_EQ(kgrt_device_open("sim", &a, &dev, &err), KGRT_STATUS_OK);
  kgrt_memory_t mem;
  CHECK_EQ(kgrt_model_memory(dev, &m.table, &mem, &err), KGRT_STATUS_OK);
  CHECK_EQ(mem.state, 4 * COLS * T_MAX);
  CHECK_EQ(kgrt_model_load(dev, &m.table, &model, &err), KGRT_STATUS_OK);
  if (model == NULL) {
    kgrt_device_close(dev);
    return;
  }
  CHECK_EQ(kgrt_model_set_dim(model, "T", 4, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_set_weight(model, "w", w, sizeof w, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_run(model, &err), KGRT_STATUS_OK); /* x needs no binding */
  CHECK_EQ(kgrt_model_get_output(model, "out", out, 4 * sizeof *out, &err),
           KGRT_STATUS_OK);
  for (int r = 0; r < 4; ++r)
    CHECK_EQ(out[r], 0.0f);
  CHECK_EQ(kgrt_model_set_input(model, "x", x, 4 * COLS * sizeof *x, &err),
           KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_set_dim(model, "T", 2, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_run(model, &err), KGRT_STATUS_OK); /* a state has any size */
  CHECK_EQ(kgrt_model_set_dim(model, "T", 4, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_run(model, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_get_output(model, "out", out, 4 * sizeof *out, &err),
           KGRT_STATUS_OK);
  for (int r = 0; r < 4; ++r)
    CHECK(close_enough(out[r], row_ref(x, w, r)));
  CHECK_EQ(kgrt_model_reset_state(model, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_run(model, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_get_output(model, "out", out, 4 * sizeof *out, &err),
           KGRT_STATUS_OK);
  for (int r = 0; r < 4; ++r)
    CHECK_EQ(out[r], 0.0f);
  CHECK_EQ(kgrt_model_reset_state(NULL, &err), KGRT_STATUS_INVALID_ARGUMENT);
  kgrt_model_unload(model);
  kgrt_device_close(dev);
  CHECK_EQ(c.live, 0);

  /* state is for inputs; unknown flags are refused */
  kgrt_tensor_info_t wt = m.table.weights[0];
  wt.flags = KGRT_TENSOR_STATE;
  m.table.weights = &wt;
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_INVALID_ARGUMENT);
  CHECK(contains(err.message, "state is for inputs"));
  wt.flags = 0;
  in.flags = 0x2;
  CHECK_EQ(load_status("sim", &m.table, &err), KGRT_STATUS_INVALID_ARGUMENT);
}

/* Runs at T = rows and checks every row; returns the number of bad rows. */
static int run_and_check(kgrt_model_t *model, const float *x, const float *w, int rows) {
  kgrt_error_t err;
  float out[T_MAX];
  int bad = 0;
  if (kgrt_model_set_dim(model, "T", rows, &err) != KGRT_STATUS_OK ||
      kgrt_model_set_input(model, "x", x, sizeof(float) * COLS * (size_t)rows, &err) !=
          KGRT_STATUS_OK ||
      kgrt_model_run(model, &err) != KGRT_STATUS_OK ||
      kgrt_model_get_output(model, "out", out, sizeof(float) * (size_t)rows, &err) !=
          KGRT_STATUS_OK) {
    fprintf(stderr, "run_and_check: %s\n", err.message);
    return rows + 1;
  }
  for (int r = 0; r < rows; ++r)
    bad += !close_enough(out[r], row_ref(x, w, r));
  return bad;
}

/* Replay: the graph captured at T = 3 is not the one T = 5 needs; new
 * input bytes at the same dims are read by the replayed graph. The rows
 * take every way a run goes: new dims launched one by one (3, 5, 8), the
 * dims of the run before captured (3) or updated to (5), replayed (3, 5). */
static void test_replay(void) {
  test_model_t m;
  test_model_init(&m);
  float x[T_MAX * COLS], x2[T_MAX * COLS], w[COLS];
  fill_data(x, w, T_MAX);
  for (int i = 0; i < T_MAX * COLS; ++i)
    x2[i] = -2.0f * x[i] + 1.0f;
  const char *specs[] = {"sim", "sim,graphs=0"};
  for (int s = 0; s < 2; ++s) {
    counting_t c;
    kgrt_allocator_t a = counting_allocator(&c);
    kgrt_error_t err;
    kgrt_device_t *dev = NULL;
    kgrt_model_t *model = NULL;
    CHECK_EQ(kgrt_device_open(specs[s], &a, &dev, &err), KGRT_STATUS_OK);
    CHECK_EQ(kgrt_model_load(dev, &m.table, &model, &err), KGRT_STATUS_OK);
    if (model == NULL) {
      kgrt_device_close(dev);
      continue;
    }
    CHECK_EQ(kgrt_model_replay(model), s == 0);
    CHECK_EQ(kgrt_model_set_weight(model, "w", w, sizeof w, &err), KGRT_STATUS_OK);
    const int rows[] = {3, 3, 5, 3, 5, 5, 8};
    for (int i = 0; i < 7; ++i)
      CHECK_EQ(run_and_check(model, i % 2 ? x2 : x, w, rows[i]), 0);
    if (s == 0) {
      CHECK_EQ(kgrt_model_set_replay(model, 0, &err), KGRT_STATUS_OK);
      CHECK_EQ(kgrt_model_replay(model), 0);
      CHECK_EQ(run_and_check(model, x, w, 4), 0);
      CHECK_EQ(kgrt_model_set_replay(model, 1, &err), KGRT_STATUS_OK);
      CHECK_EQ(run_and_check(model, x2, w, 4), 0);
    } else {
      CHECK_EQ(kgrt_model_set_replay(model, 1, &err), KGRT_STATUS_UNAVAILABLE);
      CHECK(contains(err.message, "graphs=0"));
    }
    kgrt_model_unload(model);
    kgrt_device_close(dev);
    CHECK_EQ(c.live, 0);
  }
}

/* A one-step plan y = x * w (y an output of x's shape): linked back into x,
 * n steps give x * w^n; each step's y collected, read back at the end. */
static void test_loop(void) {
  test_model_t m;
  test_model_init(&m);
  static const kgrt_tensor_info_t y_out[] = {
      {"y", KGRT_DTYPE_F32, 2, {{0, 0}, {COLS, -1}}, 0, 0, 0},
      {"out", KGRT_DTYPE_F32, 1, {{0, 0}}, 0, 0, 0}};
  m.table.outputs = y_out;
  m.table.num_outputs = 2;
  m.step0_args[2] = buffer_arg(KGRT_SPACE_OUTPUT, expr(4 * COLS, 0));
  m.gfx1100.num_steps = 1;
  rehash(&m.gfx1100);
  enum { N = 5, R = 3 };
  float x[T_MAX * COLS], w[COLS], ys[N][R * COLS];
  fill_data(x, w, R);
  const char *specs[] = {"sim", "sim,graphs=0"};
  for (int s = 0; s < 2; ++s) {
    counting_t c;
    kgrt_allocator_t a = counting_allocator(&c);
    kgrt_error_t err;
    kgrt_device_t *dev = NULL;
    kgrt_model_t *model = NULL;
    CHECK_EQ(kgrt_device_open(specs[s], &a, &dev, &err), KGRT_STATUS_OK);
    CHECK_EQ(kgrt_model_load(dev, &m.table, &model, &err), KGRT_STATUS_OK);
    if (model == NULL) {
      kgrt_device_close(dev);
      continue;
    }
    CHECK_EQ(kgrt_model_set_dim(model, "T", R, &err), KGRT_STATUS_OK);
    CHECK_EQ(kgrt_model_set_weight(model, "w", w, sizeof w, &err), KGRT_STATUS_OK);
    CHECK_EQ(kgrt_model_set_input(model, "x", x, sizeof(float) * R * COLS, &err),
             KGRT_STATUS_OK);
    /* links and steps are checked */
    CHECK_EQ(kgrt_model_link(model, "out", "x", &err), KGRT_STATUS_INVALID_ARGUMENT);
    CHECK_EQ(kgrt_model_link(model, "z", "x", &err), KGRT_STATUS_NOT_FOUND);
    CHECK_EQ(kgrt_model_link(model, "y", "w", &err), KGRT_STATUS_NOT_FOUND);
    CHECK_EQ(kgrt_model_step_dim(model, "U", 1, &err), KGRT_STATUS_NOT_FOUND);
    CHECK_EQ(kgrt_model_step_dim(model, "T", 9, &err), KGRT_STATUS_OUT_OF_RANGE);
    CHECK_EQ(kgrt_model_run_steps(model, 0, NULL, NULL, 0, &err),
             KGRT_STATUS_INVALID_ARGUMENT);
    CHECK_EQ(kgrt_model_link(model, "y", "x", &err), KGRT_STATUS_OK);
    CHECK_EQ(kgrt_model_run_steps(model, N, "y", ys, sizeof ys - 4, &err),
             KGRT_STATUS_OUT_OF_RANGE);
    CHECK_EQ(kgrt_model_run_steps(model, N, "nope", ys, sizeof ys, &err),
             KGRT_STATUS_NOT_FOUND);
    /* T would pass its max of 8 */
    CHECK_EQ(kgrt_model_step_dim(model, "T", 2, &err), KGRT_STATUS_OK);
    CHECK_EQ(kgrt_model_run_steps(model, 4, NULL, NULL, 0, &err),
             KGRT_STATUS_OUT_OF_RANGE);
    CHECK(contains(err.message, "would reach 9"));
    /* a collected output must keep its size */
    CHECK_EQ(kgrt_model_run_steps(model, 2, "y", ys, 2 * sizeof ys[0], &err),
             KGRT_STATUS_INVALID_ARGUMENT);
    CHECK_EQ(kgrt_model_step_dim(model, "T", 0, &err), KGRT_STATUS_OK);

    memset(ys, 0, sizeof ys);
    CHECK_EQ(kgrt_model_run_steps(model, 2, "y", ys, 2 * sizeof ys[0], &err),
             KGRT_STATUS_OK);
    /* goes on where it stopped: steps 3 .. 5 */
    CHECK_EQ(kgrt_model_run_steps(model, N - 2, "y", ys[2], (N - 2) * sizeof ys[0], &err),
             KGRT_STATUS_OK);
    int bad = 0;
    for (int n = 0; n < N; ++n)
      for (int i = 0; i < R * COLS; ++i) {
        double want = x[i];
        for (int k = 0; k <= n; ++k)
          want *= w[i % COLS];
        bad += !close_enough(ys[n][i], want);
      }
    CHECK_EQ(bad, 0);
    /* the last step's outputs stay readable */
    float last[R * COLS];
    CHECK_EQ(kgrt_model_get_output(model, "y", last, sizeof last, &err), KGRT_STATUS_OK);
    CHECK(memcmp(last, ys[N - 1], sizeof last) == 0);
    /* binding an input stops the continuation: the next call starts from it */
    CHECK_EQ(kgrt_model_set_input(model, "x", x, sizeof(float) * R * COLS, &err),
             KGRT_STATUS_OK);
    CHECK_EQ(kgrt_model_run_steps(model, 1, "y", ys, sizeof ys[0], &err), KGRT_STATUS_OK);
    CHECK(close_enough(ys[0][1], (double)x[1] * w[1]));
    kgrt_model_clear_links(model);
    CHECK_EQ(kgrt_model_run_steps(model, 2, "y", ys, 2 * sizeof ys[0], &err),
             KGRT_STATUS_OK);
    CHECK(close_enough(ys[1][1], (double)x[1] * w[1])); /* no link: x stays */
    kgrt_model_unload(model);
    kgrt_device_close(dev);
    CHECK_EQ(c.live, 0);
  }
}

/* Per step: launched, workgroups, device time, bytes of its buffers. */
static void test_profile(void) {
  test_model_t m;
  test_model_init(&m);
  float x[T_MAX * COLS], w[COLS];
  fill_data(x, w, 4);
  kgrt_error_t err;
  kgrt_device_t *dev = NULL;
  kgrt_model_t *model = NULL;
  CHECK_EQ(kgrt_device_open("sim", NULL, &dev, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_load(dev, &m.table, &model, &err), KGRT_STATUS_OK);
  if (model == NULL) {
    kgrt_device_close(dev);
    return;
  }
  kgrt_step_profile_t p[3];
  uint32_t n = 0;
  CHECK_EQ(kgrt_model_set_dim(model, "T", 4, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_set_weight(model, "w", w, sizeof w, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_profile(model, 3, p, 3, &n, &err), KGRT_STATUS_FAILED_PRECONDITION);
  CHECK_EQ(kgrt_model_set_input(model, "x", x, sizeof(float) * 4 * COLS, &err),
           KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_profile(model, 3, p, 1, &n, &err), KGRT_STATUS_OUT_OF_RANGE);
  CHECK_EQ(n, 2);
  CHECK_EQ(kgrt_model_profile(model, 3, p, 3, &n, &err), KGRT_STATUS_OK);
  CHECK_EQ(n, 2);
  CHECK_STR(p[0].kernel, "k_scale");
  CHECK_STR(p[1].kernel, "k_rowsum");
  CHECK(p[0].launched && p[1].launched);
  CHECK_EQ(p[0].workgroups, 2); /* 128 elements, 64 per workgroup */
  CHECK_EQ(p[1].workgroups, 2); /* 4 rows, 2 per workgroup */
  CHECK_EQ(p[0].bytes, 4 * COLS * 4 + 4 * COLS + 4 * COLS * 4);
  CHECK_EQ(p[1].bytes, 4 * COLS * 4 + 4 * 4);
  CHECK(p[0].us > 0 && p[1].us > 0);
  float out[4];
  CHECK_EQ(kgrt_model_get_output(model, "out", out, sizeof out, &err), KGRT_STATUS_OK);
  for (int r = 0; r < 4; ++r)
    CHECK(close_enough(out[r], row_ref(x, w, r)));
  m.steps[0].units = expr(0, 0); /* skipped: not launched, no time, no bytes */
  CHECK_EQ(kgrt_model_profile(model, 1, p, 3, &n, &err), KGRT_STATUS_OK);
  CHECK(!p[0].launched && p[0].us == 0 && p[0].bytes == 0);
  kgrt_model_unload(model);
  kgrt_device_close(dev);
}

/* ---- main ----------------------------------------------------------------- */

int main(int argc, char **argv) {
  test_status_names();
  test_hip_unavailable();
  test_bad_specs();
  test_sim_names();

  if (argc == 3) {
    unsigned char *hsaco = test_read_file(argv[1], &g_hsaco_size);
    unsigned char *sim = test_read_file(argv[2], &g_sim_size);
    g_hsaco = hsaco;
    g_sim = sim;
    CHECK(hsaco != NULL && sim != NULL);
    if (hsaco != NULL && sim != NULL) {
      test_no_matching_arch();
      test_code_object_errors();
      test_abi_errors();
      test_table_errors();
      test_rank_sym();
      test_count_sym();
      test_size_overflow();
      test_unknown_triple();
      test_sim_image_errors();
      test_message_bytes();
      test_hash_errors();
      test_dims_and_bindings();
      test_run_numbers();
      test_arena_zeroed();
      test_wrong_wave_size();
      test_out_of_bounds();
      test_allocation_failures();
      test_memory();
      test_state();
      test_replay();
      test_loop();
      test_profile();
    }
    free(hsaco);
    free(sim);
  } else {
    fprintf(stderr,
            "test_runtime: no GFX1100_HSACO SIM_SO given; skipping model tests\n");
  }
  return TEST_DONE();
}
