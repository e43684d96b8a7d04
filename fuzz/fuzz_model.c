/* fuzz_model.c - libFuzzer target for the model front end: the bytes are a
 * model's Lua source, run in the sandbox (gen/sandbox.c) with the DSL as its
 * globals, read back by gen/front.c, checked by gen/sizes.c, fused and
 * planned (gen/fuse.c, gen/plan.c). Every outcome must be a return with a
 * one-line message or a graph: no crash, leak, undefined behaviour or
 * abort (ASan and UBSan watch).
 *
 * The caps are small so that each input runs in milliseconds; the string
 * functions that can run long inside C (find, match, gmatch, gsub, rep) are
 * taken from the model's globals: the watchdog that stops them ends the
 * process, which libFuzzer would report as a crash. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <lauxlib.h>

#include "front.h"
#include "fuse.h"
#include "plan.h"
#include "sandbox.h"
#include "sizes.h"
#include "target.h"

/* a folder that does not exist: require finds no model-folder module */
#define MODEL_PATH "/nonexistent-kgen-fuzz/model.lua"

static int drop_slow_functions(lua_State *L) {
  lua_getglobal(L, "string");
  static const char *const names[] = {"find", "match", "gmatch", "gsub", "rep", NULL};
  for (const char *const *n = names; *n; n++) {
    lua_pushnil(L);
    lua_setfield(L, -2, *n);
  }
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  kg_sandbox_opts_t o;
  kg_sandbox_opts_default(&o);
  o.max_memory = (size_t)32 << 20;
  o.max_instructions = 2000000;
  o.max_seconds = 4; /* the instruction budget ends a loop long before */
  kg_diag_t d = {{0}};
  kg_sandbox_t *sb = NULL;
  if (kg_sandbox_new(&o, MODEL_PATH, &sb, &d))
    return 0;
  kg_sandbox_set_source(sb, (const char *)data, size);
  kg_target_t target;
  memset(&target, 0, sizeof target);
  int rc = kg_target_load(sb, "gfx1100", &target, &d);
  if (rc == 0) {
    lua_pushcfunction(kg_sandbox_lua(sb), drop_slow_functions);
    rc = kg_sandbox_pcall(sb, 0, 0, &d);
  }
  kg_graph_t g;
  memset(&g, 0, sizeof g);
  kg_program_t p;
  memset(&p, 0, sizeof p);
  if (rc == 0)
    rc = kg_front_load(sb, MODEL_PATH, &target, 1, &g, &d);
  if (rc == 0)
    rc = kg_sizes_graph(&g, MODEL_PATH, &d);
  if (rc == 0)
    rc = kg_fuse(&g, &p, &d);
  if (rc == 0)
    rc = kg_plan(&g, &p, &d);
  if (rc == 0)
    rc = kg_sizes_plan(&p, MODEL_PATH, &d);
  /* a failure is one line */
  if (rc != 0 && (d.msg[0] == '\0' || strchr(d.msg, '\n'))) {
    fprintf(stderr, "fuzz_model: a failure without a one-line message: [%s]\n", d.msg);
    __builtin_trap();
  }
  kg_program_free(&p);
  kg_graph_free(&g);
  kg_target_free(&target);
  kg_sandbox_free(sb);
  return 0;
}
