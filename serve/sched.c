/* sched.c - continuous batching on a batched table (kgs_sched.h): the queue,
 * the step's plan (decodes, prompt chunks, admissions; blocks taken,
 * prefixes shared, the newest preempted when the pool runs out), the run,
 * and each token's way out (text, stop conditions, logprobs). One mutex
 * guards what other threads see (the queue, each request's output, the
 * counters); it is not held while the device runs. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "llm_utf8.h"
#include "prefix.h"
#include "kgs_sched.h"
#include "text.h"

enum { MAX_PIECE = 256 };

#define TRY(call)                                                                        \
  do {                                                                                   \
    const kgrt_status_t st_ = (call);                                                    \
    if (st_ != KGRT_STATUS_OK)                                                           \
      return st_;                                                                        \
  } while (0)

struct kgs_req {
  kgs_sched_t *s;
  uint64_t id; /* submission order: admission and preemption go by it */
  /* what it asks */
  int32_t *toks; /* the prompt, then the tokens generated */
  uint32_t n_prompt, n_toks, max_tokens;
  kgrt_sampling_t sampling;
  int ignore_eos, logprobs;
  /* the stepping thread's */
  kgrt_kv_seq_t *kv; /* NULL while waiting */
  uint32_t fed;      /* tokens whose keys are in kv */
  uint32_t n_gen;
  int kept; /* its prompt went into the prefix cache */
  llm_utf8_t utf8;
  kgs_stop_t stop;
  /* under s->mu */
  kgs_buf_t text;
  kgs_logprob_t *lp;
  uint32_t n_lp, cap_lp, cached;
  kgs_finish_t finish;
  char error[256];
  int cancel, refs;
};

struct kgs_sched {
  kgrt_model_t *m;
  const llm_tokenizer_t *tok;
  kgrt_kv_pool_t *pool;
  kgrt_batch_t *batch;
  kgs_prefix_t *prefix;
  uint32_t context, vocab, max_seqs, step_tokens, max_queue, blocks;
  /* the stepping thread's */
  kgs_req_t **running; /* by id */
  kgs_req_t **order;   /* plan_step's copy of running */
  uint32_t n_running;
  struct plan {
    kgs_req_t *r;
    uint32_t n;
  } * plan;
  uint32_t n_plan;
  int32_t *next;
  float *logits;
  uint8_t *mark; /* [blocks]: the kv statistics' scratch */
  /* under mu */
  pthread_mutex_t mu;
  pthread_cond_t work, out; /* work for the stepper; output for readers */
  kgs_req_t **waiting;      /* by id */
  uint32_t n_waiting, cap_waiting;
  uint64_t next_id;
  int closed;
  kgs_stats_t st;
};

static kgrt_status_t fail(kgrt_error_t *err, kgrt_status_t st, const char *fmt, ...) {
  if (err != NULL) {
    va_list ap;
    va_start(ap, fmt);
    err->status = st;
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
  }
  return st;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const kgrt_tensor_info_t *find(const kgrt_tensor_info_t *v, uint32_t n,
                                      const char *name) {
  for (uint32_t i = 0; i < n; ++i)
    if (strcmp(v[i].name, name) == 0)
      return &v[i];
  return NULL;
}

static int64_t sym_max(const kgrt_model_table_t *t, const char *name) {
  for (uint32_t i = 0; i < t->num_syms; ++i)
    if (strcmp(t->syms[i].name, name) == 0)
      return t->syms[i].max;
  return 0;
}

uint32_t kgs_sched_context(const kgs_sched_t *s) {
  return s->context;
}
uint32_t kgs_sched_vocab(const kgs_sched_t *s) {
  return s->vocab;
}
uint32_t kgs_sched_max_seqs(const kgs_sched_t *s) {
  return s->max_seqs;
}
uint32_t kgs_sched_step_tokens(const kgs_sched_t *s) {
  return s->step_tokens;
}

kgrt_status_t kgs_sched_create(kgrt_model_t *m, const kgrt_model_table_t *t,
                               const llm_tokenizer_t *tok, const kgs_config_t *cfg,
                               kgs_sched_t **out, kgrt_error_t *err) {
  *out = NULL;
  const kgrt_tensor_info_t *blocks = find(t->inputs, t->num_inputs, "blocks");
  const kgrt_tensor_info_t *kc = find(t->inputs, t->num_inputs, "k_cache");
  const kgrt_tensor_info_t *lg = find(t->outputs, t->num_outputs, "logits");
  const int64_t T = sym_max(t, "T"), B = sym_max(t, "B");
  if (blocks == NULL || kc == NULL || lg == NULL || T < 1 || B < 1 || blocks->rank != 2 ||
      kc->rank != 4 || lg->rank != 2 ||
      find(t->outputs, t->num_outputs, "next_token") == NULL)
    return fail(err, KGRT_STATUS_INVALID_ARGUMENT,
                "%s is not a batched table (models.llama's batch: inputs blocks, "
                "k_cache; outputs logits, next_token; syms T, B)",
                t->name);
  const uint32_t bs = cfg->block_size;
  const int64_t width = blocks->dims[1].value, slots = kc->dims[2].value;
  if (bs == 0 || width < 1 || slots < 1 || slots % bs != 0 ||
      (uint64_t)width * bs > INT32_MAX)
    return fail(err, KGRT_STATUS_INVALID_ARGUMENT,
                "%s: a block size of %u does not divide its %lld cache slots", t->name,
                bs, (long long)slots);
  const uint32_t pool_blocks = (uint32_t)(slots / bs);
  if (cfg->kv_blocks > pool_blocks)
    return fail(err, KGRT_STATUS_OUT_OF_RANGE, "%u KV blocks: %s has %u", cfg->kv_blocks,
                t->name, pool_blocks);
  if (cfg->max_seqs > B)
    return fail(err, KGRT_STATUS_OUT_OF_RANGE,
                "%u sequences: %s runs at most %lld a step", cfg->max_seqs, t->name,
                (long long)B);
  if (cfg->step_tokens > T)
    return fail(err, KGRT_STATUS_OUT_OF_RANGE, "%u tokens a step: %s runs at most %lld",
                cfg->step_tokens, t->name, (long long)T);
  kgs_sched_t *s = calloc(1, sizeof *s);
  if (s == NULL)
    return fail(err, KGRT_STATUS_OUT_OF_MEMORY, "scheduler: out of host memory");
  s->m = m;
  s->tok = tok;
  s->context = (uint32_t)width * bs;
  s->vocab = (uint32_t)lg->dims[1].value;
  s->max_seqs = cfg->max_seqs ? cfg->max_seqs : (uint32_t)B;
  s->step_tokens = cfg->step_tokens ? cfg->step_tokens : (uint32_t)T;
  if (s->max_seqs > s->step_tokens)
    s->max_seqs = s->step_tokens;
  s->blocks = cfg->kv_blocks ? cfg->kv_blocks : pool_blocks;
  s->max_queue = cfg->max_queue;
  /* the waits time out on the monotonic clock */
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_mutex_init(&s->mu, NULL);
  pthread_cond_init(&s->work, &ca);
  pthread_cond_init(&s->out, &ca);
  pthread_condattr_destroy(&ca);
  s->running = calloc(s->max_seqs, sizeof *s->running);
  s->order = calloc(s->max_seqs, sizeof *s->order);
  s->plan = calloc(s->max_seqs, sizeof *s->plan);
  s->next = calloc(s->max_seqs, sizeof *s->next);
  s->mark = calloc(s->blocks, 1);
  kgrt_status_t st = KGRT_STATUS_OUT_OF_MEMORY;
  if (s->running == NULL || s->order == NULL || s->plan == NULL || s->next == NULL ||
      s->mark == NULL) {
    fail(err, st, "scheduler: out of host memory");
    goto bad;
  }
  if ((st = kgrt_kv_pool_create(s->blocks, bs, (uint32_t)width, NULL, &s->pool, err)) ||
      (st = kgrt_batch_create(s->pool, s->step_tokens, s->max_seqs, NULL, &s->batch,
                              err)) ||
      (cfg->prefix_entries > 0 && (st = kgs_prefix_create(s->pool, cfg->prefix_entries,
                                                          s->context, &s->prefix, err))))
    goto bad;
  s->st.kv_blocks = s->st.kv_free = s->blocks;
  *out = s;
  return KGRT_STATUS_OK;
bad:
  kgs_sched_destroy(s);
  return st;
}

static void req_free(kgs_req_t *r) {
  kgrt_kv_seq_destroy(r->kv);
  free(r->toks);
  kgs_stop_free(&r->stop);
  kgs_buf_free(&r->text);
  free(r->lp);
  free(r);
}

/* Drops one hold on r (s->mu held). */
static void req_unref(kgs_req_t *r) {
  if (--r->refs == 0)
    req_free(r);
}

/* ---- the queue (s->mu held) ---------------------------------------------- */

static int queue_insert(kgs_sched_t *s, kgs_req_t *r) {
  if (s->n_waiting == s->cap_waiting) {
    const uint32_t cap = s->cap_waiting ? 2 * s->cap_waiting : 16;
    kgs_req_t **w = realloc(s->waiting, sizeof *w * cap);
    if (w == NULL)
      return -1;
    s->waiting = w;
    s->cap_waiting = cap;
  }
  uint32_t i = s->n_waiting;
  while (i > 0 && s->waiting[i - 1]->id > r->id) {
    s->waiting[i] = s->waiting[i - 1];
    --i;
  }
  s->waiting[i] = r;
  s->n_waiting++;
  return 0;
}

static void queue_remove(kgs_sched_t *s, uint32_t i) {
  memmove(s->waiting + i, s->waiting + i + 1,
          sizeof *s->waiting * (s->n_waiting - i - 1));
  s->n_waiting--;
}

static void running_insert(kgs_sched_t *s, kgs_req_t *r) {
  uint32_t i = s->n_running;
  while (i > 0 && s->running[i - 1]->id > r->id) {
    s->running[i] = s->running[i - 1];
    --i;
  }
  s->running[i] = r;
  s->n_running++;
}

static void running_remove(kgs_sched_t *s, kgs_req_t *r) {
  for (uint32_t i = 0; i < s->n_running; ++i)
    if (s->running[i] == r) {
      memmove(s->running + i, s->running + i + 1,
              sizeof *s->running * (s->n_running - i - 1));
      s->n_running--;
      return;
    }
}

kgrt_status_t kgs_sched_submit(kgs_sched_t *s, const kgs_params_t *p, kgs_req_t **out,
                               kgrt_error_t *err) {
  *out = NULL;
  if (p->n_prompt == 0 || p->prompt == NULL)
    return fail(err, KGRT_STATUS_INVALID_ARGUMENT, "the prompt is empty");
  if (p->n_prompt >= s->context)
    return fail(err, KGRT_STATUS_OUT_OF_RANGE,
                "the prompt's %u tokens do not fit the context of %u (and a token to "
                "generate)",
                p->n_prompt, s->context);
  if (p->max_tokens == 0 || p->max_tokens > s->context - p->n_prompt)
    return fail(err, KGRT_STATUS_OUT_OF_RANGE,
                "max_tokens %u: from 1 to %u (the context of %u less the prompt's %u "
                "tokens)",
                p->max_tokens, s->context - p->n_prompt, s->context, p->n_prompt);
  for (uint32_t i = 0; i < p->n_prompt; ++i)
    if (p->prompt[i] < 0 || (uint32_t)p->prompt[i] >= s->vocab)
      return fail(err, KGRT_STATUS_OUT_OF_RANGE,
                  "token %d of the prompt is outside the vocabulary (0 .. %u)",
                  p->prompt[i], s->vocab - 1);
  if (p->logprobs > KGS_MAX_TOP || p->n_stop > KGS_MAX_STOPS || p->n_stop < 0)
    return fail(err, KGRT_STATUS_INVALID_ARGUMENT,
                "at most %d logprobs and %d stop strings", KGS_MAX_TOP, KGS_MAX_STOPS);
  kgs_req_t *r = calloc(1, sizeof *r);
  if (r == NULL ||
      (r->toks = malloc(sizeof(int32_t) * (p->n_prompt + p->max_tokens))) == NULL) {
    free(r);
    return fail(err, KGRT_STATUS_OUT_OF_MEMORY, "out of host memory");
  }
  for (int i = 0; i < p->n_stop; ++i)
    if (kgs_stop_add(&r->stop, p->stop[i], p->stop_len[i]) != 0) {
      req_free(r);
      return fail(err, KGRT_STATUS_INVALID_ARGUMENT,
                  "stop strings are 1 to %d bytes, at most %d of them", KGS_MAX_STOP_LEN,
                  KGS_MAX_STOPS);
    }
  memcpy(r->toks, p->prompt, sizeof(int32_t) * p->n_prompt);
  r->s = s;
  r->n_prompt = r->n_toks = p->n_prompt;
  r->max_tokens = p->max_tokens;
  r->sampling = p->sampling;
  r->ignore_eos = p->ignore_eos;
  r->logprobs = p->logprobs;
  r->refs = 2; /* the caller's and the scheduler's */
  pthread_mutex_lock(&s->mu);
  kgrt_status_t st = KGRT_STATUS_OK;
  if (s->closed)
    st = fail(err, KGRT_STATUS_FAILED_PRECONDITION, "the server is shutting down");
  else if (s->n_waiting >= s->max_queue)
    st = fail(err, KGRT_STATUS_UNAVAILABLE,
              "%u requests are waiting already (the queue's most); try again later",
              s->n_waiting);
  else {
    r->id = s->next_id++;
    if (queue_insert(s, r) != 0)
      st = fail(err, KGRT_STATUS_OUT_OF_MEMORY, "out of host memory");
  }
  if (st == KGRT_STATUS_OK) {
    s->st.submitted++;
    s->st.prompt_tokens += p->n_prompt;
    s->st.waiting = s->n_waiting;
    pthread_cond_signal(&s->work);
  } else {
    s->st.rejected += st == KGRT_STATUS_UNAVAILABLE;
  }
  pthread_mutex_unlock(&s->mu);
  if (st != KGRT_STATUS_OK) {
    req_free(r);
    return st;
  }
  *out = r;
  return KGRT_STATUS_OK;
}

/* ---- a request's end and its text (s->mu held) --------------------------- */

/* Ends r: its text flushed unless a stop string ended it, its blocks back. */
static void finish(kgs_sched_t *s, kgs_req_t *r, kgs_finish_t why, int flush) {
  if (flush) {
    char tail[8];
    const size_t n = llm_utf8_flush(&r->utf8, tail, sizeof tail);
    if (kgs_stop_feed(&r->stop, tail, n, &r->text) == 0)
      kgs_stop_flush(&r->stop, &r->text);
  }
  kgrt_kv_seq_destroy(r->kv);
  r->kv = NULL;
  running_remove(s, r);
  r->finish = why;
  s->st.finished++;
  s->st.cancelled += why == KGS_FINISH_CANCELLED;
  pthread_cond_broadcast(&s->out);
  req_unref(r);
}

static void fail_req(kgs_sched_t *s, kgs_req_t *r, const char *why) {
  snprintf(r->error, sizeof r->error, "%.200s", why);
  finish(s, r, KGS_FINISH_ERROR, 0);
}

/* The log-softmax of row[0 .. V) at id, and the n_top best. */
static void logprobs_of(const float *row, uint32_t V, int32_t id, int n_top,
                        kgs_logprob_t *e) {
  double mx = -INFINITY, sum = 0;
  for (uint32_t v = 0; v < V; ++v)
    mx = row[v] > mx ? row[v] : mx;
  for (uint32_t v = 0; v < V; ++v)
    sum += exp((double)row[v] - mx);
  const double lse = mx + log(sum);
  e->id = id;
  e->logprob = (float)((double)row[id] - lse);
  e->n_top = 0;
  for (uint32_t v = 0; v < V && n_top > 0; ++v) {
    int k = e->n_top < n_top ? e->n_top++ : n_top;
    if (k == n_top && !(row[v] > row[e->top_id[k - 1]]))
      continue;
    if (k == n_top)
      k--;
    while (k > 0 && row[v] > row[e->top_id[k - 1]]) {
      e->top_id[k] = e->top_id[k - 1];
      --k;
    }
    e->top_id[k] = (int32_t)v;
  }
  for (int k = 0; k < e->n_top; ++k)
    e->top_logprob[k] = (float)((double)row[e->top_id[k]] - lse);
}

/* Token tok, sampled after r's last token (row: its logits, or NULL). */
static void append(kgs_sched_t *s, kgs_req_t *r, int32_t tok, const float *row) {
  if (tok < 0 || (uint32_t)tok >= s->vocab) {
    fail_req(s, r, "the device sampled a token outside the vocabulary");
    return;
  }
  r->toks[r->n_toks++] = tok;
  r->n_gen++;
  s->st.generated_tokens++;
  if (r->logprobs >= 0 && row != NULL) {
    if (r->n_lp == r->cap_lp) {
      const uint32_t cap = r->cap_lp ? 2 * r->cap_lp : 16;
      kgs_logprob_t *lp = realloc(r->lp, sizeof *lp * cap);
      if (lp == NULL) {
        fail_req(s, r, "out of host memory");
        return;
      }
      r->lp = lp;
      r->cap_lp = cap;
    }
    logprobs_of(row, s->vocab, tok, r->logprobs, &r->lp[r->n_lp++]);
  }
  if (s->tok != NULL && !r->ignore_eos && llm_tokenizer_is_eog(s->tok, tok)) {
    finish(s, r, KGS_FINISH_STOP, 1);
    return;
  }
  if (s->tok != NULL) {
    char piece[MAX_PIECE], text[3 * MAX_PIECE + 4];
    size_t n = llm_tokenizer_piece(s->tok, tok, 0, piece, sizeof piece);
    if (n >= sizeof piece)
      n = sizeof piece - 1;
    n = llm_utf8_push(&r->utf8, piece, n, text, sizeof text);
    const int hit = kgs_stop_feed(&r->stop, text, n, &r->text);
    if (hit != 0) {
      if (hit < 0)
        fail_req(s, r, "out of host memory");
      else
        finish(s, r, KGS_FINISH_STOP, 0);
      return;
    }
  }
  if (r->n_gen == r->max_tokens || r->n_toks >= s->context)
    finish(s, r, KGS_FINISH_LENGTH, 1);
}

/* ---- the step's plan (s->mu held) ---------------------------------------- */

/* Blocks for r's first `tokens` tokens, dropping kept prefixes while the
 * pool has too few: 1, 0 when it still has too few, -1 past r's table. */
static int grow(kgs_sched_t *s, kgs_req_t *r, uint32_t tokens) {
  kgrt_error_t e;
  for (;;) {
    const kgrt_status_t st = kgrt_kv_seq_reserve(r->kv, tokens, &e);
    if (st == KGRT_STATUS_OK)
      return 1;
    if (st != KGRT_STATUS_OUT_OF_MEMORY)
      return -1;
    if (s->prefix == NULL || !kgs_prefix_evict(s->prefix))
      return 0;
  }
}

static void unplan(kgs_sched_t *s, kgs_req_t *r, uint32_t *budget) {
  for (uint32_t i = 0; i < s->n_plan; ++i)
    if (s->plan[i].r == r) {
      *budget += s->plan[i].n;
      memmove(s->plan + i, s->plan + i + 1, sizeof *s->plan * (s->n_plan - i - 1));
      s->n_plan--;
      return;
    }
}

/* Frees r's blocks and puts it back in the queue, to recompute its tokens. */
static void preempt(kgs_sched_t *s, kgs_req_t *r, uint32_t *budget) {
  unplan(s, r, budget);
  running_remove(s, r);
  kgrt_kv_seq_destroy(r->kv);
  r->kv = NULL;
  r->fed = 0;
  s->st.preempted++;
  if (queue_insert(s, r) != 0)
    fail_req(s, r, "out of host memory");
}

/* Plans running request r (n tokens). 0, or -1 when r left the running set. */
static int plan_running(kgs_sched_t *s, kgs_req_t *r, uint32_t n, uint32_t *budget) {
  for (;;) {
    const int g = grow(s, r, r->fed + n);
    if (g > 0) {
      s->plan[s->n_plan++] = (struct plan){r, n};
      *budget -= n;
      return 0;
    }
    if (g < 0) {
      fail_req(s, r, "the sequence outgrew its block table");
      return -1;
    }
    kgs_req_t *newest = s->running[s->n_running - 1];
    if (newest == r && s->n_running == 1) {
      finish(s, r, KGS_FINISH_LENGTH, 1); /* the pool holds no more of it */
      return -1;
    }
    preempt(s, newest, budget);
    if (newest == r)
      return -1;
  }
}

/* Admits the queue's first request for up to *budget tokens: 1, or 0 when
 * it does not fit now. */
static int admit(kgs_sched_t *s, uint32_t *budget) {
  kgs_req_t *r = s->waiting[0];
  kgrt_error_t e;
  uint32_t shared = 0;
  r->fed = 0;
  if (s->prefix != NULL && kgs_prefix_lookup(s->prefix, r->toks, r->n_toks, r->n_toks - 1,
                                             &r->kv, &shared, &e) != KGRT_STATUS_OK)
    r->kv = NULL;
  if (r->kv == NULL && kgrt_kv_seq_create(s->pool, &r->kv, &e) != KGRT_STATUS_OK)
    return 0;
  r->fed = shared;
  const uint32_t left = r->n_toks - r->fed;
  const uint32_t n = left < *budget ? left : *budget;
  const int g = grow(s, r, r->fed + n);
  if (g <= 0) {
    kgrt_kv_seq_destroy(r->kv);
    r->kv = NULL;
    r->fed = 0;
    if (g < 0 || (s->n_running == 0 && s->n_plan == 0)) { /* never will */
      queue_remove(s, 0);
      fail_req(s, r, "the request needs more KV blocks than the pool has");
      return 1;
    }
    return 0;
  }
  queue_remove(s, 0);
  running_insert(s, r);
  if (shared > 0) {
    s->st.prefix_hits++;
    s->st.cached_tokens += shared;
    if (r->n_gen == 0)
      r->cached = shared;
  }
  s->plan[s->n_plan++] = (struct plan){r, n};
  *budget -= n;
  return 1;
}

static void plan_step(kgs_sched_t *s) {
  uint32_t budget = s->step_tokens;
  s->n_plan = 0;
  /* decodes first (beside a chunk they keep the attention's decode path:
   * kgrt_batch_bind's D), then prompt chunks, oldest first; a preempted
   * request leaves `running`, so walk a copy */
  for (int pass = 0; pass < 2; ++pass) {
    const uint32_t n_order = s->n_running;
    memcpy(s->order, s->running, sizeof *s->order * n_order);
    for (uint32_t i = 0; i < n_order && budget > 0; ++i) {
      kgs_req_t *r = s->order[i];
      const uint32_t left = r->n_toks - r->fed;
      if (r->kv == NULL || (pass == 0) != (left == 1))
        continue;
      int still = 0; /* preempted or finished by an earlier one's growth */
      for (uint32_t k = 0; k < s->n_running; ++k)
        still |= s->running[k] == r;
      if (still)
        plan_running(s, r, left < budget ? left : budget, &budget);
    }
  }
  while (s->n_waiting > 0 && s->n_running < s->max_seqs && budget > 0)
    if (!admit(s, &budget))
      break;
}

/* ---- a step -------------------------------------------------------------- */

/* Ends the cancelled requests (s->mu held). */
static void reap(kgs_sched_t *s) {
  for (uint32_t i = s->n_running; i-- > 0;)
    if (s->running[i]->cancel)
      finish(s, s->running[i], KGS_FINISH_CANCELLED, 0);
  for (uint32_t i = s->n_waiting; i-- > 0;)
    if (s->waiting[i]->cancel) {
      kgs_req_t *r = s->waiting[i];
      queue_remove(s, i);
      finish(s, r, KGS_FINISH_CANCELLED, 0);
    }
}

static void count_block(void *ctx, int32_t b) {
  uint8_t *mark = ctx;
  if (mark[b] == 0)
    mark[b] = 2;
}

/* The pool's figures (s->mu held). */
static void kv_stats(kgs_sched_t *s) {
  memset(s->mark, 0, s->blocks);
  for (uint32_t i = 0; i < s->n_running; ++i) {
    uint32_t nb;
    const int32_t *b = kgrt_kv_seq_blocks(s->running[i]->kv, &nb);
    for (uint32_t k = 0; k < nb; ++k)
      s->mark[b[k]] = 1;
  }
  if (s->prefix != NULL)
    kgs_prefix_each_block(s->prefix, count_block, s->mark);
  uint32_t cached = 0;
  for (uint32_t b = 0; b < s->blocks; ++b)
    cached += s->mark[b] == 2;
  s->st.kv_free = kgrt_kv_pool_free_blocks(s->pool);
  s->st.kv_cached = cached;
  s->st.kv_in_use = s->blocks - s->st.kv_free - cached;
  s->st.prefix_entries = s->prefix ? kgs_prefix_entries(s->prefix) : 0;
  s->st.waiting = s->n_waiting;
  s->st.running = s->n_running;
}

static struct timespec deadline_in(int ms) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  ts.tv_sec += ms / 1000;
  ts.tv_nsec += (long)(ms % 1000) * 1000000L;
  if (ts.tv_nsec >= 1000000000L) {
    ts.tv_sec++;
    ts.tv_nsec -= 1000000000L;
  }
  return ts;
}

/* Runs the planned step: next tokens into s->next, logits where asked. */
static kgrt_status_t run(kgs_sched_t *s, int want_logits, kgrt_error_t *err) {
  kgrt_batch_clear(s->batch);
  for (uint32_t i = 0; i < s->n_plan; ++i) {
    kgs_req_t *r = s->plan[i].r;
    TRY(kgrt_batch_add(s->batch, r->kv, r->toks + r->fed, s->plan[i].n, r->fed,
                       &r->sampling, NULL, err));
  }
  const size_t B = s->n_plan;
  TRY(kgrt_batch_bind(s->batch, s->m, err));
  TRY(kgrt_model_run(s->m, err));
  TRY(kgrt_model_get_output(s->m, "next_token", s->next, sizeof(int32_t) * B, err));
  if (want_logits) {
    if (s->logits == NULL &&
        (s->logits = malloc(sizeof(float) * s->max_seqs * (size_t)s->vocab)) == NULL)
      return fail(err, KGRT_STATUS_OUT_OF_MEMORY, "out of host memory for logits");
    TRY(kgrt_model_get_output(s->m, "logits", s->logits, sizeof(float) * B * s->vocab,
                              err));
  }
  return KGRT_STATUS_OK;
}

kgrt_status_t kgs_sched_step(kgs_sched_t *s, int wait_ms, kgrt_error_t *err) {
  pthread_mutex_lock(&s->mu);
  reap(s);
  if (s->n_running == 0 && s->n_waiting == 0) {
    kv_stats(s);
    const struct timespec until = deadline_in(wait_ms);
    pthread_cond_timedwait(&s->work, &s->mu, &until);
    reap(s);
  }
  plan_step(s);
  int want_logits = 0;
  for (uint32_t i = 0; i < s->n_plan; ++i) {
    const kgs_req_t *r = s->plan[i].r;
    want_logits |= r->logprobs >= 0 && r->fed + s->plan[i].n == r->n_toks;
  }
  kv_stats(s);
  if (s->n_plan == 0) {
    pthread_mutex_unlock(&s->mu);
    return KGRT_STATUS_OK;
  }
  pthread_mutex_unlock(&s->mu);
  /* the plan's requests stay: only this thread ends or preempts them */
  const double t0 = now_s();
  const kgrt_status_t st = run(s, want_logits, err);
  const double dt = now_s() - t0;
  pthread_mutex_lock(&s->mu);
  uint32_t tokens = 0;
  for (uint32_t i = 0; i < s->n_plan; ++i) {
    kgs_req_t *r = s->plan[i].r;
    tokens += s->plan[i].n;
    if (st != KGRT_STATUS_OK) {
      fail_req(s, r, err ? err->message : "the device failed");
      continue;
    }
    r->fed += s->plan[i].n;
    if (s->prefix != NULL && !r->kept && r->fed >= r->n_prompt) {
      kgrt_error_t e;
      r->kept = 1;
      kgs_prefix_insert(s->prefix, r->kv, r->toks, r->n_prompt, &e);
    }
    if (r->fed == r->n_toks && !r->cancel)
      append(s, r, s->next[i], want_logits ? s->logits + (size_t)i * s->vocab : NULL);
  }
  s->st.steps++;
  s->st.step_tokens += tokens;
  s->st.step_seconds += dt;
  s->st.last_step_seconds = dt;
  kv_stats(s);
  pthread_cond_broadcast(&s->out);
  pthread_mutex_unlock(&s->mu);
  return st;
}

void kgs_sched_close(kgs_sched_t *s) {
  pthread_mutex_lock(&s->mu);
  s->closed = 1;
  pthread_mutex_unlock(&s->mu);
}

void kgs_sched_cancel_all(kgs_sched_t *s) {
  pthread_mutex_lock(&s->mu);
  for (uint32_t i = 0; i < s->n_running; ++i)
    s->running[i]->cancel = 1;
  for (uint32_t i = 0; i < s->n_waiting; ++i)
    s->waiting[i]->cancel = 1;
  pthread_cond_signal(&s->work);
  pthread_mutex_unlock(&s->mu);
}

uint32_t kgs_sched_pending(kgs_sched_t *s) {
  pthread_mutex_lock(&s->mu);
  const uint32_t n = s->n_running + s->n_waiting;
  pthread_mutex_unlock(&s->mu);
  return n;
}

void kgs_sched_wake(kgs_sched_t *s) {
  pthread_mutex_lock(&s->mu);
  pthread_cond_signal(&s->work);
  pthread_mutex_unlock(&s->mu);
}

void kgs_sched_stats(kgs_sched_t *s, kgs_stats_t *out) {
  pthread_mutex_lock(&s->mu);
  *out = s->st;
  pthread_mutex_unlock(&s->mu);
}

void kgs_sched_destroy(kgs_sched_t *s) {
  if (s == NULL)
    return;
  pthread_mutex_lock(&s->mu);
  while (s->n_running > 0)
    finish(s, s->running[s->n_running - 1], KGS_FINISH_CANCELLED, 0);
  while (s->n_waiting > 0) {
    kgs_req_t *r = s->waiting[s->n_waiting - 1];
    queue_remove(s, s->n_waiting - 1);
    finish(s, r, KGS_FINISH_CANCELLED, 0);
  }
  pthread_mutex_unlock(&s->mu);
  kgs_prefix_destroy(s->prefix);
  kgrt_batch_destroy(s->batch);
  kgrt_kv_pool_destroy(s->pool);
  pthread_mutex_destroy(&s->mu);
  pthread_cond_destroy(&s->work);
  pthread_cond_destroy(&s->out);
  free(s->waiting);
  free(s->running);
  free(s->order);
  free(s->plan);
  free(s->next);
  free(s->logits);
  free(s->mark);
  free(s);
}

/* ---- readers (any thread) ------------------------------------------------ */

size_t kgs_req_wait(kgs_req_t *r, size_t have, uint32_t have_lp, int timeout_ms,
                    char *buf, size_t cap, kgs_progress_t *p) {
  kgs_sched_t *s = r->s;
  pthread_mutex_lock(&s->mu);
  const struct timespec until = deadline_in(timeout_ms);
  while (r->text.n <= have && r->n_lp <= have_lp && r->finish == KGS_RUNNING)
    if (pthread_cond_timedwait(&s->out, &s->mu, &until) == ETIMEDOUT)
      break;
  size_t n = r->text.n > have ? r->text.n - have : 0;
  if (n > cap)
    n = cap;
  if (n > 0)
    memcpy(buf, r->text.p + have, n);
  p->text = r->text.n;
  p->tokens = r->n_gen;
  p->prompt_tokens = r->n_prompt;
  p->cached_tokens = r->cached;
  p->logprobs = r->n_lp;
  p->finish = r->finish;
  snprintf(p->error, sizeof p->error, "%s", r->error);
  pthread_mutex_unlock(&s->mu);
  return n;
}

uint32_t kgs_req_logprobs(kgs_req_t *r, uint32_t from, uint32_t n, kgs_logprob_t *out) {
  pthread_mutex_lock(&r->s->mu);
  if (from > r->n_lp)
    from = r->n_lp;
  if (n > r->n_lp - from)
    n = r->n_lp - from;
  memcpy(out, r->lp + from, sizeof *out * n);
  pthread_mutex_unlock(&r->s->mu);
  return n;
}

uint32_t kgs_req_tokens(kgs_req_t *r, uint32_t from, uint32_t n, int32_t *out) {
  pthread_mutex_lock(&r->s->mu);
  if (from > r->n_gen)
    from = r->n_gen;
  if (n > r->n_gen - from)
    n = r->n_gen - from;
  memcpy(out, r->toks + r->n_prompt + from, sizeof(int32_t) * n);
  pthread_mutex_unlock(&r->s->mu);
  return n;
}

void kgs_req_cancel(kgs_req_t *r) {
  pthread_mutex_lock(&r->s->mu);
  if (r->finish == KGS_RUNNING) {
    r->cancel = 1;
    pthread_cond_signal(&r->s->work);
  }
  pthread_mutex_unlock(&r->s->mu);
}

void kgs_req_release(kgs_req_t *r) {
  if (r == NULL)
    return;
  kgs_sched_t *s = r->s;
  pthread_mutex_lock(&s->mu);
  req_unref(r);
  pthread_mutex_unlock(&s->mu);
}
