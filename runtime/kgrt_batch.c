/* kgrt_batch.c - one step of a batched table (kgrt_paged.h): the host
 * arrays of its inputs, filled sequence by sequence and bound in one call.
 * Every entry is checked as it is added, so that what reaches the device
 * is in range (the kernels also stay in bounds on their own). */
#include <string.h>

#include "kgrt_base.h"
#include "kgrt_paged.h"

KGRT_INTERNAL const kgrt_kv_pool_t *kgrt_kv_seq_pool(const kgrt_kv_seq_t *seq);

struct kgrt_batch {
  kgrt_allocator_t alloc;
  const kgrt_kv_pool_t *pool;
  uint32_t max_tokens, max_seqs, max_blocks;
  uint32_t num_tokens, num_seqs, most; /* most: the most tokens of one sequence */
  uint32_t lead;                       /* the leading sequences of one token each */
  int32_t *tokens, *pos, *seq;         /* [max_tokens] */
  int32_t *ctx, *last, *seed;          /* [max_seqs] */
  int32_t *blocks;                     /* [max_seqs][max_blocks] */
  float *params;                       /* [max_seqs][4] */
  const kgrt_kv_seq_t **members;       /* [max_seqs] */
};

void kgrt_batch_destroy(kgrt_batch_t *batch) {
  if (batch == NULL)
    return;
  const kgrt_allocator_t alloc = batch->alloc;
  const kgrt_allocator_t *a = alloc.alloc ? &alloc : NULL;
  void *parts[] = {batch->tokens, batch->pos,    batch->seq,
                   batch->ctx,    batch->last,   batch->seed,
                   batch->blocks, batch->params, batch->members};
  for (size_t i = 0; i < sizeof parts / sizeof parts[0]; ++i)
    kgrt_free(a, parts[i]);
  kgrt_free(a, batch);
}

kgrt_status_t kgrt_batch_create(const kgrt_kv_pool_t *pool, uint32_t max_tokens,
                                uint32_t max_seqs, const kgrt_allocator_t *alloc,
                                kgrt_batch_t **out_batch, kgrt_error_t *err) {
  if (out_batch == NULL || pool == NULL)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "batch: pool or out_batch is NULL");
  *out_batch = NULL;
  if (max_tokens == 0 || max_seqs == 0 || max_tokens > INT32_MAX || max_seqs > max_tokens)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "batch: %u tokens of %u sequences: at least 1 each, no more "
                          "sequences than tokens",
                          max_tokens, max_seqs);
  kgrt_batch_t *b = kgrt_calloc(alloc, 1, sizeof *b);
  if (b == NULL)
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_MEMORY, "batch: out of host memory");
  if (alloc != NULL)
    b->alloc = *alloc;
  b->pool = pool;
  b->max_tokens = max_tokens;
  b->max_seqs = max_seqs;
  b->max_blocks = kgrt_kv_pool_max_blocks(pool);
  b->tokens = kgrt_calloc(alloc, max_tokens, sizeof(int32_t));
  b->pos = kgrt_calloc(alloc, max_tokens, sizeof(int32_t));
  b->seq = kgrt_calloc(alloc, max_tokens, sizeof(int32_t));
  b->ctx = kgrt_calloc(alloc, max_seqs, sizeof(int32_t));
  b->last = kgrt_calloc(alloc, max_seqs, sizeof(int32_t));
  b->seed = kgrt_calloc(alloc, max_seqs, sizeof(int32_t));
  b->blocks = kgrt_calloc(alloc, (size_t)max_seqs * b->max_blocks, sizeof(int32_t));
  b->params = kgrt_calloc(alloc, (size_t)max_seqs * 4, sizeof(float));
  b->members = kgrt_calloc(alloc, max_seqs, sizeof *b->members);
  if (!b->tokens || !b->pos || !b->seq || !b->ctx || !b->last || !b->seed || !b->blocks ||
      !b->params || !b->members) {
    kgrt_batch_destroy(b);
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_MEMORY,
                          "batch: out of host memory for %u tokens of %u sequences",
                          max_tokens, max_seqs);
  }
  *out_batch = b;
  kgrt_error_clear(err);
  return KGRT_STATUS_OK;
}

void kgrt_batch_clear(kgrt_batch_t *batch) {
  if (batch != NULL)
    batch->num_tokens = batch->num_seqs = batch->most = batch->lead = 0;
}

uint32_t kgrt_batch_tokens(const kgrt_batch_t *batch) {
  return batch ? batch->num_tokens : 0;
}

uint32_t kgrt_batch_sequences(const kgrt_batch_t *batch) {
  return batch ? batch->num_seqs : 0;
}

kgrt_status_t kgrt_batch_add(kgrt_batch_t *batch, const kgrt_kv_seq_t *seq,
                             const int32_t *tokens, uint32_t n, uint32_t pos0,
                             const kgrt_sampling_t *sampling, uint32_t *out_row,
                             kgrt_error_t *err) {
  if (batch == NULL || seq == NULL || (tokens == NULL && n > 0))
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "batch: batch, seq or tokens is NULL");
  if (kgrt_kv_seq_pool(seq) != batch->pool)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "batch: the sequence is of another pool");
  if (n == 0)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "batch: a sequence adds at least one token");
  for (uint32_t s = 0; s < batch->num_seqs; ++s)
    if (batch->members[s] == seq)
      return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                            "batch: the sequence is in this step already (row %u)", s);
  if (batch->num_seqs == batch->max_seqs)
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_RANGE,
                          "batch: a step holds at most %u sequences", batch->max_seqs);
  if (n > batch->max_tokens - batch->num_tokens)
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_RANGE,
                          "batch: %u tokens more than the step's %u (%u taken)", n,
                          batch->max_tokens, batch->num_tokens);
  const uint64_t end = (uint64_t)pos0 + n;
  const uint32_t cap = kgrt_kv_seq_capacity(seq);
  if (end > cap)
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_RANGE,
                          "batch: positions %u .. %llu past the %u tokens the sequence's "
                          "blocks hold (kgrt_kv_seq_reserve)",
                          pos0, (unsigned long long)end - 1, cap);
  if (pos0 < kgrt_kv_seq_shared(seq))
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_RANGE,
                          "batch: position %u is in the sequence's shared blocks (its "
                          "first %u tokens)",
                          pos0, kgrt_kv_seq_shared(seq));
  const uint32_t s = batch->num_seqs, t0 = batch->num_tokens;
  for (uint32_t i = 0; i < n; ++i) {
    batch->tokens[t0 + i] = tokens[i];
    batch->pos[t0 + i] = (int32_t)(pos0 + i);
    batch->seq[t0 + i] = (int32_t)s;
  }
  uint32_t nb;
  const int32_t *blocks = kgrt_kv_seq_blocks(seq, &nb);
  int32_t *row = batch->blocks + (size_t)s * batch->max_blocks;
  memcpy(row, blocks, sizeof(int32_t) * nb);
  for (uint32_t i = nb; i < batch->max_blocks; ++i)
    row[i] = -1;
  batch->ctx[s] = (int32_t)end;
  batch->last[s] = (int32_t)(t0 + n - 1);
  const kgrt_sampling_t greedy = {0};
  const kgrt_sampling_t *sm = sampling ? sampling : &greedy;
  batch->seed[s] = sm->seed;
  float *p = batch->params + (size_t)s * 4;
  p[0] = sm->temperature;
  p[1] = (float)sm->top_k;
  p[2] = sm->top_p;
  p[3] = sm->min_p;
  batch->members[s] = seq;
  batch->num_seqs++;
  batch->num_tokens += n;
  if (n > batch->most)
    batch->most = n;
  if (n == 1 && batch->lead == s)
    batch->lead++;
  if (out_row != NULL)
    *out_row = s;
  kgrt_error_clear(err);
  return KGRT_STATUS_OK;
}

kgrt_status_t kgrt_batch_bind(const kgrt_batch_t *batch, kgrt_model_t *model,
                              kgrt_error_t *err) {
  if (batch == NULL || model == NULL)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "batch: batch or model is NULL");
  if (batch->num_seqs == 0)
    return kgrt_error_set(err, KGRT_STATUS_FAILED_PRECONDITION,
                          "batch: the step is empty");
  const uint32_t T = batch->num_tokens, B = batch->num_seqs;
  KGRT_RETURN_IF_ERROR(kgrt_model_set_dim(model, "T", T, err));
  KGRT_RETURN_IF_ERROR(kgrt_model_set_dim(model, "B", B, err));
  KGRT_RETURN_IF_ERROR(kgrt_model_set_dim(model, "Q", batch->most, err));
  /* D, where the table has it (a count: tables before it lack it) */
  const kgrt_status_t d = kgrt_model_set_dim(model, "D", batch->lead, err);
  if (d == KGRT_STATUS_NOT_FOUND)
    kgrt_error_clear(err);
  else if (d != KGRT_STATUS_OK)
    return d;
  /* the block table as the model holds it: B rows of its width */
  size_t bytes = 0;
  KGRT_RETURN_IF_ERROR(kgrt_model_tensor_bytes(model, "blocks", &bytes, err));
  if (bytes != (size_t)B * batch->max_blocks * sizeof(int32_t))
    return kgrt_error_set(
        err, KGRT_STATUS_OUT_OF_RANGE,
        "batch: the model's block tables are %zu bytes for %u sequences, "
        "the pool's %u blocks a sequence make %zu",
        bytes, B, batch->max_blocks, (size_t)B * batch->max_blocks * sizeof(int32_t));
  const struct {
    const char *name;
    const void *host;
    size_t bytes;
  } ins[] = {
      {"tokens", batch->tokens, sizeof(int32_t) * T},
      {"pos", batch->pos, sizeof(int32_t) * T},
      {"seq", batch->seq, sizeof(int32_t) * T},
      {"ctx", batch->ctx, sizeof(int32_t) * B},
      {"blocks", batch->blocks, bytes},
      {"last", batch->last, sizeof(int32_t) * B},
      {"seed", batch->seed, sizeof(int32_t) * B},
      {"params", batch->params, sizeof(float) * 4 * B},
  };
  for (size_t i = 0; i < sizeof ins / sizeof ins[0]; ++i)
    KGRT_RETURN_IF_ERROR(
        kgrt_model_set_input(model, ins[i].name, ins[i].host, ins[i].bytes, err));
  return KGRT_STATUS_OK;
}
