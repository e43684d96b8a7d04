/* fake_res.c - a stand-in for kgen's generated table of embedded files, for
 * test_sandbox: a tiny "kgen" module and two op modules, one of which raises
 * errors the way kgen's lua/ library does and one that does not parse.
 * Gives kg_res_table and kg_res_count (sorted by path, as res.h requires). */
#include "res.h"

#define KGEN_LUA                                                                         \
  "-- fake lua/kgen.lua\n"                                                               \
  "fake_kgen_loads = (fake_kgen_loads or 0) + 1\n"                                       \
  "local kg = { name = 'fake kgen' }\n"                                                  \
  "function kg.fail(msg) error(msg, 0) end\n"                                            \
  "return kg\n"

#define BROKEN_LUA "-- fake lua/ops/broken.lua\nreturn {\n"

#define FOO_LUA                                                                          \
  "-- fake lua/ops/foo.lua\n"                                                            \
  "local kg = require 'kgen'\n"                                                          \
  "local foo = {}\n"                                                                     \
  "local function check_eps(eps)\n"                                                      \
  "  if eps <= 0 then error('foo: eps must be > 0') end\n"                               \
  "  return eps\n"                                                                       \
  "end\n"                                                                                \
  "function foo.check(eps) return check_eps(eps) end\n"                                  \
  "function foo.fail(msg) kg.fail(msg) end\n"                                            \
  "function foo.index(t) return t.missing.field end\n"                                   \
  "function foo.call(f, ...) return f(...) end\n"                                        \
  "function foo.in_context(file, line)\n"                                                \
  "  kg_context(file, line)\n"                                                           \
  "  kg.fail('foo: context')\n"                                                          \
  "end\n"                                                                                \
  "return foo\n"

const kg_res_t kg_res_table[] = {
    {"lua/kgen.lua", KGEN_LUA, sizeof KGEN_LUA - 1},
    {"lua/ops/broken.lua", BROKEN_LUA, sizeof BROKEN_LUA - 1},
    {"lua/ops/foo.lua", FOO_LUA, sizeof FOO_LUA - 1},
};
const size_t kg_res_count = sizeof kg_res_table / sizeof kg_res_table[0];
