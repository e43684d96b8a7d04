/* fuzz_codeobj.c - libFuzzer target for the code-object readers: kgrt's
 * parser, which every image a table embeds goes through at load
 * (runtime/kgrt_codeobj.c: the ELF reader kgrt_elf.c, the AMDGPU msgpack
 * metadata kgrt_msgpack.c, the cubin reader kgrt_cubin.c), and kgen's
 * metadata dumper (gen/codeobj_dump.c, --emit=meta), on any bytes. Beyond
 * the sanitizers it checks what callers rely on: a failure's message is one
 * line of printable ASCII; a success's kernels are each found by their name
 * and have at most KGRT_CODEOBJ_MAX_ARGS arguments. Seeds: code objects and cubins kgen
 * builds (fuzz/CMakeLists.txt). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kgrt_codeobj.h"

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
  return 0;
}
