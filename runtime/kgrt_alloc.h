/* kgrt_alloc.h - the caller's allocator, passed to every kgrt call that
 * allocates. NULL means malloc/free. */
#ifndef KGRT_ALLOC_H
#define KGRT_ALLOC_H

#include <stddef.h>

typedef struct kgrt_allocator {
  void *(*alloc)(void *user, size_t size); /* returns NULL on failure */
  void (*free)(void *user, void *ptr);
  void *user;
} kgrt_allocator_t;

void *kgrt_alloc(const kgrt_allocator_t *a, size_t size);
void *kgrt_calloc(const kgrt_allocator_t *a, size_t n, size_t size);
void kgrt_free(const kgrt_allocator_t *a, void *ptr);

#endif /* KGRT_ALLOC_H */
