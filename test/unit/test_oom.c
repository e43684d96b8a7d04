/* test_oom.c - kgrt under host allocation failure: the whole life of a model
 * on the sim device (open, memory, load, weights from a GGUF and a
 * safetensors file, bind, dims, inputs, run, replay, outputs, profile, time,
 * the device loop, state, unload) runs again and again with the caller's
 * allocator failing its Nth allocation, N = 1, 2, ... until a run passes
 * with no failure. Every call that fails must say OUT_OF_MEMORY, and when
 * everything is closed the allocator holds nothing (ASan, in the
 * _sanitized build, checks the rest of the heap).
 *
 * Usage: test_oom GFX1100_HSACO SIM_SO (runtime_kernel.hip built as in
 * test_runtime.c). Prints the allocation points and the sweep's time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kgrt.h"
#include "kgrt_hash.h"
#include "kgrt_weights.h"
#include "runtime_kernel.h"
#include "test.h"

/* ---- an allocator that fails its fail_at-th call ------------------------- */

/* Atomic: with workers=2 the sim's worker threads allocate at once. */
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

/* ---- the model: y = x * w (an output), out = row sums of y ---------------- */

enum { COLS = 32, T_MAX = 8, ROWS = 3 };

/* S: a dim no size depends on, for the loop's dim steps */
static const kgrt_sym_t syms[] = {{"T", T_MAX, 0}, {"S", T_MAX, 0}};
static const kgrt_tensor_info_t inputs[] = {
    {"x", KGRT_DTYPE_F32, 2, {{0, 0}, {COLS, -1}}, 0, 0, 0}};
static const kgrt_tensor_info_t weights[] = {
    {"w", KGRT_DTYPE_F32, 1, {{COLS, -1}}, 0, 0, 0}};
static const kgrt_tensor_info_t outputs[] = {
    {"y", KGRT_DTYPE_F32, 2, {{0, 0}, {COLS, -1}}, 0, 0, 0},
    {"out", KGRT_DTYPE_F32, 1, {{0, 0}}, 0, 0, 0}};

static kgrt_expr_t expr(int64_t scale, int sym) {
  kgrt_expr_t e = {scale, {(int16_t)sym, -1, -1, -1}};
  return e;
}

typedef struct oom_model {
  kgrt_kernel_arg_t scale_args[4], rowsum_args[3];
  kgrt_kernel_t kernels[2];
  kgrt_step_arg_t step0_args[4], step1_args[3];
  kgrt_step_t steps[2];
  kgrt_arch_table_t arch;
  const kgrt_arch_table_t *arches[1];
  kgrt_model_table_t table;
} oom_model_t;

static void oom_model_init(oom_model_t *m, const unsigned char *hsaco, size_t hsaco_size,
                           const unsigned char *sim, size_t sim_size) {
  memset(m, 0, sizeof *m);
  memcpy(m->scale_args, rk_scale_args, sizeof rk_scale_args);
  memcpy(m->rowsum_args, rk_rowsum_args, sizeof rk_rowsum_args);
  m->kernels[0] = (kgrt_kernel_t){
      "k_scale", 64, RK_SCALE_KERNARG, 4, m->scale_args, 32, 0, 0, 0, 0, 0, 0};
  m->kernels[1] = (kgrt_kernel_t){
      "k_rowsum", 64, RK_ROWSUM_KERNARG, 3, m->rowsum_args, 32, 0, 0, 0, 0, 0, 0};
  const kgrt_expr_t zero = expr(0, -1);
  m->step0_args[0] =
      (kgrt_step_arg_t){KGRT_SPACE_INPUT, 0, 0, expr(4 * COLS, 0), zero, zero, NULL};
  m->step0_args[1] =
      (kgrt_step_arg_t){KGRT_SPACE_WEIGHT, 0, 0, expr(4 * COLS, -1), zero, zero, NULL};
  m->step0_args[2] =
      (kgrt_step_arg_t){KGRT_SPACE_OUTPUT, 0, 0, expr(4 * COLS, 0), zero, zero, NULL};
  m->step0_args[3] =
      (kgrt_step_arg_t){KGRT_SPACE_ARENA, 0, 0, zero, expr(COLS, 0), zero, NULL};
  m->steps[0] = (kgrt_step_t){.kernel = 0,
                              .units = expr(COLS, 0),
                              .per_block = 64,
                              .repeat = 1,
                              .args = m->step0_args};
  m->step1_args[0] =
      (kgrt_step_arg_t){KGRT_SPACE_OUTPUT, 0, 0, expr(4 * COLS, 0), zero, zero, NULL};
  m->step1_args[1] =
      (kgrt_step_arg_t){KGRT_SPACE_OUTPUT, 1, 0, expr(4, 0), zero, zero, NULL};
  m->step1_args[2] =
      (kgrt_step_arg_t){KGRT_SPACE_ARENA, 0, 0, zero, expr(1, 0), zero, NULL};
  m->steps[1] = (kgrt_step_t){.kernel = 1,
                              .units = expr(1, 0),
                              .per_block = 2,
                              .repeat = 1,
                              .args = m->step1_args};
  m->arch = (kgrt_arch_table_t){
      .arch = "gfx1100",
      .triple = "amdgcn-amd-amdhsa",
      .wave_size = 32,
      .image = hsaco,
      .image_size = hsaco_size,
      .image_hash = kgrt_hash64(hsaco, hsaco_size),
      .sim_image = sim,
      .sim_image_size = sim_size,
      .sim_image_hash = kgrt_hash64(sim, sim_size),
      .num_kernels = 2,
      .kernels = m->kernels,
      .num_steps = 2,
      .steps = m->steps,
      .arena_bytes = 256,
      .arena_align = 256,
      .arena_zero_bytes = 256,
  };
  m->arches[0] = &m->arch;
  m->table = (kgrt_model_table_t){
      .abi = KGRT_TABLE_ABI,
      .name = "oom",
      .kgen_version = "test",
      .num_syms = 2,
      .syms = syms,
      .num_inputs = 1,
      .inputs = inputs,
      .num_weights = 1,
      .weights = weights,
      .num_outputs = 2,
      .outputs = outputs,
      .num_arches = 1,
      .arches = m->arches,
  };
}

/* ---- the weight w as a GGUF v3 and as a safetensors file ------------------ */

static void put(unsigned char **p, const void *v, size_t n) {
  memcpy(*p, v, n);
  *p += n;
}

/* GGUF v3: no metadata, one f32 tensor "w" [32] at offset 0, alignment 32. */
static size_t make_gguf(unsigned char *buf, const float *w) {
  unsigned char *p = buf;
  const uint32_t version = 3, n_dims = 1, type = 0 /* F32 */;
  const uint64_t n_tensors = 1, n_kv = 0, name_len = 1, ne = COLS, offset = 0;
  put(&p, "GGUF", 4);
  put(&p, &version, 4);
  put(&p, &n_tensors, 8);
  put(&p, &n_kv, 8);
  put(&p, &name_len, 8);
  put(&p, "w", 1);
  put(&p, &n_dims, 4);
  put(&p, &ne, 8);
  put(&p, &type, 4);
  put(&p, &offset, 8);
  while ((p - buf) % 32)
    *p++ = 0;
  put(&p, w, COLS * sizeof *w);
  return (size_t)(p - buf);
}

static size_t make_safetensors(unsigned char *buf, const float *w) {
  char head[128];
  int n = snprintf(head, sizeof head,
                   "{\"w\":{\"dtype\":\"F32\",\"shape\":[%d],\"data_offsets\":[0,%d]}}",
                   COLS, (int)(COLS * sizeof *w));
  while (n % 8)
    head[n++] = ' ';
  const uint64_t len = (uint64_t)n;
  unsigned char *p = buf;
  put(&p, &len, 8);
  put(&p, head, (size_t)n);
  put(&p, w, COLS * sizeof *w);
  return (size_t)(p - buf);
}

static int write_file(const char *path, const unsigned char *data, size_t n) {
  FILE *f = fopen(path, "wb");
  if (f == NULL)
    return -1;
  size_t got = fwrite(data, 1, n, f);
  return fclose(f) == 0 && got == n ? 0 : -1;
}

/* ---- one life of the model ------------------------------------------------ */

typedef struct life {
  const oom_model_t *m;
  const char *spec;     /* the sim device's */
  const char *files[3]; /* a GGUF file, a safetensors file, an index of it */
  const float *x, *w;
  /* the first call that failed: its name, status and message */
  const char *failed;
  char what[64];
  kgrt_status_t status;
  char message[KGRT_ERROR_MESSAGE_MAX];
  int wrong; /* a run without failures gave the wrong numbers */
} life_t;

/* Records call `what` when it failed; returns 1 when it did. */
static int failed(life_t *l, const char *what, kgrt_status_t st, const kgrt_error_t *e) {
  if (st == KGRT_STATUS_OK)
    return 0;
  snprintf(l->what, sizeof l->what, "%s", what);
  l->failed = l->what;
  l->status = st;
  snprintf(l->message, sizeof l->message, "%s", e->message);
  return 1;
}

#define TRY(what, call)                                                                  \
  do {                                                                                   \
    if (failed(l, what, (call), &err))                                                   \
      goto out;                                                                          \
  } while (0)

static void live(life_t *l, const kgrt_allocator_t *a) {
  kgrt_error_t err;
  kgrt_device_t *dev = NULL;
  kgrt_model_t *model = NULL;
  kgrt_weights_t *wf = NULL;
  float y[ROWS * COLS], out[ROWS], outs[4][ROWS];
  l->failed = NULL;
  l->wrong = 0;
  TRY("device_open", kgrt_device_open(l->spec, a, &dev, &err));
  kgrt_memory_t mem;
  TRY("model_memory", kgrt_model_memory(dev, &l->m->table, &mem, &err));
  TRY("model_load", kgrt_model_load(dev, &l->m->table, &model, &err));
  static const char *const formats[3] = {"gguf", "safetensors", "safetensors index"};
  for (int f = 0; f < 3; ++f) {
    char what[64];
    snprintf(what, sizeof what, "weights_open (%s)", formats[f]);
    TRY(what, kgrt_weights_open(l->files[f], a, &wf, &err));
    snprintf(what, sizeof what, "bind_weights (%s)", formats[f]);
    TRY(what, kgrt_model_bind_weights(model, wf, KGRT_BIND_REFUSE_UNUSED, &err));
    kgrt_weights_close(wf);
    wf = NULL;
  }
  TRY("set_dim", kgrt_model_set_dim(model, "T", ROWS, &err));
  TRY("set_dim", kgrt_model_set_dim(model, "S", 1, &err));
  TRY("set_input", kgrt_model_set_input(model, "x", l->x, sizeof y, &err));
  for (int rep = 0; rep < 2; ++rep) /* the second replays the captured graph */
    TRY("run", kgrt_model_run(model, &err));
  TRY("get_output", kgrt_model_get_output(model, "y", y, sizeof y, &err));
  TRY("get_output", kgrt_model_get_output(model, "out", out, sizeof out, &err));
  for (int r = 0; r < ROWS; ++r) {
    double s = 0;
    for (int c = 0; c < COLS; ++c) {
      const double want = (double)l->x[r * COLS + c] * l->w[c];
      l->wrong |= y[r * COLS + c] != (float)want;
      s += want;
    }
    l->wrong |= out[r] < s - 1e-3 || out[r] > s + 1e-3;
  }
  kgrt_step_profile_t prof[2];
  uint32_t count;
  TRY("profile", kgrt_model_profile(model, 2, prof, 2, &count, &err));
  double us;
  TRY("time", kgrt_model_time(model, 1, 2, &us, &err));
  TRY("link", kgrt_model_link(model, "y", "x", &err));
  TRY("run_steps", kgrt_model_run_steps(model, 4, "out", outs, sizeof outs, &err));
  TRY("step_dim", kgrt_model_step_dim(model, "S", 1, &err));
  TRY("run_steps (dims step)", kgrt_model_run_steps(model, 2, NULL, NULL, 0, &err));
  kgrt_model_clear_links(model);
  TRY("set_replay", kgrt_model_set_replay(model, 0, &err));
  TRY("set_dim", kgrt_model_set_dim(model, "T", ROWS, &err));
  TRY("set_input", kgrt_model_set_input(model, "x", l->x, sizeof y, &err));
  TRY("run (no replay)", kgrt_model_run(model, &err));
  TRY("reset_state", kgrt_model_reset_state(model, &err));
out:
  kgrt_weights_close(wf);
  kgrt_model_unload(model);
  kgrt_device_close(dev);
}

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Runs l's life with allocation 1, 2, ... failing until one passes with no
 * failure; checks each. Returns the allocation points it failed. */
static long sweep(life_t *l) {
  long points = 0;
  for (long fail_at = 1; fail_at < 100000; ++fail_at) {
    counting_t c = {0, 0, fail_at};
    kgrt_allocator_t a = {counting_alloc, counting_free, &c};
    live(l, &a);
    CHECK_EQ(c.live, 0);
    if (c.calls < fail_at) { /* no allocation failed: the whole life passed */
      if (l->failed != NULL)
        fprintf(stderr, "%s: no failure injected, yet %s: %s: %s\n", l->spec, l->failed,
                kgrt_status_name(l->status), l->message);
      CHECK(l->failed == NULL);
      CHECK(!l->wrong);
      return points;
    }
    points++;
    if (l->failed == NULL) { /* kgrt went on without that allocation */
      CHECK(!l->wrong);
      continue;
    }
    if (l->status != KGRT_STATUS_OUT_OF_MEMORY || c.live != 0)
      fprintf(stderr, "%s: allocation %ld: %s: %s: %s (%ld live)\n", l->spec, fail_at,
              l->failed, kgrt_status_name(l->status), l->message, c.live);
    CHECK_EQ(l->status, KGRT_STATUS_OUT_OF_MEMORY);
  }
  CHECK(!"the sweep ended");
  return points;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: test_oom GFX1100_HSACO SIM_SO\n");
    return 2;
  }
  size_t hsaco_size, sim_size;
  unsigned char *hsaco = test_read_file(argv[1], &hsaco_size);
  unsigned char *sim = test_read_file(argv[2], &sim_size);
  if (hsaco == NULL || sim == NULL) {
    fprintf(stderr, "test_oom: cannot read %s or %s\n", argv[1], argv[2]);
    return 2;
  }
  oom_model_t m;
  oom_model_init(&m, hsaco, hsaco_size, sim, sim_size);
  float x[ROWS * COLS], w[COLS];
  for (int i = 0; i < ROWS * COLS; ++i)
    x[i] = 0.25f * (float)(i % 7) - 0.5f;
  for (int c = 0; c < COLS; ++c)
    w[c] = 1.0f + (float)c / 32.0f;

  char dir[] = "/tmp/kgrt_oom_XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  char paths[3][64];
  static const char *const names[3] = {"w.gguf", "w.safetensors",
                                       "model.safetensors.index.json"};
  for (int f = 0; f < 3; ++f)
    snprintf(paths[f], sizeof paths[f], "%s/%s", dir, names[f]);
  unsigned char buf[512];
  static const char index[] = "{\"weight_map\": {\"w\": \"w.safetensors\"}}";
  CHECK_EQ(write_file(paths[0], buf, make_gguf(buf, w)), 0);
  CHECK_EQ(write_file(paths[1], buf, make_safetensors(buf, w)), 0);
  CHECK_EQ(write_file(paths[2], (const unsigned char *)index, sizeof index - 1), 0);

  /* one worker: every allocation matters; two: the engine may go on without
   * the second worker when its allocation fails */
  static const char *const specs[2] = {"sim,workers=1", "sim,workers=2"};
  const double start = seconds();
  long points = 0;
  for (int s = 0; s < 2; ++s) {
    life_t l = {&m, specs[s], {paths[0], paths[1], paths[2]}, x, w, NULL, "", 0, "", 0};
    points += sweep(&l);
  }
  fprintf(stderr, "test_oom: %ld allocation points, each failed once, in %.2f s\n",
          points, seconds() - start);
  CHECK(points > 100);
  for (int f = 0; f < 3; ++f)
    unlink(paths[f]);
  rmdir(dir);
  free(hsaco);
  free(sim);
  return TEST_DONE();
}
