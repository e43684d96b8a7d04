/* kgrt_hash.h - the content hash kgen writes beside every image it embeds in
 * a kernel table (kgrt_arch_table_t.image_hash, sim_image_hash) and kgrt
 * checks before it reads the image: FNV-1a, 64 bits. It catches a table whose
 * bytes were damaged or edited without the hash (a truncated array, a stray
 * write, a mismatched merge); it is not a signature: whoever can edit a table
 * can recompute it. Header-only, C99 and C++, shared by kgen and kgrt. */
#ifndef KGRT_HASH_H
#define KGRT_HASH_H

#include <stddef.h>
#include <stdint.h>

static inline uint64_t kgrt_hash64(const void *data, size_t size) {
  const unsigned char *p = (const unsigned char *)data;
  uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a 64: offset basis, prime */
  for (size_t i = 0; i < size; i++) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

#endif /* KGRT_HASH_H */
