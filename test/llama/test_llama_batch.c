/* test_llama_batch.c - a batched Llama table (lua/models/llama.lua's
 * `batch`: many sequences a step over a paged KV cache) end to end on a
 * device, driven through kgrt_paged.h, against the float64 reference of each
 * sequence alone (llm_model.c):
 *   1. continuous batching: 8 sequences with prompts of 1 to 300 tokens,
 *      admitted at different steps; prompts go in chunks within a step's 64
 *      tokens beside the other sequences' decode tokens; each generates 6
 *      tokens (greedy), is freed when done, and a ninth sequence admitted
 *      late reuses freed blocks. Every step's logits of every sequence
 *      against its reference (NMSE bound per format), its token the
 *      reference's wherever the reference's best two are far enough apart.
 *      The whole cache starts NaN: a key read where none was written fails.
 *   2. the same sequences alone (one a step, chunks of 64): the same greedy
 *      tokens as in the crowd.
 *   3. batch invariance: one decoding sequence's logits alone, among 3 and
 *      among 8 (other neighbours, other lengths): the same bytes.
 *   4. the device loop: 4 decoding sequences, next_token, next_pos and
 *      next_ctx linked back, 5 steps on the device: the tokens of 5
 *      host-driven steps.
 *   5. errors: a sequence past its blocks, a step past its tokens or
 *      sequences, a pool out of blocks, a fork's shared blocks written.
 * Usage: test_llama_batch_<fmt> [DEVICE_SPEC...] (default sim:gfx1100 and
 * sim:gfx942). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kgrt.h"
#include "kgrt_paged.h"
#include "kgrt_weights.h"
#include "llm_model.h"
#include "test.h"
#include "weights_writer.h"

#define BATCH_SIZES                                                                      \
  .hidden = 256, .layers = 2, .heads = 8, .kv_heads = 2, .head_dim = 64, .ffn = 768,     \
  .vocab = LLM_TINY_VOCAB, .context = 384

#if LLAMA_VARIANT == 1
#include "llama_batch_bf16.h"
#define TABLE kgen_llama_batch_bf16
static const llm_config_t config = {BATCH_SIZES,
                                    .rope_theta = 500000,
                                    .rope_factor = 8,
                                    .rope_low = 1,
                                    .rope_high = 4,
                                    .rope_original = 64,
                                    .fmt = {WW_GGML_BF16, WW_GGML_BF16, WW_GGML_BF16,
                                            WW_GGML_BF16, WW_GGML_BF16, WW_GGML_BF16,
                                            WW_GGML_BF16, WW_GGML_BF16, WW_GGML_BF16}};
static const double nmse_bound = 1e-4;
#elif LLAMA_VARIANT == 3
#include "llama_batch_q8_0.h"
#define TABLE kgen_llama_batch_q8_0
static const llm_config_t config = {BATCH_SIZES, .sliding_window = 16,
                                    .fmt = {WW_GGML_Q8_0, WW_GGML_Q8_0, WW_GGML_Q8_0,
                                            WW_GGML_Q8_0, WW_GGML_Q8_0, WW_GGML_Q8_0,
                                            WW_GGML_Q8_0, WW_GGML_Q8_0, WW_GGML_Q8_0}};
static const double nmse_bound = 1e-6;
#elif LLAMA_VARIANT == 4
#include "llama_batch_q4_k.h"
#define TABLE kgen_llama_batch_q4_k
static const uint32_t q4_k_m_layers[2][LLM_KINDS] = {
    {[LLM_ATTN_V] = WW_GGML_Q6_K, [LLM_FFN_DOWN] = WW_GGML_Q6_K}};
static const llm_config_t config = {BATCH_SIZES, .layer_fmt = q4_k_m_layers,
                                    .fmt = {WW_GGML_Q4_K, WW_GGML_Q6_K, WW_GGML_Q4_K,
                                            WW_GGML_Q4_K, WW_GGML_Q4_K, WW_GGML_Q4_K,
                                            WW_GGML_Q4_K, WW_GGML_Q4_K, WW_GGML_Q4_K}};
static const double nmse_bound = 1e-6;
#else
#error "LLAMA_VARIANT must be 1 (bf16), 3 (q8_0) or 4 (q4_k)"
#endif

/* the table's batch: llama_batch_*.lua */
enum { MAX_T = 64, MAX_B = 8, BLOCKS = 96, BS = 16, MAXB = 384 / BS, GEN = 6, NSEQ = 9 };

#define OK(call)                                                                         \
  do {                                                                                   \
    if ((call) != KGRT_STATUS_OK) {                                                      \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, err.message);        \
      test_failures++;                                                                   \
      goto done;                                                                         \
    }                                                                                    \
  } while (0)

/* A sequence of the test: its prompt, when it is admitted, and its run. */
typedef struct seq {
  int plen, admit;
  int32_t prompt[300];
  kgrt_kv_seq_t *kv;
  llm_ref_t ref;
  int started, fed;     /* prompt tokens fed so far */
  int gen;              /* tokens generated */
  int32_t out[GEN + 1]; /* the tokens it generated */
  int finished;
} seq_t;

static const int plens[NSEQ] = {1, 5, 37, 64, 100, 150, 211, 300, 45};
static const int admits[NSEQ] = {0, 0, 1, 2, 2, 4, 5, 7, 12};

static void make_prompt(seq_t *s, int i) {
  uint32_t r = 12345u + 7919u * (uint32_t)i;
  s->plen = plens[i];
  s->admit = admits[i];
  for (int t = 0; t < s->plen; ++t) {
    r = r * 1664525u + 1013904223u;
    s->prompt[t] = (int32_t)((r >> 8) % LLM_TINY_VOCAB);
  }
}

/* The cache's context so far: fed prompt tokens and generated tokens fed back
 * (the last generated one is fed in the next step). */
static int context_of(const seq_t *s) {
  return s->fed + (s->gen > 0 ? s->gen - 1 : 0);
}

/* Checks one sequence's logits row against its reference after feeding
 * `n` tokens at pos0; token: the device's draw. Returns the reference's
 * best where clear, else -1. */
static int check_row(const char *spec, const char *what, int i, int step,
                     const float *row, const double *want, int32_t token) {
  const int V = config.vocab;
  const double nmse = llm_nmse(row, want, V);
  double gap;
  int best;
  const int sure = llm_token_clear(want, V, nmse_bound, &best, &gap);
  test_checks++;
  if (!(nmse <= nmse_bound))
    TEST_FAIL_("%s %s seq %d step %d: logits NMSE %.3g over %.0e", spec, what, i, step,
               nmse, nmse_bound);
  test_checks++;
  if (sure && token != best)
    TEST_FAIL_("%s %s seq %d step %d: token %d, the reference's %d (margin %.3g)", spec,
               what, i, step, token, best, gap);
  return sure ? best : -1;
}

/* Runs the step in `b` and reads logits [B, V] and next_token [B]. */
static kgrt_status_t run_step(kgrt_model_t *m, const kgrt_batch_t *b, float *logits,
                              int32_t *next, kgrt_error_t *err) {
  const uint32_t B = kgrt_batch_sequences(b);
  kgrt_status_t st;
  if ((st = kgrt_batch_bind(b, m, err)) != KGRT_STATUS_OK ||
      (st = kgrt_model_run(m, err)) != KGRT_STATUS_OK ||
      (st = kgrt_model_get_output(m, "logits", logits,
                                  sizeof(float) * B * (size_t)config.vocab, err)) !=
          KGRT_STATUS_OK)
    return st;
  return kgrt_model_get_output(m, "next_token", next, sizeof(int32_t) * B, err);
}

/* Fills the whole KV cache with NaN. */
static kgrt_status_t poison_cache(kgrt_model_t *m, kgrt_error_t *err) {
  static const char *const names[] = {"k_cache", "v_cache"};
  for (int i = 0; i < 2; ++i) {
    size_t bytes;
    kgrt_status_t st = kgrt_model_tensor_bytes(m, names[i], &bytes, err);
    if (st != KGRT_STATUS_OK)
      return st;
    uint16_t *nan = malloc(bytes);
    if (nan == NULL)
      return KGRT_STATUS_OUT_OF_MEMORY;
    for (size_t e = 0; e < bytes / 2; ++e)
      nan[e] = 0x7fc0; /* bf16's NaN; f16 reads it as a NaN too */
    st = kgrt_model_set_input(m, names[i], nan, bytes, err);
    free(nan);
    if (st != KGRT_STATUS_OK)
      return st;
  }
  return KGRT_STATUS_OK;
}

/* Part 1 (crowd = 1) or 2 (crowd = 0: one sequence a step, in order): runs
 * every sequence to GEN tokens; tokens[i] gets sequence i's. */
static void run_all(const char *spec, kgrt_model_t *m, const llm_model_t *lm, int crowd,
                    int32_t tokens[NSEQ][GEN + 1]) {
  kgrt_error_t err = {0};
  kgrt_kv_pool_t *pool = NULL;
  kgrt_batch_t *b = NULL;
  seq_t *seqs = calloc(NSEQ, sizeof *seqs);
  const int V = config.vocab;
  float *logits = malloc(sizeof(float) * MAX_B * (size_t)V);
  double *want = malloc(sizeof(double) * (size_t)V);
  const char *what = crowd ? "crowd" : "alone";
  int max_used = 0, reused = 0;
  if (seqs == NULL || logits == NULL || want == NULL) {
    TEST_FAIL_("out of memory");
    goto done;
  }
  OK(kgrt_model_reset_state(m, &err));
  OK(poison_cache(m, &err));
  OK(kgrt_kv_pool_create(BLOCKS, BS, MAXB, NULL, &pool, &err));
  OK(kgrt_batch_create(pool, MAX_T, MAX_B, NULL, &b, &err));
  for (int i = 0; i < NSEQ; ++i)
    make_prompt(&seqs[i], i);
  int freed_blocks[BLOCKS] = {0}; /* blocks a finished sequence held */
  for (int step = 0, left = NSEQ; left > 0; ++step) {
    if (step > 400) {
      TEST_FAIL_("%s %s: not done after 400 steps", spec, what);
      goto done;
    }
    kgrt_batch_clear(b);
    int rows[NSEQ], ns[NSEQ], pos0s[NSEQ], budget = MAX_T, active = 0;
    for (int i = 0; i < NSEQ; ++i)
      rows[i] = -1;
    for (int i = 0; i < NSEQ; ++i) {
      seq_t *s = &seqs[i];
      if (s->finished)
        continue;
      /* alone: sequences one after the other, the next once one is done */
      if (!crowd && i > 0 && !seqs[i - 1].finished)
        break;
      if (crowd && (s->admit > step || active == MAX_B))
        continue;
      if (!s->started) {
        OK(kgrt_kv_seq_create(pool, &s->kv, &err));
        if (llm_ref_init(&s->ref, lm) != 0) {
          TEST_FAIL_("out of memory");
          goto done;
        }
        s->started = 1;
      }
      active++;
      int n;
      const int32_t *toks;
      if (s->fed < s->plen) {
        n = s->plen - s->fed < budget ? s->plen - s->fed : budget;
        toks = s->prompt + s->fed;
      } else {
        n = 1;
        toks = &s->out[s->gen - 1];
      }
      if (n == 0 || budget == 0)
        continue;
      const int pos0 = context_of(s);
      OK(kgrt_kv_seq_reserve(s->kv, (uint32_t)(pos0 + n), &err));
      uint32_t nb;
      const int32_t *blk = kgrt_kv_seq_blocks(s->kv, &nb);
      for (uint32_t k = 0; k < nb; ++k)
        reused += freed_blocks[blk[k]];
      uint32_t row;
      OK(kgrt_batch_add(b, s->kv, toks, (uint32_t)n, (uint32_t)pos0, NULL, &row, &err));
      rows[i] = (int)row;
      ns[i] = n;
      pos0s[i] = pos0;
      budget -= n;
    }
    const int used = BLOCKS - (int)kgrt_kv_pool_free_blocks(pool);
    max_used = used > max_used ? used : max_used;
    int32_t next[MAX_B];
    OK(run_step(m, b, logits, next, &err));
    for (int i = 0; i < NSEQ; ++i) {
      seq_t *s = &seqs[i];
      if (rows[i] < 0)
        continue;
      const int32_t *toks = s->fed < s->plen ? s->prompt + s->fed : &s->out[s->gen - 1];
      if (llm_ref_forward(&s->ref, toks, ns[i], pos0s[i], want) != 0) {
        TEST_FAIL_("the reference failed");
        goto done;
      }
      const int32_t tok = next[rows[i]];
      check_row(spec, what, i, step, logits + (size_t)rows[i] * V, want, tok);
      if (s->fed < s->plen)
        s->fed += ns[i];
      if (s->fed < s->plen)
        continue; /* mid-prompt: its draw is not used */
      if (tok < 0 || tok >= V) {
        TEST_FAIL_("%s %s seq %d: token %d outside the vocabulary", spec, what, i, tok);
        goto done;
      }
      s->out[s->gen++] = tok;
      if (s->gen == GEN + 1) {
        uint32_t nb;
        const int32_t *blk = kgrt_kv_seq_blocks(s->kv, &nb);
        for (uint32_t k = 0; k < nb; ++k)
          freed_blocks[blk[k]] = 1;
        kgrt_kv_seq_destroy(s->kv);
        s->kv = NULL;
        llm_ref_free(&s->ref);
        s->finished = 1;
        memcpy(tokens[i], s->out, sizeof s->out);
        left--;
      }
    }
  }
  CHECK_EQ(kgrt_kv_pool_free_blocks(pool), BLOCKS); /* every block back */
  if (crowd) {
    /* the late sequence went into blocks a finished one held */
    test_checks++;
    if (reused == 0)
      TEST_FAIL_("%s crowd: no freed block was reused", spec);
    printf("%s %s: all done, at most %d of %d blocks held, %d freed blocks reused\n",
           spec, what, max_used, BLOCKS, reused);
  }
done:
  for (int i = 0; seqs != NULL && i < NSEQ; ++i)
    if (seqs[i].started && !seqs[i].finished) {
      kgrt_kv_seq_destroy(seqs[i].kv);
      llm_ref_free(&seqs[i].ref);
    }
  kgrt_batch_destroy(b);
  kgrt_kv_pool_destroy(pool);
  free(seqs);
  free(logits);
  free(want);
}

/* Prefills sequence i of a pool (one step of its whole prompt, <= MAX_T)
 * and returns its greedy token. */
static int prefill(kgrt_model_t *m, kgrt_kv_pool_t *pool, kgrt_batch_t *b,
                   kgrt_kv_seq_t **kv, const int32_t *prompt, int n, float *logits,
                   kgrt_error_t *err) {
  int32_t next[MAX_B];
  kgrt_batch_clear(b);
  if (kgrt_kv_seq_create(pool, kv, err) ||
      kgrt_kv_seq_reserve(*kv, (uint32_t)n + 8, err) ||
      kgrt_batch_add(b, *kv, prompt, (uint32_t)n, 0, NULL, NULL, err) ||
      run_step(m, b, logits, next, err))
    return -1;
  return next[0];
}

/* Parts 3 and 4: batch invariance and the device loop. */
static void run_invariance_and_loop(const char *spec, kgrt_model_t *m) {
  kgrt_error_t err = {0};
  kgrt_kv_pool_t *pool = NULL;
  kgrt_batch_t *b = NULL;
  const int V = config.vocab;
  float *logits = malloc(sizeof(float) * MAX_B * (size_t)V);
  float *alone = malloc(sizeof(float) * (size_t)V);
  kgrt_kv_seq_t *kv[8] = {0};
  int32_t tok[8], next[MAX_B];
  static const int lens[8] = {23, 3, 61, 1, 40, 9, 17, 50};
  if (logits == NULL || alone == NULL) {
    TEST_FAIL_("out of memory");
    goto done;
  }
  OK(kgrt_model_reset_state(m, &err));
  OK(kgrt_kv_pool_create(BLOCKS, BS, MAXB, NULL, &pool, &err));
  OK(kgrt_batch_create(pool, MAX_T, MAX_B, NULL, &b, &err));
  for (int i = 0; i < 8; ++i) {
    seq_t s;
    make_prompt(&s, i);
    tok[i] = prefill(m, pool, b, &kv[i], s.prompt, lens[i], logits, &err);
    if (tok[i] < 0) {
      TEST_FAIL_("%s: prefill %d: %s", spec, i, err.message);
      goto done;
    }
  }
  /* sequence 0's decode step alone, among 3 and among 8: the same bytes */
  static const int among3[] = {5, 0, 2}, among8[] = {7, 6, 5, 4, 3, 2, 1, 0};
  const int *sets[] = {NULL, among3, among8};
  const int counts[] = {1, 3, 8};
  for (int k = 0; k < 3; ++k) {
    kgrt_batch_clear(b);
    uint32_t row0 = 0;
    for (int j = 0; j < counts[k]; ++j) {
      const int i = sets[k] ? sets[k][j] : 0;
      uint32_t row;
      OK(kgrt_batch_add(b, kv[i], &tok[i], 1, (uint32_t)lens[i], NULL, &row, &err));
      if (i == 0)
        row0 = row;
    }
    OK(run_step(m, b, logits, next, &err));
    test_checks++;
    if (k == 0)
      memcpy(alone, logits, sizeof(float) * (size_t)V);
    else if (memcmp(alone, logits + (size_t)row0 * V, sizeof(float) * (size_t)V) != 0)
      TEST_FAIL_("%s: sequence 0's logits among %d differ from alone", spec, counts[k]);
    else
      printf("%s: sequence 0's logits the same bytes alone and among %d\n", spec,
             counts[k]);
  }
  /* 5 decode steps of 4 sequences from the host, then the same 5 steps on the
   * device (next_token, next_pos, next_ctx linked back) */
  enum { LOOP = 5, NL = 4 };
  int32_t host[LOOP][NL], dev[LOOP][NL], cur[NL];
  for (int i = 0; i < NL; ++i)
    cur[i] = tok[i];
  for (int st = 0; st < LOOP; ++st) {
    kgrt_batch_clear(b);
    for (int i = 0; i < NL; ++i)
      OK(kgrt_batch_add(b, kv[i], &cur[i], 1, (uint32_t)(lens[i] + st), NULL, NULL,
                        &err));
    OK(run_step(m, b, logits, next, &err));
    for (int i = 0; i < NL; ++i)
      host[st][i] = cur[i] = next[i];
  }
  kgrt_batch_clear(b);
  for (int i = 0; i < NL; ++i)
    OK(kgrt_batch_add(b, kv[i], &tok[i], 1, (uint32_t)lens[i], NULL, NULL, &err));
  OK(kgrt_batch_bind(b, m, &err));
  OK(kgrt_model_link(m, "next_token", "tokens", &err));
  OK(kgrt_model_link(m, "next_pos", "pos", &err));
  OK(kgrt_model_link(m, "next_ctx", "ctx", &err));
  OK(kgrt_model_run_steps(m, LOOP, "next_token", dev, sizeof dev, &err));
  kgrt_model_clear_links(m);
  test_checks++;
  if (memcmp(host, dev, sizeof host) != 0)
    TEST_FAIL_("%s: the device loop's tokens differ from the host-driven steps'", spec);
  else
    printf("%s: device loop of %d steps x %d sequences: the host's tokens\n", spec, LOOP,
           NL);
done:
  for (int i = 0; i < 8; ++i)
    kgrt_kv_seq_destroy(kv[i]);
  kgrt_batch_destroy(b);
  kgrt_kv_pool_destroy(pool);
  free(logits);
  free(alone);
}

/* Part 5: the API's refusals. */
static void run_errors(const char *spec) {
  kgrt_error_t err = {0};
  kgrt_kv_pool_t *pool = NULL, *other = NULL;
  kgrt_batch_t *b = NULL;
  kgrt_kv_seq_t *a = NULL, *c = NULL, *f = NULL, *x = NULL;
  int32_t toks[MAX_T + 1] = {0};
  OK(kgrt_kv_pool_create(4, BS, MAXB, NULL, &pool, &err));
  OK(kgrt_kv_pool_create(4, BS, MAXB, NULL, &other, &err));
  OK(kgrt_batch_create(pool, MAX_T, 2, NULL, &b, &err));
  OK(kgrt_kv_seq_create(pool, &a, &err));
  /* past a sequence's blocks */
  CHECK_EQ(kgrt_kv_seq_reserve(a, MAXB * BS + 1, &err), KGRT_STATUS_OUT_OF_RANGE);
  /* past the pool's free blocks, all or none */
  CHECK_EQ(kgrt_kv_seq_reserve(a, 5 * BS, &err), KGRT_STATUS_OUT_OF_MEMORY);
  CHECK_EQ(kgrt_kv_pool_free_blocks(pool), 4);
  OK(kgrt_kv_seq_reserve(a, 2 * BS, &err));
  /* a position past the sequence's blocks */
  CHECK_EQ(kgrt_batch_add(b, a, toks, 2, 2 * BS - 1, NULL, NULL, &err),
           KGRT_STATUS_OUT_OF_RANGE);
  CHECK(strstr(err.message, "kgrt_kv_seq_reserve") != NULL);
  /* a sequence of another pool; no tokens; twice in a step */
  OK(kgrt_kv_seq_create(other, &x, &err));
  CHECK_EQ(kgrt_batch_add(b, x, toks, 1, 0, NULL, NULL, &err),
           KGRT_STATUS_INVALID_ARGUMENT);
  CHECK_EQ(kgrt_batch_add(b, a, toks, 0, 0, NULL, NULL, &err),
           KGRT_STATUS_INVALID_ARGUMENT);
  OK(kgrt_batch_add(b, a, toks, 1, 0, NULL, NULL, &err));
  CHECK_EQ(kgrt_batch_add(b, a, toks, 1, 1, NULL, NULL, &err),
           KGRT_STATUS_INVALID_ARGUMENT);
  /* past the step's sequences, and its tokens */
  OK(kgrt_kv_seq_create(pool, &c, &err));
  OK(kgrt_kv_seq_reserve(c, BS, &err));
  OK(kgrt_batch_add(b, c, toks, 1, 0, NULL, NULL, &err));
  CHECK_EQ(kgrt_batch_add(b, c, toks, 1, 1, NULL, NULL, &err),
           KGRT_STATUS_INVALID_ARGUMENT);
  kgrt_batch_clear(b);
  CHECK_EQ(kgrt_batch_add(b, a, toks, MAX_T + 1, 0, NULL, NULL, &err),
           KGRT_STATUS_OUT_OF_RANGE);
  /* a fork shares a's first full block: its positions there are refused */
  OK(kgrt_kv_seq_fork(a, BS + 3, &f, &err));
  CHECK_EQ(kgrt_kv_seq_shared(f), BS);
  CHECK_EQ(kgrt_kv_pool_free_blocks(pool), 1);
  OK(kgrt_kv_seq_reserve(f, BS + 4, &err));
  CHECK_EQ(kgrt_batch_add(b, f, toks, 4, BS - 1, NULL, NULL, &err),
           KGRT_STATUS_OUT_OF_RANGE);
  OK(kgrt_batch_add(b, f, toks, 4, BS, NULL, NULL, &err));
  /* the shared block goes back with its last holder */
  kgrt_kv_seq_destroy(a);
  a = NULL;
  CHECK_EQ(kgrt_kv_pool_free_blocks(pool), 1);
  kgrt_kv_seq_destroy(f);
  f = NULL;
  CHECK_EQ(kgrt_kv_pool_free_blocks(pool), 3);
  printf("%s: the paged API's refusals checked\n", spec);
done:
  kgrt_kv_seq_destroy(a);
  kgrt_kv_seq_destroy(c);
  kgrt_kv_seq_destroy(f);
  kgrt_kv_seq_destroy(x);
  kgrt_batch_destroy(b);
  kgrt_kv_pool_destroy(pool);
  kgrt_kv_pool_destroy(other);
}

static void run_device(const char *spec, const char *path, const llm_model_t *lm) {
  kgrt_error_t err = {0};
  kgrt_device_t *dev = NULL;
  kgrt_model_t *m = NULL;
  kgrt_weights_t *w = NULL;
  static int32_t crowd[NSEQ][GEN + 1], alone[NSEQ][GEN + 1];
  OK(kgrt_device_open(spec, NULL, &dev, &err));
  OK(kgrt_model_load(dev, &TABLE, &m, &err));
  OK(kgrt_weights_open(path, NULL, &w, &err));
  OK(kgrt_model_bind_weights(m, w, KGRT_BIND_REFUSE_UNUSED, &err));
  kgrt_weights_close(w);
  w = NULL;
  run_all(spec, m, lm, 1, crowd);
  run_all(spec, m, lm, 0, alone);
  for (int i = 0; i < NSEQ; ++i) {
    test_checks++;
    if (memcmp(crowd[i], alone[i], sizeof crowd[i]) != 0)
      TEST_FAIL_("%s seq %d: greedy tokens in the crowd differ from alone", spec, i);
  }
  run_invariance_and_loop(spec, m);
  run_errors(spec);
done:
  kgrt_weights_close(w);
  kgrt_model_unload(m);
  kgrt_device_close(dev);
}

int main(int argc, char **argv) {
  char path[] = "/tmp/kgen_test_llama_batch_XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) {
    perror("mkstemp");
    return 1;
  }
  close(fd);
  llm_model_t lm;
  if (llm_model_init(&lm, &config, 1) != 0 || llm_model_write_gguf(&lm, path) != 0) {
    fprintf(stderr, "test_llama_batch: cannot write the model to %s\n", path);
    unlink(path);
    return 1;
  }
  const char *defaults[] = {"sim:gfx1100", "sim:gfx942"};
  if (argc > 1)
    for (int i = 1; i < argc; ++i)
      run_device(argv[i], path, &lm);
  else
    for (int i = 0; i < 2; ++i)
      run_device(defaults[i], path, &lm);
  unlink(path);
  llm_model_free(&lm);
  return TEST_DONE();
}
