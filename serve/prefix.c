/* prefix.c - prompt prefixes shared by content (prefix.h). A handful of
 * entries, scanned in full: each holds its tokens, the chained hash of
 * every block, and a sequence forked from the writer's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prefix.h"

typedef struct entry {
  kgrt_kv_seq_t *seq; /* NULL: a free slot */
  int32_t *toks;      /* blocks x block_size */
  uint64_t *hash;     /* [blocks]: of the tokens of blocks 0 .. i */
  uint32_t blocks;
  uint64_t used; /* the tick of its last hit or insert */
} entry_t;

struct kgs_prefix {
  kgrt_kv_pool_t *pool;
  uint32_t bs, max_entries, max_blocks;
  entry_t *e;
  uint64_t tick;
};

static kgrt_status_t fail(kgrt_error_t *err, kgrt_status_t st, const char *msg) {
  if (err != NULL) {
    err->status = st;
    snprintf(err->message, sizeof err->message, "prefix cache: %s", msg);
  }
  return st;
}

/* FNV-1a of the tokens of one block, chained on the hash before it. */
static uint64_t block_hash(uint64_t h, const int32_t *t, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t v = (uint32_t)t[i];
    for (int k = 0; k < 4; ++k) {
      h ^= (v >> (8 * k)) & 0xffu;
      h *= 1099511628211ull;
    }
  }
  return h;
}

static const uint64_t hash_start = 14695981039346656037ull;

kgrt_status_t kgs_prefix_create(kgrt_kv_pool_t *pool, uint32_t max_entries,
                                uint32_t max_tokens, kgs_prefix_t **out,
                                kgrt_error_t *err) {
  *out = NULL;
  kgs_prefix_t *p = calloc(1, sizeof *p);
  if (p == NULL || (p->e = calloc(max_entries ? max_entries : 1, sizeof *p->e)) == NULL) {
    free(p);
    return fail(err, KGRT_STATUS_OUT_OF_MEMORY, "out of host memory");
  }
  p->pool = pool;
  p->bs = kgrt_kv_pool_block_size(pool);
  p->max_entries = max_entries;
  p->max_blocks = max_tokens / p->bs;
  *out = p;
  return KGRT_STATUS_OK;
}

static void entry_drop(entry_t *e) {
  kgrt_kv_seq_destroy(e->seq);
  free(e->toks);
  free(e->hash);
  *e = (entry_t){0};
}

void kgs_prefix_destroy(kgs_prefix_t *p) {
  if (p == NULL)
    return;
  for (uint32_t i = 0; i < p->max_entries; ++i)
    entry_drop(&p->e[i]);
  free(p->e);
  free(p);
}

/* Whole blocks of toks[0 .. n) that entry e holds as its start. */
static uint32_t match(const kgs_prefix_t *p, const entry_t *e, const uint64_t *hash,
                      const int32_t *toks, uint32_t blocks) {
  uint32_t k = blocks < e->blocks ? blocks : e->blocks;
  while (k > 0 && e->hash[k - 1] != hash[k - 1])
    k--;
  /* the hashes agree up to k: the tokens must too */
  if (k > 0 && memcmp(e->toks, toks, sizeof(int32_t) * k * p->bs) != 0)
    return 0;
  return k;
}

/* The chained hashes of toks' first `blocks` blocks into hash[], or NULL
 * when out of memory. */
static uint64_t *hashes(const kgs_prefix_t *p, const int32_t *toks, uint32_t blocks) {
  uint64_t *h = malloc(sizeof *h * (blocks ? blocks : 1));
  if (h == NULL)
    return NULL;
  uint64_t v = hash_start;
  for (uint32_t i = 0; i < blocks; ++i)
    h[i] = v = block_hash(v, toks + (size_t)i * p->bs, p->bs);
  return h;
}

kgrt_status_t kgs_prefix_lookup(kgs_prefix_t *p, const int32_t *toks, uint32_t n,
                                uint32_t limit, kgrt_kv_seq_t **out_seq,
                                uint32_t *out_tokens, kgrt_error_t *err) {
  *out_seq = NULL;
  *out_tokens = 0;
  uint32_t blocks = (n < limit ? n : limit) / p->bs;
  if (blocks > p->max_blocks)
    blocks = p->max_blocks;
  if (blocks == 0 || p->max_entries == 0)
    return KGRT_STATUS_OK;
  uint64_t *h = hashes(p, toks, blocks);
  if (h == NULL)
    return fail(err, KGRT_STATUS_OUT_OF_MEMORY, "out of host memory");
  entry_t *best = NULL;
  uint32_t most = 0;
  for (uint32_t i = 0; i < p->max_entries; ++i) {
    if (p->e[i].seq == NULL)
      continue;
    const uint32_t k = match(p, &p->e[i], h, toks, blocks);
    if (k > most) {
      most = k;
      best = &p->e[i];
    }
  }
  free(h);
  if (best == NULL)
    return KGRT_STATUS_OK;
  kgrt_status_t st = kgrt_kv_seq_fork(best->seq, most * p->bs, out_seq, err);
  if (st != KGRT_STATUS_OK)
    return st;
  best->used = ++p->tick;
  *out_tokens = most * p->bs;
  return KGRT_STATUS_OK;
}

kgrt_status_t kgs_prefix_insert(kgs_prefix_t *p, kgrt_kv_seq_t *seq, const int32_t *toks,
                                uint32_t n, kgrt_error_t *err) {
  uint32_t blocks = n / p->bs;
  if (blocks > p->max_blocks)
    blocks = p->max_blocks;
  if (blocks == 0 || p->max_entries == 0)
    return KGRT_STATUS_OK;
  uint64_t *h = hashes(p, toks, blocks);
  if (h == NULL)
    return fail(err, KGRT_STATUS_OUT_OF_MEMORY, "out of host memory");
  entry_t *slot = NULL;
  for (uint32_t i = 0; i < p->max_entries; ++i) {
    entry_t *e = &p->e[i];
    if (e->seq == NULL) {
      if (slot == NULL)
        slot = e;
      continue;
    }
    const uint32_t k = match(p, e, h, toks, blocks);
    if (k == blocks) { /* kept already, as long or longer */
      e->used = ++p->tick;
      free(h);
      return KGRT_STATUS_OK;
    }
    if (k == e->blocks) { /* a shorter start of this prompt: replaced */
      entry_drop(e);
      slot = e;
    }
  }
  if (slot == NULL) { /* full: the least recently used goes */
    slot = &p->e[0];
    for (uint32_t i = 1; i < p->max_entries; ++i)
      if (p->e[i].used < slot->used)
        slot = &p->e[i];
    entry_drop(slot);
  }
  int32_t *t = malloc(sizeof(int32_t) * (size_t)blocks * p->bs);
  kgrt_kv_seq_t *fork = NULL;
  if (t == NULL) {
    free(h);
    return fail(err, KGRT_STATUS_OUT_OF_MEMORY, "out of host memory");
  }
  kgrt_status_t st = kgrt_kv_seq_fork(seq, blocks * p->bs, &fork, err);
  if (st != KGRT_STATUS_OK) {
    free(t);
    free(h);
    return st;
  }
  memcpy(t, toks, sizeof(int32_t) * (size_t)blocks * p->bs);
  *slot =
      (entry_t){.seq = fork, .toks = t, .hash = h, .blocks = blocks, .used = ++p->tick};
  return KGRT_STATUS_OK;
}

int kgs_prefix_evict(kgs_prefix_t *p) {
  entry_t *old = NULL;
  for (uint32_t i = 0; i < p->max_entries; ++i)
    if (p->e[i].seq != NULL && (old == NULL || p->e[i].used < old->used))
      old = &p->e[i];
  if (old == NULL)
    return 0;
  entry_drop(old);
  return 1;
}

uint32_t kgs_prefix_entries(const kgs_prefix_t *p) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < p->max_entries; ++i)
    n += p->e[i].seq != NULL;
  return n;
}

void kgs_prefix_each_block(const kgs_prefix_t *p, void (*fn)(void *, int32_t),
                           void *ctx) {
  for (uint32_t i = 0; i < p->max_entries; ++i) {
    if (p->e[i].seq == NULL)
      continue;
    uint32_t nb;
    const int32_t *b = kgrt_kv_seq_blocks(p->e[i].seq, &nb);
    for (uint32_t k = 0; k < nb; ++k)
      fn(ctx, b[k]);
  }
}
