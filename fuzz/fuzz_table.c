/* fuzz_table.c - libFuzzer target for what kgrt does with a kernel table:
 * the validation at kgrt_model_memory and kgrt_model_load, then dims,
 * bindings, runs and outputs on the sim device.
 *
 * The input edits a valid table, one field at a time. The valid table is
 * test/unit/test_runtime.c's two-kernel model (runtime_kernel.h). Its gfx1100 code object
 * and sim image (runtime_kernel.hip) are read from the files the environment names in
 * FZ_HSACO and FZ_SIM (fuzz/CMakeLists.txt sets them).
 *
 * Arrays keep the length their count says: counts are clamped to the
 * capacity behind them. A table compiled into a product cannot lie about
 * that; any other field can take any value.
 *
 * Input: records, each an opcode byte and its operands:
 *   op % 4 == 0, 1  an integer field: 2 bytes pick it among every integer
 *                   of the table, 1 byte picks how the value is made (a
 *                   signed byte, one of the boundary values, 4 or 8 raw
 *                   bytes), then the value's bytes;
 *   op % 4 == 2     a string (a name, arch, triple): 1 byte picks it, 1 byte
 *                   gives its length, then its bytes;
 *   op % 4 == 3     1 byte: 0 the images keep the hashes they had (kgrt
 *                   must refuse them), 1..127: that pointer set to NULL,
 *                   128..: a byte of the code object (4 bytes pick it, 1
 *                   gives its value): the hashes are recomputed after the
 *                   edits, so kgrt's checks of the code object against the
 *                   table run on it (the sim image is host code: never
 *                   edited).
 * The first 4 bytes of the input are the dims the run sets (255: the max).
 *
 * Beyond the sanitizers it checks what callers rely on: a failed call
 * returns its status in err too, with a one-line printable message, and
 * leaves *out_model NULL; a table kgrt_model_memory refuses is refused by
 * kgrt_model_load as well. The device has 16 MiB, so sizes the table
 * claims are refused, not allocated. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kgrt.h"
#include "kgrt_hash.h"
#include "runtime_kernel.h"

enum { CAP_SYMS = 4, CAP_T = 4, CAP_K = 4, CAP_S = 6, CAP_A = 6, NAME = 24, COLS = 32 };

typedef struct fz {
  char sym_names[CAP_SYMS][NAME];
  kgrt_sym_t syms[CAP_SYMS];
  char tensor_names[3][CAP_T][NAME];
  kgrt_tensor_info_t tensors[3][CAP_T];
  char kernel_names[CAP_K][NAME];
  kgrt_kernel_arg_t kernel_args[CAP_K][CAP_A];
  kgrt_kernel_t kernels[CAP_K];
  kgrt_step_arg_t step_args[CAP_S][CAP_A];
  kgrt_step_t steps[CAP_S];
  char arch_names[2][NAME], triples[2][NAME];
  kgrt_arch_table_t arch[2];
  const kgrt_arch_table_t *arches[2];
  char name[NAME];
  kgrt_model_table_t table;
} fz_t;

/* An integer field: its address, its size and, for a count, the capacity
 * behind it (0: none). */
typedef struct field {
  void *p;
  uint8_t size;
  uint32_t cap;
} field_t;

enum { MAX_FIELDS = 2048 };

static unsigned char *g_hsaco, *g_sim;
static unsigned char *g_image; /* the code object an input edits: g_hsaco's copy */
static size_t g_hsaco_size, g_sim_size;
static kgrt_device_t *g_device;
static fz_t g_fz;
static field_t g_fields[MAX_FIELDS];
static size_t g_num_fields;
static int g_trace; /* FZ_TRACE set: each edit said on stderr */

static unsigned char *read_all(const char *var, size_t *size) {
  const char *path = getenv(var);
  if (path == NULL) {
    fprintf(stderr, "fuzz_table: set %s to the file (fuzz/CMakeLists.txt)\n", var);
    exit(1);
  }
  FILE *f = fopen(path, "rb");
  if (f == NULL || fseek(f, 0, SEEK_END) != 0) {
    fprintf(stderr, "fuzz_table: cannot read %s\n", path);
    exit(1);
  }
  long n = ftell(f);
  unsigned char *p = malloc(n > 0 ? (size_t)n : 1);
  rewind(f);
  if (n <= 0 || p == NULL || fread(p, 1, (size_t)n, f) != (size_t)n) {
    fprintf(stderr, "fuzz_table: cannot read %s\n", path);
    exit(1);
  }
  fclose(f);
  *size = (size_t)n;
  return p;
}

static kgrt_expr_t expr(int64_t scale, int sym) {
  kgrt_expr_t e = {scale, {(int16_t)sym, -1, -1, -1}};
  return e;
}

static kgrt_step_arg_t buffer_arg(kgrt_space_t space, kgrt_expr_t bytes) {
  kgrt_step_arg_t a = {space, 0, 0, bytes, expr(0, -1), expr(0, -1), NULL};
  return a;
}

static kgrt_step_arg_t i64_arg(kgrt_expr_t value) {
  kgrt_step_arg_t a = {KGRT_SPACE_ARENA, 0, 0, expr(0, -1), value, expr(0, -1), NULL};
  return a;
}

static void rehash(kgrt_arch_table_t *a) {
  if (a->image != NULL)
    a->image_hash = kgrt_hash64(a->image, a->image_size);
  if (a->sim_image != NULL)
    a->sim_image_hash = kgrt_hash64(a->sim_image, a->sim_image_size);
}

static void tensor(kgrt_tensor_info_t *t, char *name, const char *text, uint32_t rank,
                   const kgrt_dim_t *dims) {
  strcpy(name, text);
  t->name = name;
  t->dtype = KGRT_DTYPE_F32;
  t->rank = rank;
  memcpy(t->dims, dims, rank * sizeof *dims);
}

/* test_runtime.c's model: y (arena) = x[T, 32] * w[32]; out[T] = row sums
 * of y. Arches gfx942 (no sim image) and gfx1100; spare entries zero. */
static void model_init(fz_t *m) {
  memset(m, 0, sizeof *m);
  strcpy(m->sym_names[0], "T");
  m->syms[0] = (kgrt_sym_t){m->sym_names[0], 8, 0};
  const kgrt_dim_t x_dims[] = {{0, 0}, {COLS, -1}}, w_dims[] = {{COLS, -1}},
                   out_dims[] = {{0, 0}};
  tensor(&m->tensors[0][0], m->tensor_names[0][0], "x", 2, x_dims);
  tensor(&m->tensors[1][0], m->tensor_names[1][0], "w", 1, w_dims);
  tensor(&m->tensors[2][0], m->tensor_names[2][0], "out", 1, out_dims);

  memcpy(m->kernel_args[0], rk_scale_args, sizeof rk_scale_args);
  memcpy(m->kernel_args[1], rk_rowsum_args, sizeof rk_rowsum_args);
  strcpy(m->kernel_names[0], "k_scale");
  strcpy(m->kernel_names[1], "k_rowsum");
  for (int k = 0; k < CAP_K; ++k)
    m->kernels[k] = (kgrt_kernel_t){.name = m->kernel_names[k],
                                    .block_size = 64,
                                    .args = m->kernel_args[k],
                                    .wave_size = 32};
  m->kernels[0].kernarg_size = RK_SCALE_KERNARG;
  m->kernels[0].num_args = 4;
  m->kernels[1].kernarg_size = RK_ROWSUM_KERNARG;
  m->kernels[1].num_args = 3;

  m->step_args[0][0] = buffer_arg(KGRT_SPACE_INPUT, expr(4 * COLS, 0));
  m->step_args[0][1] = buffer_arg(KGRT_SPACE_WEIGHT, expr(4 * COLS, -1));
  m->step_args[0][2] = buffer_arg(KGRT_SPACE_ARENA, expr(4 * COLS, 0));
  m->step_args[0][3] = i64_arg(expr(COLS, 0));
  m->step_args[1][0] = buffer_arg(KGRT_SPACE_ARENA, expr(4 * COLS, 0));
  m->step_args[1][1] = buffer_arg(KGRT_SPACE_OUTPUT, expr(4, 0));
  m->step_args[1][2] = i64_arg(expr(1, 0));
  for (int s = 0; s < CAP_S; ++s)
    m->steps[s] = (kgrt_step_t){.kernel = (uint32_t)(s % 2),
                                .units = expr(s % 2 ? 1 : COLS, 0),
                                .per_block = s % 2 ? 2 : 64,
                                .repeat = 1,
                                .select = expr(0, -1),
                                .args = m->step_args[s],
                                .rank = -1};

  for (int a = 0; a < 2; ++a) {
    strcpy(m->arch_names[a], a ? "gfx1100" : "gfx942");
    strcpy(m->triples[a], "amdgcn-amd-amdhsa");
    m->arch[a] = (kgrt_arch_table_t){
        .arch = m->arch_names[a],
        .triple = m->triples[a],
        .wave_size = a ? 32 : 64,
        .image = g_image,
        .image_size = g_hsaco_size,
        .sim_image = a ? g_sim : NULL,
        .sim_image_size = a ? g_sim_size : 0,
        .num_kernels = 2,
        .kernels = m->kernels,
        .num_steps = 2,
        .steps = m->steps,
        .arena_bytes = 4 * COLS * 8,
        .arena_align = 256,
    };
    m->arches[a] = &m->arch[a];
  }
  strcpy(m->name, "blocks");
  m->table = (kgrt_model_table_t){
      .abi = KGRT_TABLE_ABI,
      .name = m->name,
      .kgen_version = "fuzz",
      .num_syms = 1,
      .syms = m->syms,
      .num_inputs = 1,
      .inputs = m->tensors[0],
      .num_weights = 1,
      .weights = m->tensors[1],
      .num_outputs = 1,
      .outputs = m->tensors[2],
      .num_arches = 2,
      .arches = m->arches,
  };
}

#define FIELD(x) add_field(&(x), sizeof(x), 0)
#define COUNT(x, c) add_field(&(x), sizeof(x), (c))
static void add_field(void *p, size_t size, uint32_t cap) {
  if (g_num_fields < MAX_FIELDS)
    g_fields[g_num_fields++] = (field_t){p, (uint8_t)size, cap};
}

static void add_expr(kgrt_expr_t *e) {
  FIELD(e->scale);
  for (int i = 0; i < KGRT_EXPR_SYMS; ++i)
    FIELD(e->sym[i]);
}

/* Every integer of g_fz, in a fixed order. */
static void list_fields(fz_t *m) {
  kgrt_model_table_t *t = &m->table;
  FIELD(t->abi);
  COUNT(t->num_syms, CAP_SYMS);
  COUNT(t->num_inputs, CAP_T);
  COUNT(t->num_weights, CAP_T);
  COUNT(t->num_outputs, CAP_T);
  COUNT(t->num_arches, 2);
  FIELD(t->ranks);
  for (int i = 0; i < CAP_SYMS; ++i)
    FIELD(m->syms[i].max);
  for (int k = 0; k < 3; ++k)
    for (int i = 0; i < CAP_T; ++i) {
      kgrt_tensor_info_t *x = &m->tensors[k][i];
      FIELD(x->dtype);
      FIELD(x->rank);
      FIELD(x->flags);
      FIELD(x->split);
      FIELD(x->parts);
      for (int d = 0; d < KGRT_MAX_DIMS; ++d) {
        FIELD(x->dims[d].value);
        FIELD(x->dims[d].sym);
      }
    }
  for (int k = 0; k < CAP_K; ++k) {
    kgrt_kernel_t *x = &m->kernels[k];
    FIELD(x->block_size);
    FIELD(x->kernarg_size);
    COUNT(x->num_args, CAP_A);
    FIELD(x->wave_size);
    FIELD(x->lds_bytes);
    FIELD(x->vgprs);
    FIELD(x->sgprs);
    FIELD(x->scratch_bytes);
    FIELD(x->dyn_lds_bytes);
    FIELD(x->flags);
    for (int a = 0; a < CAP_A; ++a) {
      FIELD(m->kernel_args[k][a].kind);
      FIELD(m->kernel_args[k][a].offset);
      FIELD(m->kernel_args[k][a].size);
    }
  }
  for (int s = 0; s < CAP_S; ++s) {
    kgrt_step_t *x = &m->steps[s];
    FIELD(x->kernel);
    add_expr(&x->units);
    FIELD(x->per_block);
    FIELD(x->repeat);
    add_expr(&x->select);
    FIELD(x->select_min);
    FIELD(x->select_max);
    FIELD(x->collective);
    FIELD(x->dtype);
    FIELD(x->rank);
    for (int a = 0; a < CAP_A; ++a) {
      kgrt_step_arg_t *y = &m->step_args[s][a];
      FIELD(y->space);
      FIELD(y->index);
      FIELD(y->offset);
      add_expr(&y->bytes);
      add_expr(&y->value);
    }
  }
  for (int a = 0; a < 2; ++a) {
    kgrt_arch_table_t *x = &m->arch[a];
    FIELD(x->wave_size);
    COUNT(x->image_size, (uint32_t)g_hsaco_size);
    COUNT(x->sim_image_size, a ? (uint32_t)g_sim_size : 0);
    COUNT(x->num_kernels, CAP_K);
    COUNT(x->num_steps, CAP_S);
    FIELD(x->arena_bytes);
    FIELD(x->arena_align);
    FIELD(x->arena_zero_bytes);
  }
}

static const int64_t g_boundary[] = {0,
                                     1,
                                     -1,
                                     2,
                                     8,
                                     31,
                                     32,
                                     64,
                                     255,
                                     256,
                                     1023,
                                     1024,
                                     INT16_MAX,
                                     INT16_MIN,
                                     UINT16_MAX,
                                     INT32_MAX,
                                     INT32_MIN,
                                     UINT32_MAX,
                                     INT64_MAX,
                                     INT64_MIN,
                                     1ll << 31,
                                     1ll << 32,
                                     1ll << 47,
                                     1ll << 48,
                                     (1ll << 48) + 1,
                                     1ll << 62,
                                     (1ll << 62) + 1,
                                     (INT64_MAX >> 1) + 1};

static void set_field(const field_t *f, int64_t v) {
  if (f->cap > 0) /* a count: within what is behind it */
    v = (uint64_t)v > f->cap ? (int64_t)f->cap : v;
  switch (f->size) {
  case 1:
    *(int8_t *)f->p = (int8_t)v;
    break;
  case 2:
    *(int16_t *)f->p = (int16_t)v;
    break;
  case 4:
    *(int32_t *)f->p = (int32_t)v;
    break;
  default:
    *(int64_t *)f->p = v;
    break;
  }
}

/* Reads n bytes at *at into v (little endian); 0 when they run out. */
static int take(const uint8_t *d, size_t size, size_t *at, size_t n, uint64_t *v) {
  if (*at > size || size - *at < n)
    return 0;
  *v = 0;
  for (size_t i = 0; i < n; ++i)
    *v |= (uint64_t)d[*at + i] << (8 * i);
  *at += n;
  return 1;
}

/* The strings an edit may change. */
static char *string_at(fz_t *m, unsigned i) {
  static const unsigned n = 1 + CAP_SYMS + 3 * CAP_T + CAP_K + 4;
  i %= n;
  if (i == 0)
    return m->name;
  if ((i -= 1) < CAP_SYMS)
    return m->sym_names[i];
  if ((i -= CAP_SYMS) < 3 * CAP_T)
    return m->tensor_names[i / CAP_T][i % CAP_T];
  if ((i -= 3 * CAP_T) < CAP_K)
    return m->kernel_names[i];
  i -= CAP_K;
  return i < 2 ? m->arch_names[i] : m->triples[i - 2];
}

/* Pointer n (1-based) set to NULL. */
static void null_pointer(fz_t *m, unsigned n) {
  const void **p[] = {
      (const void **)&m->table.name,         (const void **)&m->table.syms,
      (const void **)&m->table.inputs,       (const void **)&m->table.weights,
      (const void **)&m->table.outputs,      (const void **)&m->table.arches,
      (const void **)&m->arches[0],          (const void **)&m->arches[1],
      (const void **)&m->arch[1].arch,       (const void **)&m->arch[1].triple,
      (const void **)&m->arch[1].image,      (const void **)&m->arch[1].sim_image,
      (const void **)&m->arch[1].kernels,    (const void **)&m->arch[1].steps,
      (const void **)&m->syms[0].name,       (const void **)&m->tensors[0][0].name,
      (const void **)&m->tensors[1][0].name, (const void **)&m->tensors[2][0].name,
      (const void **)&m->kernels[0].name,    (const void **)&m->kernels[1].args,
      (const void **)&m->steps[0].args,      (const void **)&m->steps[1].args,
  };
  *p[(n - 1) % (sizeof p / sizeof p[0])] = NULL;
}

/* Applies the input's edits; returns 0 when the images keep stale hashes. */
static int edit(fz_t *m, const uint8_t *d, size_t size, size_t at) {
  int rehash_images = 1;
  uint64_t op, v;
  while (take(d, size, &at, 1, &op)) {
    if (op % 4 < 2) {
      uint64_t which, how;
      if (!take(d, size, &at, 2, &which) || !take(d, size, &at, 1, &how))
        break;
      const field_t *f = &g_fields[which % g_num_fields];
      size_t nb = how % 4 == 0 ? 1 : how % 4 == 1 ? 1 : how % 4 == 2 ? 4 : 8;
      if (!take(d, size, &at, nb, &v))
        break;
      int64_t value = how % 4 == 0 ? (int8_t)v
                      : how % 4 == 1
                          ? g_boundary[v % (sizeof g_boundary / sizeof *g_boundary)]
                      : how % 4 == 2 ? (int32_t)v
                                     : (int64_t)v;
      set_field(f, value);
      if (g_trace)
        fprintf(stderr, "field %zu (offset %zu, %u bytes) = %lld\n",
                (size_t)(which % g_num_fields), (size_t)((char *)f->p - (char *)m),
                f->size, (long long)value);
    } else if (op % 4 == 2) {
      uint64_t which, len;
      if (!take(d, size, &at, 1, &which) || !take(d, size, &at, 1, &len))
        break;
      len %= NAME;
      if (size - at < len)
        break;
      char *s = string_at(m, (unsigned)which);
      memcpy(s, d + at, len);
      s[len] = '\0';
      at += len;
    } else {
      if (!take(d, size, &at, 1, &v))
        break;
      uint64_t at_byte, value;
      if (v == 0)
        rehash_images = 0;
      else if (v < 128)
        null_pointer(m, (unsigned)v);
      else if (take(d, size, &at, 4, &at_byte) && take(d, size, &at, 1, &value))
        g_image[at_byte % g_hsaco_size] = (unsigned char)value;
    }
  }
  return rehash_images;
}

static void check_failure(kgrt_status_t st, const kgrt_error_t *err) {
  if (st == KGRT_STATUS_OK || err->status != st)
    __builtin_trap();
  size_t n = strnlen(err->message, sizeof err->message);
  if (n == 0 || n == sizeof err->message)
    __builtin_trap();
  for (size_t i = 0; i < n; ++i)
    if ((unsigned char)err->message[i] < 0x20 || (unsigned char)err->message[i] >= 0x7f)
      __builtin_trap();
}

/* Copies bytes of its current size (up to 1 MiB; a larger one is left
 * alone, and a run must then refuse an unbound tensor) into every input and
 * weight the table lists (outputs 0), or out of every output (outputs 1). */
static void copy_all(kgrt_model_t *model, const kgrt_model_table_t *t, int outputs) {
  const kgrt_tensor_info_t *lists[] = {t->inputs, t->weights, t->outputs};
  const uint32_t counts[] = {t->num_inputs, t->num_weights, t->num_outputs};
  for (int k = outputs ? 2 : 0; k < (outputs ? 3 : 2); ++k)
    for (uint32_t i = 0; i < counts[k]; ++i) {
      const char *name = lists[k][i].name;
      kgrt_error_t err;
      size_t bytes;
      kgrt_status_t st = kgrt_model_tensor_bytes(model, name, &bytes, &err);
      if (st != KGRT_STATUS_OK) {
        check_failure(st, &err);
        continue;
      }
      if (bytes > (1u << 20))
        continue;
      float *host = malloc(bytes > 0 ? bytes : 1);
      for (size_t j = 0; j < bytes / sizeof *host; ++j)
        host[j] = (float)(j % 7) - 3.0f;
      st = k == 0   ? kgrt_model_set_input(model, name, host, bytes, &err)
           : k == 1 ? kgrt_model_set_weight(model, name, host, bytes, &err)
                    : kgrt_model_get_output(model, name, host, bytes, &err);
      if (st != KGRT_STATUS_OK)
        check_failure(st, &err);
      free(host);
    }
}

/* e at dims, or -1 past int64. */
static int64_t eval(const kgrt_expr_t *e, const kgrt_model_table_t *t,
                    const int64_t *dims) {
  int64_t v = e->scale;
  for (int i = 0; i < KGRT_EXPR_SYMS; ++i)
    if (e->sym[i] >= 0 &&
        (e->sym[i] >= (int)t->num_syms || __builtin_mul_overflow(v, dims[e->sym[i]], &v)))
      return -1;
  return v;
}

/* The threads a run launches at dims, capped at `cap`: the sim emulates
 * every one, and a valid table may ask for 2^32 of them. */
static uint64_t threads(const kgrt_model_table_t *t, const int64_t *dims, uint64_t cap) {
  const kgrt_arch_table_t *a = &g_fz.arch[1];
  uint64_t sum = 0;
  for (uint32_t s = 0; s < a->num_steps && sum < cap; ++s) {
    const kgrt_step_t *st = &a->steps[s];
    int64_t units = eval(&st->units, t, dims);
    if (st->collective != KGRT_COLLECTIVE_NONE || units == 0 || st->per_block == 0)
      continue;
    if (units < 0)
      return cap;
    uint64_t n = ((uint64_t)units + st->per_block - 1) / st->per_block;
    if (__builtin_mul_overflow(n, (uint64_t)st->repeat, &n) ||
        __builtin_mul_overflow(n, (uint64_t)a->kernels[st->kernel].block_size, &n))
      return cap;
    sum += n < cap ? n : cap;
  }
  return sum;
}

/* Sets each sym to the input's value for it (255: its max), then binds, runs
 * (when the sim can do it quickly) and reads; twice, the second time with
 * every dim at 1. */
static void run(kgrt_model_t *model, const kgrt_model_table_t *t, const uint8_t *in) {
  int64_t dims[CAP_SYMS] = {0};
  for (int pass = 0; pass < 2; ++pass) {
    kgrt_error_t err;
    for (uint32_t i = 0; i < t->num_syms; ++i) {
      int64_t v = pass ? 1 : in[i] == 255 ? t->syms[i].max : in[i];
      kgrt_status_t st = kgrt_model_set_dim(model, t->syms[i].name, v, &err);
      if (st != KGRT_STATUS_OK)
        check_failure(st, &err);
      else
        dims[i] = v;
    }
    copy_all(model, t, 0);
    if (threads(t, dims, 1u << 18) >= 1u << 18)
      continue;
    kgrt_status_t st = kgrt_model_run(model, &err);
    if (st != KGRT_STATUS_OK)
      check_failure(st, &err);
    if (g_trace)
      fprintf(stderr, "run: %s\n", st == KGRT_STATUS_OK ? "OK" : err.message);
    copy_all(model, t, 1);
  }
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  g_hsaco = read_all("FZ_HSACO", &g_hsaco_size);
  g_sim = read_all("FZ_SIM", &g_sim_size);
  g_image = malloc(g_hsaco_size);
  g_trace = getenv("FZ_TRACE") != NULL;
  kgrt_error_t err;
  if (kgrt_device_open("sim:gfx1100,workers=1,memory=16777216", NULL, &g_device, &err) !=
      KGRT_STATUS_OK) {
    fprintf(stderr, "fuzz_table: %s\n", err.message);
    exit(1);
  }
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint8_t dims[CAP_SYMS] = {4, 4, 4, 4};
  memcpy(dims, data, size < CAP_SYMS ? size : CAP_SYMS);
  fz_t *m = &g_fz;
  memcpy(g_image, g_hsaco, g_hsaco_size);
  model_init(m);
  g_num_fields = 0;
  list_fields(m);
  if (edit(m, data, size, CAP_SYMS)) {
    rehash(&m->arch[0]);
    rehash(&m->arch[1]);
  }

  kgrt_error_t err;
  kgrt_memory_t mem;
  kgrt_status_t mem_st = kgrt_model_memory(g_device, &m->table, &mem, &err);
  if (mem_st != KGRT_STATUS_OK)
    check_failure(mem_st, &err);
  kgrt_model_t *model = (kgrt_model_t *)&err; /* must come back NULL on failure */
  kgrt_status_t st = kgrt_model_load(g_device, &m->table, &model, &err);
  if (g_trace)
    fprintf(stderr, "load: %s\n", st == KGRT_STATUS_OK ? "OK" : err.message);
  if (st != KGRT_STATUS_OK) {
    check_failure(st, &err);
    if (model != NULL)
      __builtin_trap();
    return 0;
  }
  if (mem_st != KGRT_STATUS_OK)
    __builtin_trap(); /* load took what memory refused */
  run(model, &m->table, dims);
  kgrt_model_unload(model);
  return 0;
}
