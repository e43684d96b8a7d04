/* kgrt_paged.h - what a host needs to serve many sequences at once on a
 * batched table (models.llama's `batch` config: a paged KV cache shared by
 * every sequence, and a step of T tokens of B sequences).
 *
 * kgrt_kv_pool_t hands out the cache's blocks: a sequence
 * (kgrt_kv_seq_t) holds a block table, grown by kgrt_kv_seq_reserve before
 * a step writes its tokens and given back whole by kgrt_kv_seq_destroy; a
 * fork shares the full blocks of a prefix (reference counted, never written
 * again: a sequence writes only past its shared blocks). Host memory only:
 * the blocks' keys live in the table's state on the device.
 *
 * kgrt_batch_t gathers one step: each sequence's tokens, positions, block
 * table, the row to sample after and its sampling settings, checked as they
 * are added, then bound to the model's inputs and dims (T, B, Q; tokens, pos,
 * seq, ctx, blocks, last, seed, params) in one call.
 *
 * Conventions as kgrt.h: statuses and one-line messages, out_ parameters
 * published on success, the caller's allocator, nothing printed. Needs
 * kgrt.h. */
#ifndef KGRT_PAGED_H
#define KGRT_PAGED_H

#include <stdint.h>

#include "kgrt.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kgrt_kv_pool kgrt_kv_pool_t;
typedef struct kgrt_kv_seq kgrt_kv_seq_t;

/* A pool of `blocks` blocks of `block_size` tokens; a sequence holds at most
 * `max_blocks` of them (the table's block-table width: context /
 * block_size). */
kgrt_status_t kgrt_kv_pool_create(uint32_t blocks, uint32_t block_size,
                                  uint32_t max_blocks, const kgrt_allocator_t *alloc,
                                  kgrt_kv_pool_t **out_pool, kgrt_error_t *err);
/* After every sequence of the pool was destroyed. */
void kgrt_kv_pool_destroy(kgrt_kv_pool_t *pool);
/* Blocks that no sequence holds. */
uint32_t kgrt_kv_pool_free_blocks(const kgrt_kv_pool_t *pool);
uint32_t kgrt_kv_pool_block_size(const kgrt_kv_pool_t *pool);
uint32_t kgrt_kv_pool_max_blocks(const kgrt_kv_pool_t *pool);

/* An empty sequence (no blocks). */
kgrt_status_t kgrt_kv_seq_create(kgrt_kv_pool_t *pool, kgrt_kv_seq_t **out_seq,
                                 kgrt_error_t *err);
/* Gives its blocks back (a shared block when its last holder goes). */
void kgrt_kv_seq_destroy(kgrt_kv_seq_t *seq);
/* Holds blocks for `tokens` tokens (positions 0 .. tokens - 1), taking new
 * ones as needed, all or none: OUT_OF_RANGE past max_blocks, OUT_OF_MEMORY
 * when the pool has too few free (the message says how many). */
kgrt_status_t kgrt_kv_seq_reserve(kgrt_kv_seq_t *seq, uint32_t tokens, kgrt_error_t *err);
/* A new sequence holding the full blocks of src's first `tokens` tokens
 * (shared: src and the fork must not write them again); its keys are those
 * of the first kgrt_kv_seq_shared(fork) tokens, the caller computes the rest. */
kgrt_status_t kgrt_kv_seq_fork(kgrt_kv_seq_t *src, uint32_t tokens,
                               kgrt_kv_seq_t **out_seq, kgrt_error_t *err);
/* Its block table (*out_count entries) and the tokens those hold. */
const int32_t *kgrt_kv_seq_blocks(const kgrt_kv_seq_t *seq, uint32_t *out_count);
uint32_t kgrt_kv_seq_capacity(const kgrt_kv_seq_t *seq);
/* Tokens at its start whose blocks it shares from a fork (0: none). */
uint32_t kgrt_kv_seq_shared(const kgrt_kv_seq_t *seq);

/* One sequence's sampling in a step: temperature (<= 0: the argmax), top_k
 * (0: off), top_p (1: off), min_p (0: off); seed: its Philox key (the draw
 * also takes the drawn token's position, so a request draws the same
 * whatever its neighbours). */
typedef struct kgrt_sampling {
  float temperature, top_p, min_p;
  int32_t top_k, seed;
} kgrt_sampling_t;

typedef struct kgrt_batch kgrt_batch_t;

/* A step of at most max_tokens tokens of at most max_seqs sequences of a
 * pool (the table's max_tokens, batch.sequences and context / block_size). */
kgrt_status_t kgrt_batch_create(const kgrt_kv_pool_t *pool, uint32_t max_tokens,
                                uint32_t max_seqs, const kgrt_allocator_t *alloc,
                                kgrt_batch_t **out_batch, kgrt_error_t *err);
void kgrt_batch_destroy(kgrt_batch_t *batch);
/* Empties the step. */
void kgrt_batch_clear(kgrt_batch_t *batch);
/* Adds n tokens of seq at positions pos0 .. pos0 + n - 1 (its context after
 * the step: pos0 + n), sampled after the last of them with `sampling`
 * (NULL: greedy). The sequence's blocks must hold them (kgrt_kv_seq_reserve
 * first) and its shared blocks stay unwritten: OUT_OF_RANGE otherwise, and
 * past max_tokens or max_seqs; INVALID_ARGUMENT for a sequence of another
 * pool, n = 0, or a sequence already in the step. Returns its row in the
 * step's outputs (logits [B, vocab], next_token [B]) in *out_row. */
kgrt_status_t kgrt_batch_add(kgrt_batch_t *batch, const kgrt_kv_seq_t *seq,
                             const int32_t *tokens, uint32_t n, uint32_t pos0,
                             const kgrt_sampling_t *sampling, uint32_t *out_row,
                             kgrt_error_t *err);
uint32_t kgrt_batch_tokens(const kgrt_batch_t *batch);
uint32_t kgrt_batch_sequences(const kgrt_batch_t *batch);
/* Sets the model's dims T, B, Q and (where the table has it) the count D, the
 * leading sequences of one token each, and binds its step inputs (tokens,
 * pos, seq, ctx, blocks, last, seed, params): FAILED_PRECONDITION for an
 * empty step; the model's own checks (names, sizes, maxima) otherwise. Add
 * the decoding sequences (one token each) first: beside a prefill chunk they
 * keep the attention's decode path (lua/models/llama.lua's D). */
kgrt_status_t kgrt_batch_bind(const kgrt_batch_t *batch, kgrt_model_t *model,
                              kgrt_error_t *err);

#ifdef __cplusplus
}
#endif

#endif /* KGRT_PAGED_H */
