/* fuzz_json.c - libFuzzer target for kgen's JSON reader (gen/json.c, what a
 * model's json_file reads): arbitrary bytes, read in a protected call. Every
 * outcome must be a value or a message naming a line and column, with the
 * Lua stack as it was: no crash, leak, undefined behaviour or abort (ASan
 * and UBSan watch). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include "json.h"

static int read_text(lua_State *L) {
  size_t len;
  const char *text = lua_tolstring(L, 1, &len);
  char why[160];
  const int top = lua_gettop(L);
  if (kg_json_push(L, text, len, why, sizeof why) != 0) {
    if (lua_gettop(L) != top || strncmp(why, "line ", 5) != 0)
      abort(); /* a failed read leaves the stack as it was, and says where */
    return 0;
  }
  if (lua_gettop(L) != top + 1)
    abort();
  return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  lua_State *L = luaL_newstate();
  if (L == NULL)
    return 0;
  lua_pushcfunction(L, read_text);
  lua_pushlstring(L, (const char *)data, size);
  (void)lua_pcall(L, 1, 1, 0);
  lua_close(L);
  return 0;
}
