/* kgrt_codeobj_kernels.c - the kernel list of a kgrt_codeobj_t, which both
 * readers fill (kgrt_codeobj.c for hsaco, kgrt_cubin.c for cubin): its order
 * by name, the lookup by name, and its release.
 *
 * Needs kgrt_codeobj.h and the caller's allocator; uses no reader, so both
 * readers depend on it and not on each other. Gives kgrt_co_kernel_cmp
 * (kgrt_codeobj_internal.h), kgrt_codeobj_find and kgrt_codeobj_free. */
#include "kgrt_codeobj_internal.h"

#include <stdlib.h>
#include <string.h>

int kgrt_co_kernel_cmp(const void *a, const void *b) {
  return strcmp(((const kgrt_codeobj_kernel_t *)a)->name,
                ((const kgrt_codeobj_kernel_t *)b)->name);
}

static int kernel_name_cmp(const void *key, const void *elem) {
  return strcmp(key, ((const kgrt_codeobj_kernel_t *)elem)->name);
}

void kgrt_codeobj_free(kgrt_codeobj_t *co, const kgrt_allocator_t *alloc) {
  if (co == NULL)
    return;
  kgrt_free(alloc, co->kernels);
  co->kernels = NULL;
  co->num_kernels = 0;
}

const kgrt_codeobj_kernel_t *kgrt_codeobj_find(const kgrt_codeobj_t *co,
                                               const char *name) {
  if (co == NULL || name == NULL || co->kernels == NULL)
    return NULL;
  return bsearch(name, co->kernels, co->num_kernels, sizeof *co->kernels,
                 kernel_name_cmp);
}
