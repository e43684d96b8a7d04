/* caps.c - `kgen --list-limits`: every limit of caps.h and the files
 * that check them, printed from the constants themselves so that what README
 * quotes is what the code does. */
#include "caps.h"

#include <stdint.h>

#include "defines.h"
#include "front_internal.h"
#include "fuse.h"
#include "json.h"
#include "kgrt_table.h"
#include "sandbox.h"
#include "sandbox_internal.h"

static void line(FILE *f, const char *name, const char *value, const char *what) {
  fprintf(f, "%-22s %-14s %s\n", name, value, what);
}

static void line_num(FILE *f, const char *name, unsigned long long v, const char *unit,
                     const char *what) {
  char buf[64];
  snprintf(buf, sizeof buf, "%llu%s%s", v, *unit ? " " : "", unit);
  line(f, name, buf, what);
}

void kg_caps_print(FILE *f) {
  kg_sandbox_opts_t d;
  kg_sandbox_opts_default(&d);
  char buf[64];
  fprintf(f, "# kgen's limits (the defaults; options change those that name one)\n");
  /* the model's run */
  line_num(f, "model-file", KG_SB_SOURCE_MAX >> 20, "MiB",
           "a model file, and each module it requires");
  line_num(f, "memory", d.max_memory >> 20, "MiB",
           "--max-memory: kgen's resident memory while the model runs");
  line_num(f, "instructions", d.max_instructions, "",
           "--max-instructions: the model's Lua");
  snprintf(buf, sizeof buf, "%g s", d.max_seconds);
  line(f, "wall-clock", buf, "--max-seconds: the model's run");
  snprintf(buf, sizeof buf, "%g s", KG_SB_GRACE_SECONDS);
  line(f, "watchdog", buf, "past the wall clock, ends C code that never returns to Lua");
  /* what a model declares */
  line_num(f, "syms", KG_FRONT_MAX_SYMS, "", "a model's run-time sizes");
  line_num(f, "tensors", KG_FRONT_MAX_TENSORS, "", "a model's tensors");
  line_num(f, "ops", KG_FRONT_MAX_NODES, "", "a model's ops");
  line_num(f, "inputs", KG_FRONT_MAX_IO, "",
           "a model's inputs, and its weights, and its outputs");
  line_num(f, "ranks", KG_FRONT_MAX_RANKS, "", "tensor or pipeline parallel ranks");
  line_num(f, "name", KG_FRONT_MAX_NAME, "bytes", "a tensor's, sym's or op's name");
  line_num(f, "model-name", KG_FRONT_MAX_MODEL_NAME, "bytes",
           "the model's name in files and symbols (longer: cut and hashed)");
  line_num(f, "defines", KG_MAX_DEFINES, "", "--define names");
  line_num(f, "define-value", KG_DEFINE_VALUE_MAX, "bytes", "a --define's value");
  line_num(f, "json-file", KG_JSON_FILE_MAX >> 20, "MiB", "a file json_file() reads");
  line_num(f, "json-depth", KG_JSON_DEPTH, "", "objects and arrays nested in it");
  /* sizes: every tensor at every sym's max */
  line_num(f, "dim", KGRT_MAX_DIM, "",
           "a dim, and a sym's max (kernels index with 32 bits)");
  _Static_assert(KGRT_MAX_ELEMENTS == KGRT_MAX_BUFFER_BYTES, "one line for both");
  snprintf(buf, sizeof buf, "2^%d", 63 - __builtin_clzll(KGRT_MAX_ELEMENTS));
  line(f, "tensor", buf, "a tensor's elements and bytes, and the plan's arena");
  line_num(f, "size-syms", KGRT_EXPR_SYMS, "", "syms in the product of a size");
  line_num(f, "grid", UINT32_MAX, "", "threads of one launch");
  /* kernels */
  line_num(f, "kernels", KG_MAX_DISTINCT_KERNELS, "",
           "distinct kernels one target compiles");
  line_num(f, "chain-depth", KG_CHAIN_DEPTH, "",
           "elementwise ops nested in one kernel (longer chains are split)");
  line_num(f, "chain-tensors", KG_CHAIN_TENSORS, "",
           "tensors one chain reads (more: the chain is split)");
  /* the compilers kgen runs */
  line_num(f, "compile-seconds", KG_DEFAULT_COMPILE_SECONDS, "s",
           "--max-compile-seconds: wall clock and CPU of each compile");
  line_num(f, "compile-memory", KG_DEFAULT_COMPILE_MEMORY_MIB, "MiB",
           "--max-compile-memory: address space of each compile");
}
