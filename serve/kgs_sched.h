/* kgs_sched.h - continuous batching on a batched kgen table (models.llama's
 * `batch`), embeddable without any HTTP: requests (token ids, sampling,
 * stop conditions) go into a bounded queue from any thread; one thread
 * calls kgs_sched_step, and each step
 *   - frees the sequences of cancelled requests,
 *   - gives every running sequence that decodes its one token, then the
 *     prompts being read their next chunk, then admits waiting requests
 *     while the step's tokens, the sequences and the KV blocks allow
 *     (a prompt's start already in the pool is shared, not computed:
 *     prefix.h),
 *   - takes blocks as sequences grow; when the pool runs out it drops kept
 *     prefixes, then preempts the newest running sequence (its blocks
 *     freed; it waits again and recomputes its tokens later),
 *   - runs the table once (kgrt_paged.h builds the step; the table samples
 *     each sequence with its own settings), appends each token and checks
 *     the stop conditions: an end-of-generation token, a stop string in the
 *     decoded text (text that could still become one is held back),
 *     max_tokens, the context; a finished sequence's blocks go back at once.
 * Readers on other threads wait for a request's text with kgs_req_wait.
 *
 * A request's tokens do not depend on the other requests: the table's
 * attention reads each sequence alone, its sampler draws with the
 * request's seed at the token's position, and its matmuls compute each row
 * alone, by the GEMV where the step has at most 8 tokens and the GEMM past
 * that (lua/models/llama.lua). Two runs of a request give the same bits
 * where their steps fell on the same side of that line; across it the
 * logits differ in rounding (docs/serve.md).
 *
 * Conventions as kgrt.h: statuses with one-line messages, out_ parameters. */
#ifndef KGS_SCHED_H
#define KGS_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include "kgrt.h"
#include "kgrt_paged.h"
#include "llm_tokenizer.h"

typedef struct kgs_sched kgs_sched_t;
typedef struct kgs_req kgs_req_t;

typedef struct kgs_config {
  uint32_t block_size;     /* the table's batch.block_size */
  uint32_t max_seqs;       /* sequences at once (0: the table's B) */
  uint32_t step_tokens;    /* tokens a step (0: the table's T) */
  uint32_t kv_blocks;      /* blocks of the table's pool to use (0: all) */
  uint32_t max_queue;      /* waiting requests; past it kgs_sched_submit refuses */
  uint32_t prefix_entries; /* prompts kept for prefix sharing (0: none) */
} kgs_config_t;

/* What a request asks for. */
typedef struct kgs_params {
  const int32_t *prompt; /* token ids, 1 .. context - 1 of them */
  uint32_t n_prompt;
  uint32_t max_tokens; /* 1 .. context - n_prompt */
  kgrt_sampling_t sampling;
  const char *const *stop; /* stop strings, at most KGS_MAX_STOPS */
  const size_t *stop_len;
  int n_stop;
  int ignore_eos; /* generate past end-of-generation tokens */
  int logprobs;   /* -1: none; 0 .. KGS_MAX_TOP: the token's and that many best */
} kgs_params_t;

enum { KGS_MAX_TOP = 20 };

typedef enum kgs_finish {
  KGS_RUNNING = 0,
  KGS_FINISH_STOP,      /* end-of-generation token or stop string */
  KGS_FINISH_LENGTH,    /* max_tokens, the context, or a pool too small */
  KGS_FINISH_CANCELLED, /* kgs_req_cancel or kgs_sched_cancel_all */
  KGS_FINISH_ERROR,     /* the device failed (kgs_req_wait's message) */
} kgs_finish_t;

/* One generated token's log-probabilities (log-softmax of its logits). */
typedef struct kgs_logprob {
  int32_t id;
  float logprob;
  int n_top;
  int32_t top_id[KGS_MAX_TOP];
  float top_logprob[KGS_MAX_TOP];
} kgs_logprob_t;

/* Where a request stands (kgs_req_wait). */
typedef struct kgs_progress {
  size_t text;                           /* bytes of text out so far */
  uint32_t tokens;                       /* tokens generated */
  uint32_t prompt_tokens, cached_tokens; /* its prompt; of them shared */
  uint32_t logprobs;                     /* entries of kgs_req_logprobs */
  kgs_finish_t finish;                   /* KGS_RUNNING until done */
  char error[256];
} kgs_progress_t;

typedef struct kgs_stats {
  uint64_t submitted, rejected, finished, cancelled, preempted;
  uint64_t prompt_tokens, generated_tokens, cached_tokens, prefix_hits;
  uint64_t steps, step_tokens;
  double step_seconds, last_step_seconds;
  uint32_t waiting, running;
  uint32_t kv_blocks, kv_free, kv_cached, kv_in_use;
  uint32_t prefix_entries;
} kgs_stats_t;

/* A scheduler of the loaded batched model m (its table t; weights bound).
 * tok: the model's tokenizer for the text and end-of-generation tokens
 * (NULL: tokens only, no text). Every later call on m is the scheduler's
 * (from the thread that calls kgs_sched_step). */
kgrt_status_t kgs_sched_create(kgrt_model_t *m, const kgrt_model_table_t *t,
                               const llm_tokenizer_t *tok, const kgs_config_t *cfg,
                               kgs_sched_t **out, kgrt_error_t *err);
/* After the stepping thread is done; cancels what is left. */
void kgs_sched_destroy(kgs_sched_t *s);
/* The table's limits as the scheduler uses them. */
uint32_t kgs_sched_context(const kgs_sched_t *s);
uint32_t kgs_sched_vocab(const kgs_sched_t *s);
uint32_t kgs_sched_max_seqs(const kgs_sched_t *s);
uint32_t kgs_sched_step_tokens(const kgs_sched_t *s);

/* Queues a request (any thread): *out holds it until kgs_req_release.
 * INVALID_ARGUMENT or OUT_OF_RANGE for what it asks (the message says),
 * UNAVAILABLE when the queue is full, FAILED_PRECONDITION after
 * kgs_sched_close. */
kgrt_status_t kgs_sched_submit(kgs_sched_t *s, const kgs_params_t *p, kgs_req_t **out,
                               kgrt_error_t *err);
/* Runs one step if there is work, else waits up to wait_ms for some. A
 * device error fails the step's requests and is returned. */
kgrt_status_t kgs_sched_step(kgs_sched_t *s, int wait_ms, kgrt_error_t *err);
/* Refuses new requests from now on (what is queued still runs). */
void kgs_sched_close(kgs_sched_t *s);
/* Cancels every request, queued or running. */
void kgs_sched_cancel_all(kgs_sched_t *s);
/* Requests queued or running. */
uint32_t kgs_sched_pending(kgs_sched_t *s);
/* Wakes a kgs_sched_step that waits. */
void kgs_sched_wake(kgs_sched_t *s);
void kgs_sched_stats(kgs_sched_t *s, kgs_stats_t *out);

/* Waits up to timeout_ms until r has text past `have` bytes, logprob
 * entries past have_lp, or is done; copies text[have ..] (at most cap
 * bytes) into buf and returns the count; *p says where it stands. */
size_t kgs_req_wait(kgs_req_t *r, size_t have, uint32_t have_lp, int timeout_ms,
                    char *buf, size_t cap, kgs_progress_t *p);
/* Copies logprob entries [from, from + n) (n at most what exists). */
uint32_t kgs_req_logprobs(kgs_req_t *r, uint32_t from, uint32_t n, kgs_logprob_t *out);
/* Copies r's generated token ids [from, from + n) into out (n at most what
 * exists); returns the count. */
uint32_t kgs_req_tokens(kgs_req_t *r, uint32_t from, uint32_t n, int32_t *out);
/* Stops r at the next step and frees its blocks (a client gone). */
void kgs_req_cancel(kgs_req_t *r);
/* The caller's hold on r ends (cancel first if it is to stop). */
void kgs_req_release(kgs_req_t *r);

#endif /* KGS_SCHED_H */
