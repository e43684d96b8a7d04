/* kgrt_alloc.c - the three allocation helpers every kgrt call goes through.
 * A NULL allocator (or one with no alloc hook) means malloc/calloc/free. */
#include "kgrt_alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void *kgrt_alloc(const kgrt_allocator_t *a, size_t size) {
  if (size == 0)
    size = 1; /* a valid pointer for empty arrays, as with the NULL allocator */
  if (a == NULL || a->alloc == NULL)
    return malloc(size);
  return a->alloc(a->user, size);
}

void *kgrt_calloc(const kgrt_allocator_t *a, size_t n, size_t size) {
  if (size != 0 && n > SIZE_MAX / size)
    return NULL; /* n * size overflows */
  if (a == NULL || a->alloc == NULL)
    return calloc(n ? n : 1, size ? size : 1);
  void *p = kgrt_alloc(a, n * size);
  if (p != NULL)
    memset(p, 0, n * size);
  return p;
}

void kgrt_free(const kgrt_allocator_t *a, void *ptr) {
  if (ptr == NULL)
    return;
  if (a == NULL || a->alloc == NULL)
    free(ptr);
  else if (a->free != NULL)
    a->free(a->user, ptr);
}
