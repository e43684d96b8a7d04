/* test_cuda.c - the cuda side of kgrt: the cuda device spec (on a machine
 * without the NVIDIA driver or a GPU it must say why in one line, print
 * nothing and leak nothing; with one it must open and name its sm_ arch), the
 * cubin reader in kgrt_codeobj.c, and the cubin checks kgrt_model_load runs
 * before any driver sees the code, each failure its own status.
 *
 * The cubins are built here, byte by byte, in the layout ptxas writes (see
 * "cubin" in runtime/kgrt_codeobj.c): no CUDA is needed. The model checks run
 * on the sim device (spec "sim:sm_90"), which validates an nvptx arch's cubin
 * exactly as the cuda device would and then runs the arch's sim image.
 *
 * Usage: test_cuda [SIM_SO], SIM_SO the sim image of runtime_kernel.hip (see
 * test_runtime.c); without it the model checks are skipped. Passes with and
 * without a GPU. Needs the kgrt sources; links with -ldl -lpthread only. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kgrt.h"
#include "kgrt_codeobj.h"
#include "kgrt_comm.h"
#include "kgrt_hash.h"
#include "test.h"

/* ---- a counting allocator ------------------------------------------------- */

typedef struct counting {
  long live;
} counting_t;

static void *counting_alloc(void *user, size_t size) {
  void *p = malloc(size);
  if (p != NULL)
    ((counting_t *)user)->live++;
  return p;
}

static void counting_free(void *user, void *ptr) {
  ((counting_t *)user)->live--;
  free(ptr);
}

static int contains(const char *s, const char *part) {
  return strstr(s, part) != NULL;
}

/* ---- a cubin, built byte by byte ------------------------------------------ */

typedef struct bytes {
  unsigned char data[4096];
  size_t len;
} bytes_t;

static void put(bytes_t *b, const void *p, size_t n) {
  if (b->len + n <= sizeof b->data)
    memcpy(b->data + b->len, p, n);
  b->len += n;
}
static void put16(bytes_t *b, unsigned v) {
  unsigned char p[2] = {(unsigned char)v, (unsigned char)(v >> 8)};
  put(b, p, 2);
}
static void put32(bytes_t *b, unsigned long v) {
  put16(b, (unsigned)(v & 0xffff));
  put16(b, (unsigned)(v >> 16));
}
static void put64(bytes_t *b, unsigned long long v) {
  put32(b, (unsigned long)(v & 0xffffffffu));
  put32(b, (unsigned long)(v >> 32));
}
/* Appends `s` with its NUL; returns its offset. */
static unsigned put_str(bytes_t *b, const char *s) {
  unsigned at = (unsigned)b->len;
  put(b, s, strlen(s) + 1);
  return at;
}

/* One .nv.info attribute: {format, attribute, u16} and, for EIFMT_SVAL (4),
 * that many bytes of u32 words. */
static void attr_words(bytes_t *b, unsigned attr, const unsigned long *words, int n) {
  unsigned char head[2] = {4, (unsigned char)attr};
  put(b, head, 2);
  put16(b, (unsigned)(4 * n));
  for (int i = 0; i < n; i++)
    put32(b, words[i]);
}
static void attr_hval(bytes_t *b, unsigned attr, unsigned value) {
  unsigned char head[2] = {3, (unsigned char)attr};
  put(b, head, 2);
  put16(b, value);
}
/* EIATTR_KPARAM_INFO: {u32 index, u16 ordinal, u16 offset, u32 flags}. */
static void attr_param(bytes_t *b, unsigned ordinal, unsigned offset, unsigned size) {
  unsigned char head[2] = {4, 0x17};
  put(b, head, 2);
  put16(b, 12);
  put32(b, 0);
  put16(b, ordinal);
  put16(b, offset);
  put32(b, (unsigned long)size << 18 | 0x1f000u);
}

/* What a test may change in the cubin. */
typedef struct cubin_opts {
  unsigned abi_version;         /* 8: sm in e_flags bits 8-15; 7: bits 0-7 */
  unsigned sm;                  /* 90 */
  int accelerators;             /* the "a" flag (sm_90a) */
  unsigned machine;             /* 190 */
  const char *scale_symbol;     /* the FUNC symbol of k_scale's code */
  unsigned scale_param_bytes;   /* EIATTR_CBANK_PARAM_SIZE of k_scale */
  unsigned scale_param3_offset; /* where k_scale's 4th parameter lies */
  int rowsum_skip_param;        /* a KPARAM_INFO left out (-1: none) */
  int reserved_shared;          /* .nv.reservedSmem.offset0: shared starts with 1 KiB */
} cubin_opts_t;

static cubin_opts_t cubin_defaults(void) {
  cubin_opts_t o = {8, 90, 0, 190, "k_scale", 32, 24, -1, 1};
  return o;
}

enum {
  SEC_NULL,
  SEC_SHSTR,
  SEC_STR,
  SEC_SYM,
  SEC_INFO,
  SEC_INFO_SCALE,
  SEC_INFO_ROWSUM,
  SEC_TEXT_SCALE,
  SEC_TEXT_ROWSUM,
  SEC_SHARED_ROWSUM,
  SEC_COUNT
};

/* The kernels of runtime_kernel.hip, as ptxas would describe them:
 *   k_scale(x, w, y, n):   20 registers, no stack, no shared, 64 threads
 *   k_rowsum(y, out, rows): 30 registers, 16 bytes of frame and 48 with its
 *                           callees, a 1040-byte shared section (16 bytes
 *                           after sm_90's reserved 1 KiB), 64 threads */
static void cubin_build(const cubin_opts_t *o, bytes_t *out) {
  static const char *const names[SEC_COUNT] = {"",
                                               ".shstrtab",
                                               ".strtab",
                                               ".symtab",
                                               ".nv.info",
                                               ".nv.info.k_scale",
                                               ".nv.info.k_rowsum",
                                               ".text.k_scale",
                                               ".text.k_rowsum",
                                               ".nv.shared.k_rowsum"};
  static const unsigned types[SEC_COUNT] = {0,           3,           3, 2, 0x70000000u,
                                            0x70000000u, 0x70000000u, 1, 1, 8};
  bytes_t sec[SEC_COUNT];
  unsigned name_at[SEC_COUNT];
  memset(sec, 0, sizeof sec);
  for (int i = 0; i < SEC_COUNT; i++)
    name_at[i] = put_str(&sec[SEC_SHSTR], names[i]);

  /* symbols: null, k_scale, k_rowsum, a helper function and, as sm_90 cubins
   * have it, the undefined object that marks the reserved shared memory */
  put_str(&sec[SEC_STR], "");
  unsigned sym_names[4] = {put_str(&sec[SEC_STR], o->scale_symbol),
                           put_str(&sec[SEC_STR], "k_rowsum"),
                           put_str(&sec[SEC_STR], "$helper"),
                           put_str(&sec[SEC_STR], ".nv.reservedSmem.offset0")};
  static const unsigned sym_section[4] = {SEC_TEXT_SCALE, SEC_TEXT_ROWSUM,
                                          SEC_TEXT_ROWSUM, 0};
  static const unsigned sym_size[4] = {128, 256, 64, 4};
  /* FUNC GLOBAL, FUNC GLOBAL, FUNC WEAK, OBJECT WEAK */
  static const unsigned char sym_info[4] = {0x12, 0x12, 0x22, 0x21};
  bytes_t *st = &sec[SEC_SYM];
  put(st, (unsigned char[24]){0}, 24);
  for (int i = 0; i < (o->reserved_shared ? 4 : 3); i++) {
    put32(st, sym_names[i]);
    put(st, &sym_info[i], 1);
    put(st, (unsigned char[1]){0}, 1);
    put16(st, sym_section[i]);
    put64(st, 0);
    put64(st, sym_size[i]);
  }

  bytes_t *info = &sec[SEC_INFO];
  attr_words(info, 0x2f, (unsigned long[]){1, 20}, 2); /* EIATTR_REGCOUNT */
  attr_words(info, 0x11, (unsigned long[]){1, 0}, 2);  /* EIATTR_FRAME_SIZE */
  attr_words(info, 0x2f, (unsigned long[]){2, 30}, 2);
  attr_words(info, 0x11, (unsigned long[]){2, 16}, 2);
  attr_words(info, 0x12, (unsigned long[]){2, 48}, 2); /* EIATTR_MIN_STACK_SIZE */
  attr_words(info, 0x2f, (unsigned long[]){3, 99}, 2); /* the helper: ignored */

  bytes_t *scale = &sec[SEC_INFO_SCALE];
  attr_words(scale, 0x37, (unsigned long[]){0x82}, 1); /* one we do not read */
  attr_param(scale, 3, o->scale_param3_offset, 8);
  attr_param(scale, 2, 16, 8);
  attr_param(scale, 1, 8, 8);
  attr_param(scale, 0, 0, 8);
  attr_words(scale, 0x05, (unsigned long[]){64, 1, 1}, 3); /* EIATTR_MAX_THREADS */
  attr_hval(scale, 0x19, o->scale_param_bytes);            /* EIATTR_CBANK_PARAM_SIZE */

  bytes_t *rowsum = &sec[SEC_INFO_ROWSUM];
  for (int p = 2; p >= 0; p--)
    if (p != o->rowsum_skip_param)
      attr_param(rowsum, (unsigned)p, (unsigned)p * 8, 8);
  attr_words(rowsum, 0x05, (unsigned long[]){64, 1, 1}, 3);
  attr_hval(rowsum, 0x19, 24);

  put(&sec[SEC_TEXT_SCALE], (unsigned char[128]){0}, 128);
  put(&sec[SEC_TEXT_ROWSUM], (unsigned char[256]){0}, 256);

  /* layout: header, section contents (8-aligned), section headers */
  unsigned long long offset[SEC_COUNT];
  bytes_t body = {{0}, 0};
  for (int i = 1; i < SEC_COUNT; i++) {
    while ((64 + body.len) % 8)
      put(&body, (unsigned char[1]){0}, 1);
    offset[i] = 64 + body.len;
    put(&body, sec[i].data, sec[i].len);
  }
  unsigned long long shoff = 64 + body.len;
  unsigned flags = o->abi_version == 7 ? (o->sm | (o->accelerators ? 0x800u : 0))
                                       : (o->sm << 8 | (o->accelerators ? 0x8u : 0));
  out->len = 0;
  put(out, "\177ELF", 4);
  put(out, (unsigned char[]){2, 1, 1, 0x41, (unsigned char)o->abi_version}, 5);
  put(out, (unsigned char[7]){0}, 7);
  put16(out, 2);          /* ET_EXEC */
  put16(out, o->machine); /* EM_CUDA */
  put32(out, 1);
  put64(out, 0);     /* e_entry */
  put64(out, 0);     /* e_phoff */
  put64(out, shoff); /* e_shoff */
  put32(out, flags);
  put16(out, 64); /* e_ehsize */
  put16(out, 56);
  put16(out, 0);
  put16(out, 64);
  put16(out, SEC_COUNT);
  put16(out, SEC_SHSTR);
  put(out, body.data, body.len);
  for (int i = 0; i < SEC_COUNT; i++) {
    int nobits = types[i] == 8;
    put32(out, name_at[i]);
    put32(out, types[i]);
    put64(out, 0); /* sh_flags */
    put64(out, 0); /* sh_addr */
    put64(out, i ? offset[i] : 0);
    put64(out, nobits ? 1040 : sec[i].len);
    put32(out, i == SEC_SYM                                    ? SEC_STR
               : (i == SEC_INFO_SCALE || i == SEC_INFO_ROWSUM) ? SEC_SYM
                                                               : 0);
    put32(out, 0);
    put64(out, 4);
    put64(out, i == SEC_SYM ? 24 : 0);
  }
  if (out->len > sizeof out->data)
    fprintf(stderr, "cubin_build: %zu bytes do not fit\n", out->len);
}

/* ---- the cuda device spec ------------------------------------------------- */

static void test_open(void) {
  counting_t c = {0};
  kgrt_allocator_t a = {counting_alloc, counting_free, &c};
  kgrt_error_t err;
  kgrt_device_t *dev = (kgrt_device_t *)&c; /* must be NULL on failure */
  kgrt_status_t st = kgrt_device_open("cuda", &a, &dev, &err);
  if (st == KGRT_STATUS_OK) {
    fprintf(stderr, "note: cuda opened: %s\n", kgrt_device_name(dev));
    CHECK(strncmp(kgrt_device_name(dev), "cuda:0 (sm_", 11) == 0);
    kgrt_device_close(dev);
  } else {
    fprintf(stderr, "cuda: %s: %s\n", kgrt_status_name(st), err.message);
    CHECK_EQ(st, KGRT_STATUS_UNAVAILABLE);
    CHECK_EQ(err.status, st);
    CHECK(dev == NULL);
    CHECK(strncmp(err.message, "cuda: ", 6) == 0);
    CHECK(strchr(err.message, '\n') == NULL);
  }
  CHECK_EQ(c.live, 0);

  /* no machine has 999 GPUs */
  dev = (kgrt_device_t *)&c;
  CHECK_EQ(kgrt_device_open("cuda:999", &a, &dev, &err), KGRT_STATUS_UNAVAILABLE);
  CHECK(dev == NULL);
  CHECK(strncmp(err.message, "cuda: ", 6) == 0);
  CHECK_EQ(c.live, 0);

  const char *bad[] = {"cuda:x",           "cuda:",         "cuda:12345",
                       "cuda:0,fast",      "cuda,graphs=3", "cuda:0,early_launch=",
                       "cuda,symmetric=2", "cuda,ctas=65",  "cuda,x=1"};
  for (int i = 0; i < 9; i++) {
    dev = (kgrt_device_t *)&c;
    CHECK_EQ(kgrt_device_open(bad[i], &a, &dev, &err), KGRT_STATUS_INVALID_ARGUMENT);
    CHECK(dev == NULL);
  }
  CHECK(contains(err.message, "cuda: bad option 'x=1'"));
  CHECK(contains(err.message, "ctas=0..64"));
  /* the options a cuda device takes parse (then the GPU opens, or is absent) */
  dev = NULL;
  st = kgrt_device_open("cuda:0,early_launch=0,time_flush=0,graphs=0,symmetric=0,ctas=64",
                        &a, &dev, &err);
  CHECK(st == KGRT_STATUS_OK || st == KGRT_STATUS_UNAVAILABLE);
  kgrt_device_close(dev);
  CHECK_EQ(c.live, 0);
}

/* ---- the cubin reader ----------------------------------------------------- */

static int parse(const cubin_opts_t *o, kgrt_codeobj_t *co, char *why, size_t size) {
  bytes_t b;
  cubin_build(o, &b);
  return kgrt_codeobj_parse(b.data, b.len, NULL, co, why, size);
}

static void dump_write(void *user, const char *text, size_t len) {
  bytes_t *b = user;
  put(b, text, len);
}

static void test_reader(void) {
  cubin_opts_t o = cubin_defaults();
  kgrt_codeobj_t co;
  char why[256];
  CHECK_EQ(parse(&o, &co, why, sizeof why), 0);
  CHECK_EQ(co.machine, 190);
  CHECK_EQ(co.abi_version, 8);
  CHECK_STR(co.arch, "sm_90");
  CHECK_EQ(co.num_kernels, 2);
  const kgrt_codeobj_kernel_t *k = kgrt_codeobj_find(&co, "k_scale");
  CHECK(k != NULL);
  if (k != NULL) {
    CHECK(k->has_symbol);
    CHECK_EQ(k->code_bytes, 128);
    CHECK_EQ(k->vgprs, 20);
    CHECK_EQ(k->sgprs, 0);
    CHECK_EQ(k->lds_bytes, 0);
    CHECK_EQ(k->scratch_bytes, 0);
    CHECK_EQ(k->wave_size, 32);
    CHECK_EQ(k->max_block_size, 64);
    CHECK_EQ(k->kernarg_size, 32);
    CHECK_EQ(k->num_args, 4);
    for (uint32_t i = 0; i < k->num_args && i < 4; i++) {
      CHECK_EQ(k->args[i].offset, 8 * i);
      CHECK_EQ(k->args[i].size, 8);
    }
  }
  k = kgrt_codeobj_find(&co, "k_rowsum");
  CHECK(k != NULL);
  if (k != NULL) {
    CHECK_EQ(k->vgprs, 30);
    CHECK_EQ(k->scratch_bytes, 48); /* the stack with callees, not the frame */
    CHECK_EQ(k->lds_bytes, 16);     /* 1040 less the 1 KiB reserved */
    CHECK_EQ(k->num_args, 3);
    CHECK_EQ(k->kernarg_size, 24);
  }
  CHECK(kgrt_codeobj_find(&co, "$helper") == NULL);

  bytes_t text = {{0}, 0}, b;
  cubin_build(&o, &b);
  CHECK_EQ(kgrt_codeobj_dump_metadata(b.data, b.len, dump_write, &text, why, sizeof why),
           0);
  put(&text, "", 1);
  CHECK(contains((char *)text.data, "cuda.arch: sm_90\n"));
  CHECK(contains((char *)text.data, "  - .name: k_rowsum\n"));
  CHECK(contains((char *)text.data, "    .registers: 30\n"));
  CHECK(contains((char *)text.data, "    .shared_bytes: 16\n"));
  kgrt_codeobj_free(&co, NULL);

  /* without the marker (sm_80) the section is the kernel's own */
  o.reserved_shared = 0;
  CHECK_EQ(parse(&o, &co, why, sizeof why), 0);
  k = kgrt_codeobj_find(&co, "k_rowsum");
  CHECK(k != NULL && k->lds_bytes == 1040);
  kgrt_codeobj_free(&co, NULL);
  o = cubin_defaults();

  /* the two e_flags layouts and the "a" flag */
  o.abi_version = 7;
  o.sm = 80;
  CHECK_EQ(parse(&o, &co, why, sizeof why), 0);
  CHECK_STR(co.arch, "sm_80");
  kgrt_codeobj_free(&co, NULL);
  o = cubin_defaults();
  o.accelerators = 1;
  CHECK_EQ(parse(&o, &co, why, sizeof why), 0);
  CHECK_STR(co.arch, "sm_90a");
  kgrt_codeobj_free(&co, NULL);

  /* malformed: each its own one-line reason */
  o = cubin_defaults();
  o.abi_version = 6;
  CHECK_EQ(parse(&o, &co, why, sizeof why), -1);
  CHECK_STR(why, "CUDA ELF ABI version 6 is not 7 or 8");
  o = cubin_defaults();
  o.rowsum_skip_param = 1;
  CHECK_EQ(parse(&o, &co, why, sizeof why), -1);
  CHECK_STR(why, "kernel k_rowsum: parameter 1 has no EIATTR_KPARAM_INFO");
  o = cubin_defaults();
  o.scale_param3_offset = 16; /* fine for the reader: the table check catches it */
  CHECK_EQ(parse(&o, &co, why, sizeof why), 0);
  kgrt_codeobj_free(&co, NULL);

  /* every truncation fails cleanly */
  o = cubin_defaults();
  cubin_build(&o, &b);
  int clean = 1;
  for (size_t n = 0; n < b.len; n++)
    if (kgrt_codeobj_parse(b.data, n, NULL, &co, why, sizeof why) != -1 || !why[0])
      clean = 0;
  CHECK(clean);
}

/* ---- the model checks, on sim:sm_90 --------------------------------------- */

enum { COLS = 32, T_MAX = 8 };

static const kgrt_sym_t syms[] = {{"T", T_MAX, 0}};
static const kgrt_tensor_info_t inputs[] = {
    {"x", KGRT_DTYPE_F32, 2, {{0, 0}, {COLS, -1}}, 0, 0, 0}};
static const kgrt_tensor_info_t weights[] = {
    {"w", KGRT_DTYPE_F32, 1, {{COLS, -1}}, 0, 0, 0}};
static const kgrt_tensor_info_t outputs[] = {
    {"out", KGRT_DTYPE_F32, 1, {{0, 0}}, 0, 0, 0}};

static kgrt_expr_t expr(int64_t scale, int sym) {
  kgrt_expr_t e = {scale, {(int16_t)sym, -1, -1, -1}};
  return e;
}

typedef struct test_model {
  bytes_t cubin;
  kgrt_kernel_arg_t scale_args[4], rowsum_args[3];
  kgrt_kernel_t kernels[2];
  kgrt_step_arg_t step0_args[4], step1_args[3];
  kgrt_step_t steps[2];
  kgrt_arch_table_t sm_90;
  const kgrt_arch_table_t *arches[1];
  kgrt_model_table_t table;
} test_model_t;

static const unsigned char *g_sim;
static size_t g_sim_size;

/* The two-step plan of test_runtime.c (y = x * w into the arena, then row
 * sums) with an sm_90 arch: the cubin above and the sim image. */
static void test_model_init(test_model_t *m, const cubin_opts_t *o) {
  memset(m, 0, sizeof *m);
  cubin_build(o, &m->cubin);
  for (int i = 0; i < 4; i++)
    m->scale_args[i] = (kgrt_kernel_arg_t){i < 3 ? KGRT_ARG_BUFFER : KGRT_ARG_I64,
                                           (uint32_t)(8 * i), 8, NULL};
  for (int i = 0; i < 3; i++)
    m->rowsum_args[i] = (kgrt_kernel_arg_t){i < 2 ? KGRT_ARG_BUFFER : KGRT_ARG_I64,
                                            (uint32_t)(8 * i), 8, NULL};
  m->kernels[0] =
      (kgrt_kernel_t){"k_scale", 64, 32, 4, m->scale_args, 32, 0, 20, 0, 0, 0, 0};
  m->kernels[1] =
      (kgrt_kernel_t){"k_rowsum", 64, 24, 3, m->rowsum_args, 32, 16, 30, 0, 48, 0, 0};
  kgrt_expr_t zero = expr(0, -1);
  m->step0_args[0] =
      (kgrt_step_arg_t){KGRT_SPACE_INPUT, 0, 0, expr(4 * COLS, 0), zero, zero, NULL};
  m->step0_args[1] =
      (kgrt_step_arg_t){KGRT_SPACE_WEIGHT, 0, 0, expr(4 * COLS, -1), zero, zero, NULL};
  m->step0_args[2] =
      (kgrt_step_arg_t){KGRT_SPACE_ARENA, 0, 0, expr(4 * COLS, 0), zero, zero, NULL};
  m->step0_args[3] =
      (kgrt_step_arg_t){KGRT_SPACE_ARENA, 0, 0, zero, expr(COLS, 0), zero, NULL};
  m->steps[0] = (kgrt_step_t){.kernel = 0,
                              .units = expr(COLS, 0),
                              .per_block = 64,
                              .repeat = 1,
                              .args = m->step0_args};
  m->step1_args[0] =
      (kgrt_step_arg_t){KGRT_SPACE_ARENA, 0, 0, expr(4 * COLS, 0), zero, zero, NULL};
  m->step1_args[1] =
      (kgrt_step_arg_t){KGRT_SPACE_OUTPUT, 0, 0, expr(4, 0), zero, zero, NULL};
  m->step1_args[2] =
      (kgrt_step_arg_t){KGRT_SPACE_ARENA, 0, 0, zero, expr(1, 0), zero, NULL};
  m->steps[1] = (kgrt_step_t){.kernel = 1,
                              .units = expr(1, 0),
                              .per_block = 2,
                              .repeat = 1,
                              .args = m->step1_args};
  m->sm_90 = (kgrt_arch_table_t){
      .arch = "sm_90",
      .triple = "nvptx64-nvidia-cuda",
      .wave_size = 32,
      .image = m->cubin.data,
      .image_size = m->cubin.len,
      .image_hash = kgrt_hash64(m->cubin.data, m->cubin.len),
      .sim_image = g_sim,
      .sim_image_size = g_sim_size,
      .sim_image_hash = kgrt_hash64(g_sim, g_sim_size),
      .num_kernels = 2,
      .kernels = m->kernels,
      .num_steps = 2,
      .steps = m->steps,
      .arena_bytes = 4 * COLS * T_MAX,
      .arena_align = 256,
  };
  m->arches[0] = &m->sm_90;
  m->table = (kgrt_model_table_t){
      .abi = KGRT_TABLE_ABI,
      .name = "cubin",
      .kgen_version = "test",
      .num_syms = 1,
      .syms = syms,
      .num_inputs = 1,
      .inputs = inputs,
      .num_weights = 1,
      .weights = weights,
      .num_outputs = 1,
      .outputs = outputs,
      .num_arches = 1,
      .arches = m->arches,
  };
}

/* Loads on the sim device `spec`; on success also runs the plan and checks
 * the sums. */
static kgrt_status_t load_on(const test_model_t *m, const char *spec, kgrt_error_t *err) {
  counting_t c = {0};
  kgrt_allocator_t a = {counting_alloc, counting_free, &c};
  kgrt_device_t *dev = NULL;
  kgrt_model_t *model = NULL;
  kgrt_status_t st = kgrt_device_open(spec, &a, &dev, err);
  CHECK_EQ(st, KGRT_STATUS_OK);
  if (st != KGRT_STATUS_OK)
    return st;
  st = kgrt_model_load(dev, &m->table, &model, err);
  if (st == KGRT_STATUS_OK) {
    float x[T_MAX * COLS], w[COLS], out[T_MAX];
    for (int i = 0; i < T_MAX * COLS; i++)
      x[i] = 0.25f * (float)(i % 37) - 2.0f;
    for (int i = 0; i < COLS; i++)
      w[i] = 1.0f + (float)i / 16.0f;
    kgrt_error_t e;
    CHECK_EQ(kgrt_model_set_dim(model, "T", T_MAX, &e), KGRT_STATUS_OK);
    CHECK_EQ(kgrt_model_set_weight(model, "w", w, sizeof w, &e), KGRT_STATUS_OK);
    CHECK_EQ(kgrt_model_set_input(model, "x", x, sizeof x, &e), KGRT_STATUS_OK);
    CHECK_EQ(kgrt_model_run(model, &e), KGRT_STATUS_OK);
    CHECK_EQ(kgrt_model_get_output(model, "out", out, sizeof out, &e), KGRT_STATUS_OK);
    for (int r = 0; r < T_MAX; r++) {
      double want = 0;
      for (int i = 0; i < COLS; i++)
        want += (double)x[r * COLS + i] * w[i];
      CHECK(fabs(out[r] - want) <= 1e-5 * (fabs(want) + 1));
    }
  } else {
    CHECK(model == NULL);
    CHECK(strchr(err->message, '\n') == NULL);
  }
  kgrt_model_unload(model);
  kgrt_device_close(dev);
  CHECK_EQ(c.live, 0);
  return st;
}

/* On sim:sm_90. */
static kgrt_status_t load(const test_model_t *m, kgrt_error_t *err) {
  return load_on(m, "sim:sm_90", err);
}

static void test_model_checks(void) {
  test_model_t m;
  kgrt_error_t err;
  cubin_opts_t o = cubin_defaults();

  test_model_init(&m, &o);
  CHECK_EQ(load(&m, &err), KGRT_STATUS_OK);

  test_model_init(&m, &o);
  m.cubin.data[4] = 1; /* EI_CLASS: ELFCLASS32 */
  m.sm_90.image_hash = kgrt_hash64(m.sm_90.image, m.sm_90.image_size);
  CHECK_EQ(load(&m, &err), KGRT_STATUS_INVALID_CODE_OBJECT);
  CHECK(contains(err.message, "ELF class is not 64-bit"));

  test_model_init(&m, &o);
  m.sm_90.image_size = 100;
  m.sm_90.image_hash = kgrt_hash64(m.sm_90.image, m.sm_90.image_size);
  CHECK_EQ(load(&m, &err), KGRT_STATUS_INVALID_CODE_OBJECT);
  CHECK(contains(err.message, "truncated"));

  test_model_init(&m, &o);
  m.cubin.data[18] = 62; /* e_machine: EM_X86_64 */
  m.sm_90.image_hash = kgrt_hash64(m.sm_90.image, m.sm_90.image_size);
  CHECK_EQ(load(&m, &err), KGRT_STATUS_INVALID_CODE_OBJECT);
  CHECK(contains(err.message, "e_machine is 62"));

  cubin_opts_t amd = cubin_defaults();
  amd.machine = 224; /* an AMDGPU ELF has a metadata note this one lacks */
  test_model_init(&m, &amd);
  CHECK_EQ(load(&m, &err), KGRT_STATUS_INVALID_CODE_OBJECT);

  cubin_opts_t sm80 = cubin_defaults();
  sm80.sm = 80;
  test_model_init(&m, &sm80);
  CHECK_EQ(load(&m, &err), KGRT_STATUS_INVALID_CODE_OBJECT);
  CHECK(contains(err.message, "cubin: sm_90 code object is built for sm_80"));

  /* an "sm_90a" table takes an sm_90 cubin (NVRTC 13 marks sm_90a cubins
   * so), but not an sm_80 one */
  test_model_init(&m, &o);
  m.sm_90.arch = "sm_90a";
  CHECK_EQ(load_on(&m, "sim:sm_90a", &err), KGRT_STATUS_OK);
  test_model_init(&m, &sm80);
  m.sm_90.arch = "sm_90a";
  CHECK_EQ(load_on(&m, "sim:sm_90a", &err), KGRT_STATUS_INVALID_CODE_OBJECT);
  CHECK(contains(err.message, "cubin: sm_90a code object is built for sm_80"));

  cubin_opts_t renamed = cubin_defaults();
  renamed.scale_symbol = "k_other"; /* .nv.info.k_scale but no k_scale function */
  test_model_init(&m, &renamed);
  CHECK_EQ(load(&m, &err), KGRT_STATUS_MISSING_KERNEL);
  CHECK(contains(err.message, "kernel k_scale is not in the code object (no function "
                              "symbol)"));

  test_model_init(&m, &o);
  m.kernels[1].name = "k_nothere";
  CHECK_EQ(load(&m, &err), KGRT_STATUS_MISSING_KERNEL);
  CHECK(contains(err.message, "k_nothere"));

  cubin_opts_t size = cubin_defaults();
  size.scale_param_bytes = 40;
  test_model_init(&m, &size);
  CHECK_EQ(load(&m, &err), KGRT_STATUS_ABI_MISMATCH);
  CHECK(contains(err.message, "kernarg segment is 32 bytes in the table, 40"));

  cubin_opts_t offset = cubin_defaults();
  offset.scale_param3_offset = 16;
  test_model_init(&m, &offset);
  CHECK_EQ(load(&m, &err), KGRT_STATUS_ABI_MISMATCH);
  CHECK(contains(err.message, "argument 3 is param at offset 24 size 8 in the table, "
                              "param at offset 16 size 8 in the code object"));
  fprintf(stderr, "layout: %s\n", err.message);

  test_model_init(&m, &o);
  m.kernels[0].block_size = 128; /* the cubin's __launch_bounds__ say 64 */
  m.steps[0].per_block = 128;
  CHECK_EQ(load(&m, &err), KGRT_STATUS_ABI_MISMATCH);
}

/* ---- NCCL windows: the ranks agree, or none holds one --------------------- */

static int g_fail_bytes; /* ncclMemAlloc fails for this size */
static int g_allocs, g_frees, g_regs, g_deregs;

static kgrt_nccl_result_t fake_mem_alloc(void **ptr, size_t size) {
  if ((int)size == g_fail_bytes)
    return 1;
  *ptr = malloc(size);
  __atomic_fetch_add(&g_allocs, 1, __ATOMIC_SEQ_CST);
  return *ptr != NULL ? 0 : 1;
}
static kgrt_nccl_result_t fake_mem_free(void *ptr) {
  free(ptr);
  __atomic_fetch_add(&g_frees, 1, __ATOMIC_SEQ_CST);
  return 0;
}
static kgrt_nccl_result_t fake_register(kgrt_nccl_comm_t comm, void *buff, size_t size,
                                        kgrt_nccl_window_t *win, int flags) {
  (void)comm;
  (void)size;
  if (flags != KGRT_NCCL_WIN_COLL_SYMMETRIC)
    return 2;
  *win = (kgrt_nccl_window_t)buff;
  __atomic_fetch_add(&g_regs, 1, __ATOMIC_SEQ_CST);
  return 0;
}
static kgrt_nccl_result_t fake_deregister(kgrt_nccl_comm_t comm, kgrt_nccl_window_t win) {
  (void)comm;
  (void)win;
  __atomic_fetch_add(&g_deregs, 1, __ATOMIC_SEQ_CST);
  return 0;
}
static const char *fake_error_string(kgrt_nccl_result_t r) {
  return r == 2 ? "bad flags" : "fake failure";
}

typedef struct window_rank {
  kgrt_comm_t *comm;
  uint32_t rank;
  size_t bytes;
  kgrt_comm_nccl_rank_t r;
  kgrt_status_t st;
  uint64_t addr;
} window_rank_t;

static void *window_thread(void *arg) {
  window_rank_t *w = arg;
  kgrt_error_t err;
  w->st =
      kgrt_comm_nccl_window(w->comm, w->rank, &w->r, w->bytes, "fake", &w->addr, &err);
  return NULL;
}

/* n ranks ask for bytes[r] each; every rank's status must be `want`; then
 * every rank leaves and nothing stays allocated or registered */
static void window_case(const kgrt_nccl_api_t *api, uint32_t n, const size_t *bytes,
                        kgrt_status_t want) {
  kgrt_comm_t *comm = NULL;
  kgrt_error_t err;
  CHECK_EQ(kgrt_comm_create(n, NULL, &comm, &err), KGRT_STATUS_OK);
  window_rank_t w[4];
  pthread_t t[4];
  g_allocs = g_frees = g_regs = g_deregs = 0;
  for (uint32_t r = 0; r < n; r++) {
    w[r] = (window_rank_t){comm, r, bytes[r], {api, NULL, NULL, NULL}, KGRT_STATUS_OK, 7};
    CHECK_EQ(pthread_create(&t[r], NULL, window_thread, &w[r]), 0);
  }
  for (uint32_t r = 0; r < n; r++)
    pthread_join(t[r], NULL);
  for (uint32_t r = 0; r < n; r++) {
    CHECK_EQ(w[r].st, want);
    CHECK_EQ(w[r].addr != 0, want == KGRT_STATUS_OK);
    CHECK_EQ(w[r].r.window_base != NULL, want == KGRT_STATUS_OK);
    CHECK((uint64_t)(uintptr_t)w[r].r.window_base == w[r].addr);
  }
  CHECK_EQ(g_regs, want == KGRT_STATUS_OK ? (int)n : 0);
  for (uint32_t r = 0; r < n; r++)
    kgrt_comm_nccl_leave(&w[r].r);
  CHECK_EQ(g_allocs, g_frees);
  CHECK_EQ(g_regs, g_deregs);
  kgrt_comm_destroy(comm);
}

static void test_nccl_window(void) {
  kgrt_nccl_api_t api = {0};
  api.ncclGetErrorString = fake_error_string;
  const size_t same[3] = {4096, 4096, 4096}, none[3] = {4096, 0, 4096},
               other[2] = {4096, 8192}, fails[3] = {4096, 4096, 12288};
  /* a library without windows (before NCCL 2.27): no rank waits for another */
  window_case(&api, 1, same, KGRT_STATUS_UNAVAILABLE);
  api.ncclMemAlloc = fake_mem_alloc;
  api.ncclMemFree = fake_mem_free;
  api.ncclCommWindowRegister = fake_register;
  api.ncclCommWindowDeregister = fake_deregister;
  window_case(&api, 3, same, KGRT_STATUS_OK);
  window_case(&api, 3, none, KGRT_STATUS_UNAVAILABLE);  /* one asks for none */
  window_case(&api, 2, other, KGRT_STATUS_UNAVAILABLE); /* sizes differ */
  g_fail_bytes = 12288;                                 /* one cannot allocate */
  const size_t all_fail[3] = {12288, 12288, 12288};
  window_case(&api, 3, all_fail, KGRT_STATUS_UNAVAILABLE);
  size_t mixed[3];
  memcpy(mixed, fails, sizeof mixed);
  mixed[0] = mixed[1] = 12288;
  window_case(&api, 3, mixed, KGRT_STATUS_UNAVAILABLE);
  g_fail_bytes = 0;
  window_case(&api, 3, fails, KGRT_STATUS_UNAVAILABLE); /* sizes differ again */
}

int main(int argc, char **argv) {
  test_open();
  test_reader();
  test_nccl_window();
  if (argc == 2) {
    unsigned char *sim = test_read_file(argv[1], &g_sim_size);
    g_sim = sim;
    CHECK(sim != NULL);
    if (sim != NULL)
      test_model_checks();
    free(sim);
  } else {
    fprintf(stderr, "test_cuda: no SIM_SO given; skipping the model checks\n");
  }
  return TEST_DONE();
}
