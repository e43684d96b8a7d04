/* res.h - kgen's own files, embedded in the binary at build time so kgen runs
 * from anywhere: lua/ (the DSL and op descriptions), templates/ (kernel
 * skeletons and preludes), targets/ (one Lua data file per target) and
 * runtime/kgrt_sim_abi.h. Paths are relative to the source tree,
 * e.g. "lua/kgen.lua". The table is sorted by path. */
#ifndef KG_RES_H
#define KG_RES_H

#include <stddef.h>

typedef struct kg_res {
  const char *path;
  const char *data; /* NUL-terminated */
  size_t size;
} kg_res_t;

extern const kg_res_t kg_res_table[];
extern const size_t kg_res_count;

/* The embedded file at `path`, or NULL. */
const kg_res_t *kg_res_find(const char *path);

#endif /* KG_RES_H */
