/* kgrt_kvpool.c - the blocks of a paged KV cache (kgrt_paged.h): a free
 * stack and a reference count per block; a sequence is a block table. Host
 * memory only. */
#include <string.h>

#include "kgrt_base.h"
#include "kgrt_paged.h"

struct kgrt_kv_pool {
  kgrt_allocator_t alloc;
  uint32_t blocks, block_size, max_blocks;
  uint32_t *refs;     /* [blocks]: holders of each block */
  uint32_t *free_ids; /* [blocks]: a stack of the free ones */
  uint32_t num_free;
};

struct kgrt_kv_seq {
  kgrt_kv_pool_t *pool;
  uint32_t num_blocks, shared_blocks;
  int32_t *blocks; /* [max_blocks] */
};

kgrt_status_t kgrt_kv_pool_create(uint32_t blocks, uint32_t block_size,
                                  uint32_t max_blocks, const kgrt_allocator_t *alloc,
                                  kgrt_kv_pool_t **out_pool, kgrt_error_t *err) {
  if (out_pool == NULL)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT, "kv pool: out_pool is NULL");
  *out_pool = NULL;
  if (blocks == 0 || block_size == 0 || max_blocks == 0 || blocks > INT32_MAX ||
      (uint64_t)max_blocks * block_size > INT32_MAX)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "kv pool: %u blocks of %u tokens, %u a sequence: each must be "
                          "at least 1, the blocks and a sequence's tokens below 2^31",
                          blocks, block_size, max_blocks);
  kgrt_kv_pool_t *p = kgrt_calloc(alloc, 1, sizeof *p);
  if (p == NULL)
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_MEMORY, "kv pool: out of host memory");
  if (alloc != NULL)
    p->alloc = *alloc;
  p->refs = kgrt_calloc(alloc, blocks, sizeof *p->refs);
  p->free_ids = kgrt_calloc(alloc, blocks, sizeof *p->free_ids);
  if (p->refs == NULL || p->free_ids == NULL) {
    kgrt_kv_pool_destroy(p);
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_MEMORY,
                          "kv pool: out of host memory for %u blocks", blocks);
  }
  p->blocks = blocks;
  p->block_size = block_size;
  p->max_blocks = max_blocks;
  /* popped from the top: block 0 first */
  for (uint32_t i = 0; i < blocks; ++i)
    p->free_ids[i] = blocks - 1 - i;
  p->num_free = blocks;
  *out_pool = p;
  kgrt_error_clear(err);
  return KGRT_STATUS_OK;
}

void kgrt_kv_pool_destroy(kgrt_kv_pool_t *pool) {
  if (pool == NULL)
    return;
  const kgrt_allocator_t alloc = pool->alloc;
  const kgrt_allocator_t *a = alloc.alloc ? &alloc : NULL;
  kgrt_free(a, pool->refs);
  kgrt_free(a, pool->free_ids);
  kgrt_free(a, pool);
}

uint32_t kgrt_kv_pool_free_blocks(const kgrt_kv_pool_t *pool) {
  return pool ? pool->num_free : 0;
}

uint32_t kgrt_kv_pool_block_size(const kgrt_kv_pool_t *pool) {
  return pool ? pool->block_size : 0;
}

uint32_t kgrt_kv_pool_max_blocks(const kgrt_kv_pool_t *pool) {
  return pool ? pool->max_blocks : 0;
}

static const kgrt_allocator_t *pool_alloc(const kgrt_kv_pool_t *p) {
  return p->alloc.alloc ? &p->alloc : NULL;
}

kgrt_status_t kgrt_kv_seq_create(kgrt_kv_pool_t *pool, kgrt_kv_seq_t **out_seq,
                                 kgrt_error_t *err) {
  if (out_seq == NULL || pool == NULL)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "kv sequence: pool or out_seq is NULL");
  *out_seq = NULL;
  kgrt_kv_seq_t *s = kgrt_calloc(pool_alloc(pool), 1, sizeof *s);
  int32_t *b = s ? kgrt_calloc(pool_alloc(pool), pool->max_blocks, sizeof *b) : NULL;
  if (b == NULL) {
    kgrt_free(pool_alloc(pool), s);
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_MEMORY,
                          "kv sequence: out of host memory");
  }
  s->pool = pool;
  s->blocks = b;
  *out_seq = s;
  kgrt_error_clear(err);
  return KGRT_STATUS_OK;
}

void kgrt_kv_seq_destroy(kgrt_kv_seq_t *seq) {
  if (seq == NULL)
    return;
  kgrt_kv_pool_t *p = seq->pool;
  for (uint32_t i = 0; i < seq->num_blocks; ++i) {
    const uint32_t b = (uint32_t)seq->blocks[i];
    if (--p->refs[b] == 0)
      p->free_ids[p->num_free++] = b;
  }
  kgrt_free(pool_alloc(p), seq->blocks);
  kgrt_free(pool_alloc(p), seq);
}

kgrt_status_t kgrt_kv_seq_reserve(kgrt_kv_seq_t *seq, uint32_t tokens,
                                  kgrt_error_t *err) {
  if (seq == NULL)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT, "kv sequence is NULL");
  kgrt_kv_pool_t *p = seq->pool;
  const uint64_t want = ((uint64_t)tokens + p->block_size - 1) / p->block_size;
  if (want > p->max_blocks)
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_RANGE,
                          "kv sequence: %u tokens need %llu blocks of %u, past the %u of "
                          "a sequence (%llu tokens)",
                          tokens, (unsigned long long)want, p->block_size, p->max_blocks,
                          (unsigned long long)p->max_blocks * p->block_size);
  if (want <= seq->num_blocks) {
    kgrt_error_clear(err);
    return KGRT_STATUS_OK;
  }
  const uint32_t more = (uint32_t)want - seq->num_blocks;
  if (more > p->num_free)
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_MEMORY,
                          "kv pool: %u more blocks wanted, %u of %u free", more,
                          p->num_free, p->blocks);
  for (uint32_t i = 0; i < more; ++i) {
    const uint32_t b = p->free_ids[--p->num_free];
    p->refs[b] = 1;
    seq->blocks[seq->num_blocks++] = (int32_t)b;
  }
  kgrt_error_clear(err);
  return KGRT_STATUS_OK;
}

kgrt_status_t kgrt_kv_seq_fork(kgrt_kv_seq_t *src, uint32_t tokens,
                               kgrt_kv_seq_t **out_seq, kgrt_error_t *err) {
  if (out_seq == NULL || src == NULL)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "kv fork: src or out_seq is NULL");
  *out_seq = NULL;
  kgrt_kv_pool_t *p = src->pool;
  const uint32_t full = tokens / p->block_size;
  if (full > src->num_blocks)
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_RANGE,
                          "kv fork: %u tokens are more than the %u the sequence holds",
                          tokens, src->num_blocks * p->block_size);
  kgrt_kv_seq_t *s;
  KGRT_RETURN_IF_ERROR(kgrt_kv_seq_create(p, &s, err));
  for (uint32_t i = 0; i < full; ++i) {
    s->blocks[i] = src->blocks[i];
    p->refs[src->blocks[i]]++;
  }
  s->num_blocks = s->shared_blocks = full;
  /* src's blocks it now shares are not to be written again either */
  if (src->shared_blocks < full)
    src->shared_blocks = full;
  *out_seq = s;
  kgrt_error_clear(err);
  return KGRT_STATUS_OK;
}

const int32_t *kgrt_kv_seq_blocks(const kgrt_kv_seq_t *seq, uint32_t *out_count) {
  if (out_count != NULL)
    *out_count = seq ? seq->num_blocks : 0;
  return seq ? seq->blocks : NULL;
}

uint32_t kgrt_kv_seq_capacity(const kgrt_kv_seq_t *seq) {
  return seq ? seq->num_blocks * seq->pool->block_size : 0;
}

uint32_t kgrt_kv_seq_shared(const kgrt_kv_seq_t *seq) {
  return seq ? seq->shared_blocks * seq->pool->block_size : 0;
}

/* For kgrt_batch.c: the pool a sequence belongs to. */
KGRT_INTERNAL const kgrt_kv_pool_t *kgrt_kv_seq_pool(const kgrt_kv_seq_t *seq);
const kgrt_kv_pool_t *kgrt_kv_seq_pool(const kgrt_kv_seq_t *seq) {
  return seq->pool;
}
