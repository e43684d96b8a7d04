/* prefix.h - prompt prefixes kept in a KV pool (kgrt_paged.h) for the
 * requests that start with them. An entry holds the whole blocks of a
 * prompt that a sequence wrote (a fork of that sequence: the blocks are
 * shared and reference counted, never written again) with their tokens; a
 * later prompt that starts with the same tokens forks the entry's blocks
 * instead of computing them. Entries are matched block by block (a hash
 * of each block's tokens and all before it, then the tokens compared) and
 * dropped least recently used first when the pool needs their blocks.
 * Host memory only; one thread (the scheduler's). */
#ifndef KGS_PREFIX_H
#define KGS_PREFIX_H

#include <stdint.h>

#include "kgrt_paged.h"

typedef struct kgs_prefix kgs_prefix_t;

/* At most max_entries prompts of at most max_tokens tokens each. */
kgrt_status_t kgs_prefix_create(kgrt_kv_pool_t *pool, uint32_t max_entries,
                                uint32_t max_tokens, kgs_prefix_t **out,
                                kgrt_error_t *err);
/* Drops every entry (its blocks go back with their last holder). */
void kgs_prefix_destroy(kgs_prefix_t *p);
/* The longest kept prefix of toks[0 .. n) in whole blocks, at most limit
 * tokens: *out_seq a new sequence holding its blocks and *out_tokens their
 * tokens, or NULL and 0 when none matches. */
kgrt_status_t kgs_prefix_lookup(kgs_prefix_t *p, const int32_t *toks, uint32_t n,
                                uint32_t limit, kgrt_kv_seq_t **out_seq,
                                uint32_t *out_tokens, kgrt_error_t *err);
/* Keeps the whole blocks of seq's first n tokens (toks: those tokens, their
 * keys written). A prompt already kept as long or longer is left as it is;
 * a kept shorter start of it is replaced. */
kgrt_status_t kgs_prefix_insert(kgs_prefix_t *p, kgrt_kv_seq_t *seq, const int32_t *toks,
                                uint32_t n, kgrt_error_t *err);
/* Drops the least recently used entry: 1, or 0 when there is none. */
int kgs_prefix_evict(kgs_prefix_t *p);
uint32_t kgs_prefix_entries(const kgs_prefix_t *p);
/* Calls fn(ctx, block) for every block an entry holds (a block held by two
 * entries twice). */
void kgs_prefix_each_block(const kgs_prefix_t *p, void (*fn)(void *, int32_t), void *ctx);

#endif /* KGS_PREFIX_H */
