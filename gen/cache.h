/* cache.h - kgen's cache of compiled artifacts (code objects, sim images),
 * addressed by content: the key is a 128-bit hash of everything that decides
 * the bytes (the source text, the compiler's identity and version, the
 * target, the flags). Entries live in $KGEN_CACHE_DIR (default
 * $XDG_CACHE_HOME/kgen, else ~/.cache/kgen), one file per key, written to a
 * temporary and renamed into place, and read back only when their header,
 * key, length and checksum hold: a corrupt entry is reported on stderr and
 * rebuilt. Needs buf.h and POSIX. */
#ifndef KG_CACHE_H
#define KG_CACHE_H

#include <stdint.h>

#include "buf.h"

typedef struct kg_cache {
  char *dir; /* NULL: no cache (--no-cache, or no folder could be made) */
  int verbose;
  /* kgen's own identity, a hash of its executable, in every key: the flags a
   * backend passes are kgen's code, so another kgen keys other entries */
  uint64_t self;
} kg_cache_t;

typedef struct kg_cache_key {
  uint64_t h[2];
} kg_cache_key_t;

/* Opens the cache folder (creating it); with `off` or when that fails, a
 * cache that finds and keeps nothing (said on stderr with verbose). */
void kg_cache_open(kg_cache_t *c, int off, int verbose);
void kg_cache_close(kg_cache_t *c);

/* Hashes kgen's identity and the parts, in order, into a key (each part's
 * length counts too). */
void kg_cache_key(const kg_cache_t *c, kg_cache_key_t *key, const char *const *parts,
                  const size_t *lens, int n);

/* 1 and the entry's bytes appended to `out` when the cache holds `key` whole;
 * 0 when it does not (a corrupt entry is said on stderr and removed). */
int kg_cache_get(const kg_cache_t *c, const kg_cache_key_t *key, kg_buf_t *out);
/* Stores `data` under `key`; a failure only costs the next build its reuse. */
void kg_cache_put(const kg_cache_t *c, const kg_cache_key_t *key, const void *data,
                  size_t len);

#endif /* KG_CACHE_H */
