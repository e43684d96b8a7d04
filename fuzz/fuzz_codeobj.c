/* fuzz_codeobj.c - libFuzzer target for the code-object readers: kgrt's
 * parser, which every image a table embeds goes through at load
 * (runtime/kgrt_codeobj.c: the ELF reader kgrt_elf.c, the AMDGPU msgpack
 * metadata kgrt_msgpack.c, the cubin reader kgrt_cubin.c), and kgen's
 * metadata dumper (gen/codeobj_dump.c, --emit=meta), on any bytes. Beyond
 * the sanitizers it checks what callers rely on: a failure's message is one
 * line of printable ASCII; a success's kernels are each found by their name
 * and have at most KGRT_CODEOBJ_MAX_ARGS arguments.
 *
 * Then the same bytes go where a table's code object goes: as the gfx1100
 * code object of test_runtime.c's two-kernel table (runtime_kernel.h), with
 * the content hash the table holds recomputed for them, so that
 * kgrt_model_memory and kgrt_model_load check them against the table (ELF
 * machine and arch, every kernel's symbol, kernarg size, block and wave
 * size, each argument's place and kind) rather than stop at the hash. The
 * table's sim image (runtime_kernel.hip) comes from the file FZ_SIM names
 * (fuzz/CMakeLists.txt sets it); without it this stage is left out. A
 * failure there is a status with a one-line printable message; a load that
 * passes is unloaded (the sim image is never mutated: it is host code).
 * Seeds: code objects and cubins kgen builds, and the table's own code
 * object (fuzz/CMakeLists.txt). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kgrt.h"
#include "kgrt_codeobj.h"
#include "kgrt_hash.h"
#include "runtime_kernel.h"

static void printable(const char *s, size_t cap) {
  size_t n = strnlen(s, cap);
  if (n == cap)
    __builtin_trap(); /* not terminated */
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f)
      __builtin_trap();
}

static void count(void *user, const char *text, size_t len) {
  (void)text;
  *(size_t *)user += len;
}

/* ---- the table the bytes are loaded as ----------------------------------- */

enum { COLS = 32 };

static unsigned char *g_sim;
static size_t g_sim_size;
static kgrt_device_t *g_device;

static const kgrt_sym_t g_syms[] = {{"T", 8, 0}};
static const kgrt_tensor_info_t g_inputs[] = {
    {"x", KGRT_DTYPE_F32, 2, {{0, 0}, {COLS, -1}}, 0, 0, 0}};
static const kgrt_tensor_info_t g_weights[] = {
    {"w", KGRT_DTYPE_F32, 1, {{COLS, -1}}, 0, 0, 0}};
static const kgrt_tensor_info_t g_outputs[] = {
    {"out", KGRT_DTYPE_F32, 1, {{0, 0}}, 0, 0, 0}};

static kgrt_expr_t expr(int64_t scale, int sym) {
  kgrt_expr_t e = {scale, {(int16_t)sym, -1, -1, -1}};
  return e;
}

/* Loads `image` as the gfx1100 code object of the two-kernel table. */
static void load_as_table(const uint8_t *image, size_t size) {
  const kgrt_kernel_t kernels[2] = {
      {"k_scale", 64, RK_SCALE_KERNARG, 4, rk_scale_args, 32, 0, 0, 0, 0, 0, 0},
      {"k_rowsum", 64, RK_ROWSUM_KERNARG, 3, rk_rowsum_args, 32, 0, 0, 0, 0, 0, 0}};
  const kgrt_expr_t zero = expr(0, -1);
  const kgrt_step_arg_t args0[4] = {
      {KGRT_SPACE_INPUT, 0, 0, expr(4 * COLS, 0), zero, zero, NULL},
      {KGRT_SPACE_WEIGHT, 0, 0, expr(4 * COLS, -1), zero, zero, NULL},
      {KGRT_SPACE_ARENA, 0, 0, expr(4 * COLS, 0), zero, zero, NULL},
      {KGRT_SPACE_ARENA, 0, 0, zero, expr(COLS, 0), zero, NULL}};
  const kgrt_step_arg_t args1[3] = {
      {KGRT_SPACE_ARENA, 0, 0, expr(4 * COLS, 0), zero, zero, NULL},
      {KGRT_SPACE_OUTPUT, 0, 0, expr(4, 0), zero, zero, NULL},
      {KGRT_SPACE_ARENA, 0, 0, zero, expr(1, 0), zero, NULL}};
  const kgrt_step_t steps[2] = {
      {.kernel = 0, .units = expr(COLS, 0), .per_block = 64, .repeat = 1, .args = args0},
      {.kernel = 1, .units = expr(1, 0), .per_block = 2, .repeat = 1, .args = args1}};
  const kgrt_arch_table_t arch = {
      .arch = "gfx1100",
      .triple = "amdgcn-amd-amdhsa",
      .wave_size = 32,
      .image = image,
      .image_size = size,
      .image_hash = kgrt_hash64(image, size), /* the bytes as the table's own */
      .sim_image = g_sim,
      .sim_image_size = g_sim_size,
      .sim_image_hash = kgrt_hash64(g_sim, g_sim_size),
      .num_kernels = 2,
      .kernels = kernels,
      .num_steps = 2,
      .steps = steps,
      .arena_bytes = 4 * COLS * 8,
      .arena_align = 256,
  };
  const kgrt_arch_table_t *arches[1] = {&arch};
  const kgrt_model_table_t table = {
      .abi = KGRT_TABLE_ABI,
      .name = "codeobj",
      .kgen_version = "fuzz",
      .num_syms = 1,
      .syms = g_syms,
      .num_inputs = 1,
      .inputs = g_inputs,
      .num_weights = 1,
      .weights = g_weights,
      .num_outputs = 1,
      .outputs = g_outputs,
      .num_arches = 1,
      .arches = arches,
  };
  kgrt_error_t err;
  kgrt_memory_t mem;
  kgrt_status_t st = kgrt_model_memory(g_device, &table, &mem, &err);
  if (st != KGRT_STATUS_OK && (err.status != st || err.message[0] == '\0'))
    __builtin_trap();
  kgrt_model_t *model = (kgrt_model_t *)&err; /* must come back NULL on failure */
  st = kgrt_model_load(g_device, &table, &model, &err);
  if (st != KGRT_STATUS_OK) {
    if (model != NULL || err.status != st || err.message[0] == '\0')
      __builtin_trap();
    printable(err.message, sizeof err.message);
    return;
  }
  kgrt_model_unload(model);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  const char *path = getenv("FZ_SIM");
  FILE *f = path != NULL ? fopen(path, "rb") : NULL;
  if (f == NULL) {
    fprintf(stderr, "fuzz_codeobj: FZ_SIM not set or unreadable: the parser alone\n");
    return 0;
  }
  long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
  g_sim = n > 0 ? malloc((size_t)n) : NULL;
  if (g_sim == NULL || fseek(f, 0, SEEK_SET) != 0 ||
      fread(g_sim, 1, (size_t)n, f) != (size_t)n) {
    fprintf(stderr, "fuzz_codeobj: cannot read %s\n", path);
    exit(1);
  }
  fclose(f);
  g_sim_size = (size_t)n;
  kgrt_error_t err;
  if (kgrt_device_open("sim:gfx1100,workers=1,memory=16777216", NULL, &g_device, &err) !=
      KGRT_STATUS_OK) {
    fprintf(stderr, "fuzz_codeobj: %s\n", err.message);
    exit(1);
  }
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  kgrt_codeobj_t co;
  char err[256];
  err[0] = '\0';
  if (kgrt_codeobj_parse(data, size, NULL, &co, err, sizeof err) == 0) {
    for (uint32_t i = 0; i < co.num_kernels; i++) {
      const kgrt_codeobj_kernel_t *k = &co.kernels[i];
      if (k->num_args > KGRT_CODEOBJ_MAX_ARGS || kgrt_codeobj_find(&co, k->name) == NULL)
        __builtin_trap();
    }
    kgrt_codeobj_free(&co, NULL);
  } else {
    printable(err, sizeof err);
  }
  size_t bytes = 0;
  err[0] = '\0';
  if (kgrt_codeobj_dump_metadata(data, size, count, &bytes, err, sizeof err) != 0)
    printable(err, sizeof err);
  if (g_device != NULL && size > 0)
    load_as_table(data, size);
  return 0;
}
