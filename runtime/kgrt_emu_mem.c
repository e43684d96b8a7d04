/* kgrt_emu_mem.c - the emu device's memory: one shared mapping of a memfd
 * (so a peer process can map the same pages at the same address), carved
 * into 256-byte-aligned blocks first fit. Freed blocks give their pages back
 * (a punched hole) and merge with free neighbours.
 *
 * Needs the caller's allocator for the block list. Gives kgrt_emu_mem_*. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kgrt_emu.h"

#define KGRT_EMU_ALIGN 256u

typedef struct kgrt_emu_block {
  uint64_t addr, size;
  int used;
} kgrt_emu_block_t;

struct kgrt_emu_mem {
  kgrt_allocator_t alloc;
  int fd;
  unsigned char *base;
  uint64_t size;
  kgrt_emu_block_t *blocks; /* sorted by addr, covering the region */
  size_t count, capacity;
};

int kgrt_emu_mem_create(uint64_t bytes, const kgrt_allocator_t *alloc,
                        kgrt_emu_mem_t **out_mem, char *err, size_t err_size) {
  *out_mem = NULL;
  bytes = (bytes + 4095) & ~(uint64_t)4095;
  kgrt_emu_mem_t *m = kgrt_calloc(alloc, 1, sizeof *m);
  if (m == NULL) {
    snprintf(err, err_size, "out of host memory");
    return -1;
  }
  if (alloc != NULL)
    m->alloc = *alloc;
  m->fd = memfd_create("kgrt-emu", MFD_CLOEXEC);
  if (m->fd < 0 || ftruncate(m->fd, (off_t)bytes) != 0) {
    snprintf(err, err_size, "device memory of %llu bytes: %s", (unsigned long long)bytes,
             strerror(errno));
    if (m->fd >= 0)
      close(m->fd);
    kgrt_free(alloc, m);
    return -1;
  }
  /* a hint far from the heap, so that a peer finds the range free too */
  void *p = mmap((void *)(uintptr_t)0x200000000000ull, bytes, PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_NORESERVE, m->fd, 0);
  if (p == MAP_FAILED) {
    snprintf(err, err_size, "device memory of %llu bytes: mmap: %s",
             (unsigned long long)bytes, strerror(errno));
    close(m->fd);
    kgrt_free(alloc, m);
    return -1;
  }
  m->base = p;
  m->size = bytes;
  m->capacity = 64;
  m->blocks = kgrt_calloc(alloc, m->capacity, sizeof *m->blocks);
  if (m->blocks == NULL) {
    snprintf(err, err_size, "out of host memory");
    kgrt_emu_mem_destroy(m);
    return -1;
  }
  /* the first page stays unused: no buffer starts at the region's base */
  m->blocks[0] = (kgrt_emu_block_t){(uint64_t)(uintptr_t)p + 4096, bytes - 4096, 0};
  m->count = 1;
  *out_mem = m;
  return 0;
}

void kgrt_emu_mem_destroy(kgrt_emu_mem_t *mem) {
  if (mem == NULL)
    return;
  kgrt_allocator_t alloc = mem->alloc;
  if (mem->base != NULL)
    munmap(mem->base, mem->size);
  if (mem->fd >= 0)
    close(mem->fd);
  kgrt_free(&alloc, mem->blocks);
  kgrt_free(&alloc, mem);
}

static int kgrt_emu_mem_grow(kgrt_emu_mem_t *m) {
  if (m->count < m->capacity)
    return 0;
  size_t cap = m->capacity * 2;
  kgrt_emu_block_t *b = kgrt_calloc(&m->alloc, cap, sizeof *b);
  if (b == NULL)
    return -1;
  memcpy(b, m->blocks, m->count * sizeof *b);
  kgrt_free(&m->alloc, m->blocks);
  m->blocks = b;
  m->capacity = cap;
  return 0;
}

uint64_t kgrt_emu_mem_alloc(kgrt_emu_mem_t *m, uint64_t bytes) {
  if (bytes == 0 || bytes > m->size)
    return 0;
  bytes = (bytes + KGRT_EMU_ALIGN - 1) & ~(uint64_t)(KGRT_EMU_ALIGN - 1);
  for (size_t i = 0; i < m->count; ++i) {
    kgrt_emu_block_t *b = &m->blocks[i];
    if (b->used || b->size < bytes)
      continue;
    if (b->size > bytes) {
      if (kgrt_emu_mem_grow(m) != 0)
        return 0;
      b = &m->blocks[i];
      memmove(&m->blocks[i + 2], &m->blocks[i + 1], (m->count - i - 1) * sizeof *b);
      m->blocks[i + 1] = (kgrt_emu_block_t){b->addr + bytes, b->size - bytes, 0};
      m->count++;
      b->size = bytes;
    }
    b->used = 1;
    return b->addr;
  }
  return 0;
}

void kgrt_emu_mem_free(kgrt_emu_mem_t *m, uint64_t addr) {
  if (addr == 0)
    return;
  size_t i = 0;
  while (i < m->count && m->blocks[i].addr != addr)
    ++i;
  if (i == m->count || !m->blocks[i].used)
    return;
  kgrt_emu_block_t *b = &m->blocks[i];
  b->used = 0;
  /* give whole pages back to the system */
  uint64_t lo = (b->addr + 4095) & ~(uint64_t)4095,
           hi = (b->addr + b->size) & ~(uint64_t)4095;
  if (hi > lo)
    fallocate(m->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
              (off_t)(lo - (uint64_t)(uintptr_t)m->base), (off_t)(hi - lo));
  if (i + 1 < m->count && !m->blocks[i + 1].used) {
    b->size += m->blocks[i + 1].size;
    memmove(&m->blocks[i + 1], &m->blocks[i + 2], (m->count - i - 2) * sizeof *b);
    m->count--;
  }
  if (i > 0 && !m->blocks[i - 1].used) {
    m->blocks[i - 1].size += b->size;
    memmove(&m->blocks[i], &m->blocks[i + 1], (m->count - i - 1) * sizeof *b);
    m->count--;
  }
}

uint64_t kgrt_emu_mem_base(const kgrt_emu_mem_t *m) {
  return (uint64_t)(uintptr_t)m->base;
}
uint64_t kgrt_emu_mem_size(const kgrt_emu_mem_t *m) {
  return m->size;
}
int kgrt_emu_mem_fd(const kgrt_emu_mem_t *m) {
  return m->fd;
}
