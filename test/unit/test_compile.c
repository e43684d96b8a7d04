/* test_compile.c - the compile backends (gen/compile*.c) on a tiny
 * self-contained kernel: code objects from clang (gfx1100, gfx942) and comgr
 * (gfx90a, gfx1030), --compiler=auto's choice, LLVM IR and assembly, the host
 * shared object, one-line errors (comgr without the arch, no clang, a source
 * error) and byte-identical output across runs, and the child process the
 * in-process backends run in (kg_proc_call: its result, its error, its time
 * and memory caps). Backends that are not installed are skipped with a note.
 * Returns nonzero when a check fails. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compile.h"
#include "test.h"
#include "tmpfiles.h"

static const char kernel[] =
    "#define __global__ __attribute__((global))\n"
    "extern \"C\" __global__ void __attribute__((amdgpu_flat_work_group_size(1,256)))\n"
    "k(float *y, long n) {\n"
    "  unsigned i = __builtin_amdgcn_workitem_id_x();\n"
    "  if (i < n)\n"
    "    y[i] = 1.0f;\n"
    "}\n";

static const char broken[] = "extern \"C\" __attribute__((global)) void k(float *y) {\n"
                             "  y[0] = undeclared_thing;\n"
                             "}\n";

static kg_compile_opts_t opts_for(const char *arch, kg_compiler_t compiler) {
  kg_compile_opts_t o;
  memset(&o, 0, sizeof o);
  o.arch = arch;
  o.triple = "amdgcn-amd-amdhsa";
  o.code_object_version = 5;
  o.compiler = compiler;
  return o;
}

/* Compiles `src`; returns the rc, the output in *out, the used text in *used. */
static int compile(const kg_compile_opts_t *o, const char *src, kg_artifact_t what,
                   kg_buf_t *out, const char **used, kg_diag_t *diag) {
  kg_buf_init(out);
  diag->msg[0] = '\0';
  int rc = kg_compile_device(o, src, strlen(src), what, out, used, diag);
  if (rc != 0 && getenv("TEST_VERBOSE"))
    fprintf(stderr, "  (%s)\n", diag->msg);
  return rc;
}

/* An AMDGPU ELF: magic, 64-bit, e_machine EM_AMDGPU (224), ABI version. */
static int is_amdgpu_elf(const kg_buf_t *b, int abi_version) {
  return b->len > 64 && memcmp(b->data, "\177ELF", 4) == 0 && b->data[4] == 2 &&
         (unsigned char)b->data[18] == 224 && b->data[8] == abi_version;
}

static int contains(const kg_buf_t *b, const char *s) {
  return b->len > 0 && strstr(b->data, s) != NULL;
}

static int one_line(const char *s) {
  return s[0] && !strchr(s, '\n');
}

static void test_clang_code_object(const char *arch) {
  kg_compile_opts_t o = opts_for(arch, KG_COMPILER_CLANG);
  kg_buf_t out;
  kg_diag_t d;
  const char *used = NULL;
  CHECK(compile(&o, kernel, KG_ARTIFACT_CODE_OBJECT, &out, &used, &d) == 0);
  CHECK(is_amdgpu_elf(&out, 3)); /* ELFABIVERSION_AMDGPU_HSA_V5 */
  CHECK(used && strncmp(used, "clang ", 6) == 0);
  kg_buf_free(&out);

  o.code_object_version = 4;
  CHECK(compile(&o, kernel, KG_ARTIFACT_CODE_OBJECT, &out, &used, &d) == 0);
  CHECK(is_amdgpu_elf(&out, 2));
  kg_buf_free(&out);
}

static void test_clang_text(void) {
  kg_compile_opts_t o = opts_for("gfx1100", KG_COMPILER_CLANG);
  kg_buf_t out;
  kg_diag_t d;
  const char *used;
  CHECK(compile(&o, kernel, KG_ARTIFACT_LLVM, &out, &used, &d) == 0);
  CHECK(contains(&out, "amdgpu_kernel"));
  CHECK(!contains(&out, "/kgen-")); /* no temp path in the module */
  kg_buf_free(&out);

  o.arch = "gfx942";
  CHECK(compile(&o, kernel, KG_ARTIFACT_ASM, &out, &used, &d) == 0);
  CHECK(contains(&out, "s_endpgm"));
  kg_buf_free(&out);

  /* auto takes clang for LLVM IR text even where comgr lists the arch */
  o = opts_for("gfx90a", KG_COMPILER_AUTO);
  CHECK(compile(&o, kernel, KG_ARTIFACT_LLVM, &out, &used, &d) == 0);
  CHECK(used && strncmp(used, "clang", 5) == 0);
  CHECK(contains(&out, "amdgpu_kernel"));
  kg_buf_free(&out);
}

static void test_no_clang(void) {
  kg_compile_opts_t o = opts_for("gfx1100", KG_COMPILER_CLANG);
  o.clang_path = "/nonexistent/clang";
  kg_buf_t out;
  kg_diag_t d;
  const char *used = "unchanged";
  CHECK(compile(&o, kernel, KG_ARTIFACT_CODE_OBJECT, &out, &used, &d) != 0);
  CHECK(strcmp(d.msg,
               "kgen: error: no clang found for gfx1100 (tried /nonexistent/clang); "
               "install clang-19 and lld-19 or pass --clang=PATH") == 0);
  CHECK(used == NULL);
  CHECK(out.len == 0);
  kg_buf_free(&out);
}

static void test_clang_source_error(void) {
  kg_compile_opts_t o = opts_for("gfx1100", KG_COMPILER_CLANG);
  kg_buf_t out;
  kg_diag_t d;
  const char *used;
  CHECK(compile(&o, broken, KG_ARTIFACT_CODE_OBJECT, &out, &used, &d) != 0);
  CHECK(strncmp(d.msg, "kgen: error: clang: kernel.hip:2:", 33) == 0);
  CHECK(strstr(d.msg, "undeclared_thing") != NULL);
  CHECK(one_line(d.msg));
  kg_buf_free(&out);
}

static void test_clang_deterministic(void) {
  kg_compile_opts_t o = opts_for("gfx942", KG_COMPILER_CLANG);
  kg_buf_t a, b;
  kg_diag_t d;
  const char *used;
  CHECK(compile(&o, kernel, KG_ARTIFACT_CODE_OBJECT, &a, &used, &d) == 0);
  CHECK(compile(&o, kernel, KG_ARTIFACT_CODE_OBJECT, &b, &used, &d) == 0);
  CHECK(a.len > 0 && a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
  kg_buf_free(&a);
  kg_buf_free(&b);
}

static void test_comgr(void) {
  kg_compile_opts_t o = opts_for("gfx90a", KG_COMPILER_AUTO);
  kg_buf_t out, again;
  kg_diag_t d;
  const char *used = NULL;
  CHECK(compile(&o, kernel, KG_ARTIFACT_CODE_OBJECT, &out, &used, &d) == 0);
  CHECK(used && strncmp(used, "comgr", 5) == 0);
  CHECK(is_amdgpu_elf(&out, 3));
  o.compiler = KG_COMPILER_COMGR;
  CHECK(compile(&o, kernel, KG_ARTIFACT_CODE_OBJECT, &again, &used, &d) == 0);
  CHECK(out.len == again.len && memcmp(out.data, again.data, out.len) == 0);
  kg_buf_free(&out);
  kg_buf_free(&again);

  o.arch = "gfx1030";
  o.code_object_version = 4;
  CHECK(compile(&o, kernel, KG_ARTIFACT_CODE_OBJECT, &out, &used, &d) == 0);
  CHECK(is_amdgpu_elf(&out, 2));
  kg_buf_free(&out);

  CHECK(compile(&o, kernel, KG_ARTIFACT_ASM, &out, &used, &d) == 0);
  CHECK(contains(&out, "s_endpgm"));
  kg_buf_free(&out);

  CHECK(compile(&o, kernel, KG_ARTIFACT_LLVM, &out, &used, &d) != 0);
  CHECK(strstr(d.msg, "--compiler=clang") != NULL);
  kg_buf_free(&out);

  CHECK(compile(&o, broken, KG_ARTIFACT_CODE_OBJECT, &out, &used, &d) != 0);
  CHECK(strstr(d.msg, "COMPILE_SOURCE_TO_BC for gfx1030: kernel.hip:2:") != NULL);
  CHECK(strstr(d.msg, "undeclared_thing") != NULL);
  CHECK(one_line(d.msg));
  kg_buf_free(&out);

  o.arch = "gfx942";
  CHECK(compile(&o, kernel, KG_ARTIFACT_CODE_OBJECT, &out, &used, &d) != 0);
  CHECK(strncmp(d.msg, "kgen: error: comgr ", 19) == 0);
  CHECK(strstr(d.msg, "cannot compile for gfx942") != NULL);
  CHECK(strstr(d.msg, "--compiler=clang") != NULL);
  CHECK(one_line(d.msg));
  kg_buf_free(&out);

  /* auto falls back to clang where comgr lacks the arch */
  o.compiler = KG_COMPILER_AUTO;
  CHECK(compile(&o, kernel, KG_ARTIFACT_CODE_OBJECT, &out, &used, &d) == 0);
  CHECK(used && strncmp(used, "clang", 5) == 0);
  kg_buf_free(&out);
}

static void test_host(void) {
  static const char src[] = "extern \"C\" int f(int x) { return x + 1; }\n";
  kg_buf_t a, b;
  kg_diag_t d;
  kg_buf_init(&a);
  kg_buf_init(&b);
  CHECK(kg_compile_host(src, strlen(src), 0, &a, &d) == 0);
  CHECK(a.len > 64 && memcmp(a.data, "\177ELF", 4) == 0);
  CHECK(kg_compile_host(src, strlen(src), 0, &b, &d) == 0);
  CHECK(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
  kg_buf_free(&a);
  kg_buf_free(&b);

  static const char bad[] = "int f( { }\n";
  CHECK(kg_compile_host(bad, strlen(bad), 0, &a, &d) != 0);
  CHECK(strncmp(d.msg, "kgen: error: host c++: kernel.cpp:1:", 36) == 0);
  CHECK(one_line(d.msg));
  kg_buf_free(&a);
}

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TEST_ASAN 1
#endif
#endif
#ifdef __SANITIZE_ADDRESS__
#define TEST_ASAN 1
#endif

/* kg_proc_call's children: one that answers, one that fails, one that
 * spins, one that allocates past the memory cap. */
static int child_answers(void *arg, kg_buf_t *out, kg_diag_t *d) {
  (void)d;
  kg_buf_puts(out, (const char *)arg);
  return 0;
}
static int child_fails(void *arg, kg_buf_t *out, kg_diag_t *d) {
  (void)arg;
  kg_buf_puts(out, "never seen");
  return kg_error(d, "the child's own error");
}
static int child_spins(void *arg, kg_buf_t *out, kg_diag_t *d) {
  (void)out;
  (void)d;
  volatile unsigned long *n = arg;
  for (;;)
    ++*n;
  return 0;
}
#ifndef TEST_ASAN
static int child_allocates(void *arg, kg_buf_t *out, kg_diag_t *d) {
  (void)arg;
  (void)out;
  (void)d;
  const size_t size = 512u << 20;
  char *p = malloc(size);
  if (!p)
    abort(); /* as a compiler does when an allocation fails */
  memset(p, 1, size);
  free(p);
  return 0;
}
#endif

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void test_proc_call(void) {
  kg_buf_t out;
  kg_diag_t d;
  kg_buf_init(&out);
  d.msg[0] = '\0';
  CHECK(kg_proc_call("answer", child_answers, "bytes from the child", &out, &d) == 0);
  CHECK(out.len == 20 && memcmp(out.data, "bytes from the child", 20) == 0);
  CHECK(d.msg[0] == '\0');

  out.len = 0;
  CHECK(kg_proc_call("fail", child_fails, NULL, &out, &d) != 0);
  CHECK(strcmp(d.msg, "kgen: error: the child's own error") == 0);
  CHECK(out.len == 0);

  kg_proc_set_limits(1, 8ULL << 30);
  unsigned long spins = 0;
  const double t0 = now_seconds();
  CHECK(kg_proc_call("spinner 1.0", child_spins, &spins, &out, &d) != 0);
  CHECK(now_seconds() - t0 < 4.0);
  CHECK(strcmp(d.msg,
               "kgen: error: spinner 1.0 ran past the compile limit of 1 s (raise it "
               "with --max-compile-seconds)") == 0);
  CHECK(spins == 0); /* the child's memory is its own */

#ifndef TEST_ASAN /* ASan's allocator reports and exits instead of returning NULL */
  kg_proc_set_limits(30, 64ULL << 20);
  CHECK(kg_proc_call("allocator", child_allocates, NULL, &out, &d) != 0);
  CHECK(strstr(d.msg, "kgen: error: allocator stopped with signal 6") == d.msg);
  CHECK(strstr(d.msg,
               "compile memory limit of 64 MiB (raise it with --max-compile-memory)"));
  CHECK(one_line(d.msg));
  kg_proc_set_limits(30, 1ULL << 30); /* 512 MiB fits under 1 GiB more */
  CHECK(kg_proc_call("allocator", child_allocates, NULL, &out, &d) == 0);
#endif
  kg_proc_set_limits(600, 8ULL << 30);
  kg_buf_free(&out);
}

int main(void) {
  kg_compile_opts_t probe = opts_for("gfx1100", KG_COMPILER_CLANG);
  int have_clang = strcmp(kg_clang_describe(&probe), "clang (not found)") != 0;
  const char *comgr_version = NULL;
  int have_comgr = kg_comgr_supports("gfx90a", &comgr_version);

  test_no_clang();
  if (have_clang) {
    test_clang_source_error();
    test_clang_code_object("gfx1100");
    test_clang_code_object("gfx942");
    test_clang_text();
    test_clang_deterministic();
  } else {
    fprintf(stderr, "test_compile: skip clang tests: no clang found\n");
  }
  if (have_comgr && have_clang)
    test_comgr();
  else
    fprintf(stderr, "test_compile: skip comgr tests: comgr %s%s\n", comgr_version,
            have_clang ? "" : " (or no clang)");
  test_host();
  test_proc_call();

  return TEST_DONE();
}
