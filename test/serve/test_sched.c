/* test_sched.c - kgen-serve's scheduler (serve/kgs_sched.h) without HTTP,
 * stepped by hand on the tiny batched Llama (serve/tiny_llama_batch.lua) on
 * the sim, and its text and prefix parts alone:
 *   1. stop strings (text.c): a stop string split across pieces, held text
 *      that turns out not to be one, the earliest of several;
 *   2. the prefix cache (prefix.c) on a pool alone: the longest whole-block
 *      match, a fork that shares the blocks, eviction giving them back;
 *   3. preemption: 3 requests whose blocks outgrow a pool of 5: the newest
 *      is preempted and recomputed, and each gets the tokens it gets alone
 *      (steps of 4 tokens: the matmuls' GEMV and the attention's decode
 *      path, the same bits in any crowd);
 *   4. the prefix cache in the scheduler: a prompt repeated shares its
 *      blocks (a hit) and gives the same tokens;
 *   5. cancellation frees a running request's blocks at the next step; a
 *      stop string and max_tokens end requests; the refusals: a prompt past
 *      the context, max_tokens 0, a token outside the vocabulary, a full
 *      queue (UNAVAILABLE), a closed scheduler (FAILED_PRECONDITION);
 *   and after each part every block is back (free or kept by the cache).
 * Usage: test_sched MODEL.gguf [DEVICE] (make_tiny_llama's file). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kgrt_weights.h"
#include "kgs_sched.h"
#include "prefix.h"
#include "test.h"
#include "text.h"
#include "tiny_llama_batch.h"

enum { MAX_GEN = 32 };

static void test_stop(void) {
  kgs_stop_t s = {0};
  kgs_buf_t out = {0};
  CHECK_EQ(kgs_stop_add(&s, "END", 3), 0);
  CHECK_EQ(kgs_stop_add(&s, "\n\n", 2), 0);
  CHECK_EQ(kgs_stop_add(&s, "", 0), -1);
  CHECK_EQ(kgs_stop_feed(&s, "hello E", 7, &out), 0);
  CHECK_STR(out.p, "hello "); /* "E" may start END: held */
  CHECK_EQ(kgs_stop_feed(&s, "Nd", 2, &out), 0);
  CHECK_STR(out.p, "hello ENd"); /* it did not */
  CHECK_EQ(kgs_stop_feed(&s, " EN", 3, &out), 0);
  CHECK_EQ(kgs_stop_feed(&s, "D tail", 6, &out), 1);
  CHECK_STR(out.p, "hello ENd "); /* cut before the stop string, the rest dropped */
  kgs_stop_free(&s);
  kgs_buf_free(&out);
  /* the earliest of two; flush gives back held text */
  CHECK_EQ(kgs_stop_add(&s, "cd", 2), 0);
  CHECK_EQ(kgs_stop_add(&s, "b", 1), 0);
  CHECK_EQ(kgs_stop_feed(&s, "abcd", 4, &out), 1);
  CHECK_STR(out.p, "a");
  kgs_stop_free(&s);
  kgs_buf_free(&out);
  CHECK_EQ(kgs_stop_add(&s, "xyz", 3), 0);
  CHECK_EQ(kgs_stop_feed(&s, "axy", 3, &out), 0);
  CHECK_STR(out.p, "a");
  CHECK_EQ(kgs_stop_flush(&s, &out), 0);
  CHECK_STR(out.p, "axy");
  kgs_stop_free(&s);
  kgs_buf_free(&out);
}

static void test_prefix(void) {
  kgrt_error_t err = {0};
  kgrt_kv_pool_t *pool = NULL;
  kgs_prefix_t *p = NULL;
  kgrt_kv_seq_t *a = NULL, *b = NULL, *c = NULL;
  int32_t toks[64];
  for (int i = 0; i < 64; ++i)
    toks[i] = 100 + i;
  CHECK_EQ(kgrt_kv_pool_create(8, 16, 16, NULL, &pool, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgs_prefix_create(pool, 4, 256, &p, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_kv_seq_create(pool, &a, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_kv_seq_reserve(a, 40, &err), KGRT_STATUS_OK);        /* 3 blocks */
  CHECK_EQ(kgs_prefix_insert(p, a, toks, 40, &err), KGRT_STATUS_OK); /* 2 whole */
  CHECK_EQ(kgs_prefix_entries(p), 1);
  /* a prompt that starts with the same 20 tokens: one whole block */
  int32_t other[40];
  memcpy(other, toks, sizeof other);
  other[20] = 7;
  uint32_t shared = 99;
  CHECK_EQ(kgs_prefix_lookup(p, other, 40, 39, &b, &shared, &err), KGRT_STATUS_OK);
  CHECK_EQ(shared, 16);
  CHECK(b != NULL && kgrt_kv_seq_shared(b) == 16);
  uint32_t na, nb;
  const int32_t *ba = kgrt_kv_seq_blocks(a, &na), *bb = kgrt_kv_seq_blocks(b, &nb);
  CHECK(nb == 1 && ba[0] == bb[0]);
  /* the same prompt, at most 31 tokens asked for: one block again */
  CHECK_EQ(kgs_prefix_lookup(p, toks, 40, 31, &c, &shared, &err), KGRT_STATUS_OK);
  CHECK_EQ(shared, 16);
  kgrt_kv_seq_destroy(c);
  c = NULL;
  /* no match: a different first token */
  other[0] = 1;
  CHECK_EQ(kgs_prefix_lookup(p, other, 40, 39, &c, &shared, &err), KGRT_STATUS_OK);
  CHECK(c == NULL && shared == 0);
  /* a and b go; the entry keeps a's two blocks until it is evicted */
  kgrt_kv_seq_destroy(a);
  kgrt_kv_seq_destroy(b);
  a = b = NULL;
  CHECK_EQ(kgrt_kv_pool_free_blocks(pool), 6);
  CHECK_EQ(kgs_prefix_evict(p), 1);
  CHECK_EQ(kgs_prefix_evict(p), 0);
  CHECK_EQ(kgrt_kv_pool_free_blocks(pool), 8);
  kgs_prefix_destroy(p);
  kgrt_kv_pool_destroy(pool);
}

typedef struct run {
  kgs_req_t *req;
  int32_t toks[MAX_GEN];
  uint32_t n;
  kgs_finish_t finish;
  char text[512];
} run_t;

static kgs_params_t params(const int32_t *prompt, uint32_t n, uint32_t max_tokens) {
  return (kgs_params_t){.prompt = prompt,
                        .n_prompt = n,
                        .max_tokens = max_tokens,
                        .ignore_eos = 1,
                        .logprobs = -1};
}

/* Steps until every run is done (at most `steps` steps); reads their
 * tokens and text. */
static int drain(kgs_sched_t *s, run_t *runs, int n, int steps) {
  kgrt_error_t err = {0};
  for (int i = 0; i < steps && kgs_sched_pending(s) > 0; ++i)
    if (kgs_sched_step(s, 0, &err) != KGRT_STATUS_OK) {
      TEST_FAIL_("a step failed: %s", err.message);
      return -1;
    }
  for (int i = 0; i < n; ++i) {
    kgs_progress_t p;
    const size_t t =
        kgs_req_wait(runs[i].req, 0, 0, 0, runs[i].text, sizeof runs[i].text - 1, &p);
    runs[i].text[t] = 0;
    runs[i].finish = p.finish;
    runs[i].n = kgs_req_tokens(runs[i].req, 0, MAX_GEN, runs[i].toks);
  }
  return kgs_sched_pending(s) == 0 ? 0 : -1;
}

static void check_pool(kgs_sched_t *s, const char *when) {
  kgs_stats_t st;
  kgs_sched_stats(s, &st);
  test_checks++;
  if (st.kv_in_use != 0 || st.kv_free + st.kv_cached != st.kv_blocks)
    TEST_FAIL_("%s: %u blocks in use, %u free, %u cached of %u", when, st.kv_in_use,
               st.kv_free, st.kv_cached, st.kv_blocks);
}

static void make_prompt(int32_t *p, int n, int seed) {
  uint32_t r = 977u * (uint32_t)seed + 1;
  p[0] = 1; /* BOS */
  for (int i = 1; i < n; ++i) {
    r = r * 1664525u + 1013904223u;
    p[i] = 260 + (int32_t)((r >> 8) % 700);
  }
}

static void test_sched(kgrt_model_t *m, const llm_tokenizer_t *tok) {
  kgrt_error_t err = {0};
  kgs_sched_t *s = NULL;
  const kgs_config_t cfg = {.block_size = 16,
                            .max_seqs = 4,
                            .step_tokens = 4,
                            .kv_blocks = 5,
                            .max_queue = 4,
                            .prefix_entries = 4};
  if (kgs_sched_create(m, &kgen_tiny_llama_batch, tok, &cfg, &s, &err) !=
      KGRT_STATUS_OK) {
    TEST_FAIL_("kgs_sched_create: %s", err.message);
    return;
  }
  /* 3: alone, then together: 13 + 16 tokens each, 2 blocks each, 5 in all */
  enum { N = 3 };
  static const int lens[N] = {13, 11, 9};
  int32_t prompts[N][16];
  run_t alone[N] = {0}, crowd[N] = {0};
  for (int i = 0; i < N; ++i) {
    make_prompt(prompts[i], lens[i], i);
    const kgs_params_t p = params(prompts[i], lens[i], 16);
    CHECK_EQ(kgs_sched_submit(s, &p, &alone[i].req, &err), KGRT_STATUS_OK);
    CHECK_EQ(drain(s, &alone[i], 1, 100), 0);
  }
  kgs_stats_t st0, st1;
  kgs_sched_stats(s, &st0);
  for (int i = 0; i < N; ++i) {
    const kgs_params_t p = params(prompts[i], lens[i], 16);
    CHECK_EQ(kgs_sched_submit(s, &p, &crowd[i].req, &err), KGRT_STATUS_OK);
  }
  CHECK_EQ(drain(s, crowd, N, 200), 0);
  kgs_sched_stats(s, &st1);
  test_checks++;
  if (st1.preempted == st0.preempted)
    TEST_FAIL_("preemption: 3 requests of 2 blocks in a pool of 5 preempted none");
  for (int i = 0; i < N; ++i) {
    CHECK_EQ(crowd[i].n, 16);
    CHECK_EQ(crowd[i].finish, KGS_FINISH_LENGTH);
    test_checks++;
    if (crowd[i].n != alone[i].n ||
        memcmp(crowd[i].toks, alone[i].toks, sizeof(int32_t) * alone[i].n) != 0)
      TEST_FAIL_("preemption: request %d's tokens differ from alone", i);
    CHECK_STR(crowd[i].text, alone[i].text);
    kgs_req_release(alone[i].req);
    kgs_req_release(crowd[i].req);
  }
  printf("preemption: %llu preempted; the tokens of each alone\n",
         (unsigned long long)(st1.preempted - st0.preempted));
  check_pool(s, "after preemption");

  /* 4: a prompt of 2 whole blocks and more, twice: the second shares them */
  int32_t longp[40];
  make_prompt(longp, 40, 9);
  run_t first = {0}, again = {0};
  kgs_params_t p = params(longp, 40, 3);
  CHECK_EQ(kgs_sched_submit(s, &p, &first.req, &err), KGRT_STATUS_OK);
  CHECK_EQ(drain(s, &first, 1, 100), 0);
  kgs_sched_stats(s, &st0);
  CHECK_EQ(kgs_sched_submit(s, &p, &again.req, &err), KGRT_STATUS_OK);
  CHECK_EQ(drain(s, &again, 1, 100), 0);
  kgs_sched_stats(s, &st1);
  CHECK_EQ(st1.prefix_hits - st0.prefix_hits, 1);
  CHECK_EQ(st1.cached_tokens - st0.cached_tokens, 32);
  CHECK(first.n == 3 && memcmp(first.toks, again.toks, sizeof(int32_t) * 3) == 0);
  kgs_req_release(first.req);
  kgs_req_release(again.req);
  check_pool(s, "after the prefix hit");

  /* 5: a cancelled request's blocks go back at the next step */
  run_t c = {0};
  p = params(prompts[0], lens[0], 30);
  CHECK_EQ(kgs_sched_submit(s, &p, &c.req, &err), KGRT_STATUS_OK);
  for (int i = 0; i < 6; ++i)
    CHECK_EQ(kgs_sched_step(s, 0, &err), KGRT_STATUS_OK);
  kgs_sched_stats(s, &st0);
  CHECK(st0.kv_in_use > 0);
  kgs_req_cancel(c.req);
  CHECK_EQ(kgs_sched_step(s, 0, &err), KGRT_STATUS_OK);
  CHECK_EQ(drain(s, &c, 1, 0), 0);
  CHECK_EQ(c.finish, KGS_FINISH_CANCELLED);
  kgs_req_release(c.req);
  check_pool(s, "after a cancel");
  /* a stop string: the text is alone's cut before it (alone[0]'s text) */
  const char *text = alone[0].text;
  const size_t tl = strlen(text);
  if (tl >= 6) {
    const char *stop = text + tl / 2;
    const size_t sl = 2;
    const size_t cut = (size_t)((const char *)memmem(text, tl, stop, sl) - text);
    const char *stops[] = {stop};
    p = params(prompts[0], lens[0], 16);
    p.stop = stops;
    p.stop_len = &sl;
    p.n_stop = 1;
    run_t r = {0};
    CHECK_EQ(kgs_sched_submit(s, &p, &r.req, &err), KGRT_STATUS_OK);
    CHECK_EQ(drain(s, &r, 1, 100), 0);
    CHECK_EQ(r.finish, KGS_FINISH_STOP);
    CHECK_EQ(strlen(r.text), cut);
    CHECK(strncmp(r.text, text, cut) == 0);
    kgs_req_release(r.req);
  }
  /* refusals */
  int32_t big[300] = {0};
  kgs_req_t *x = NULL;
  p = params(big, 256, 1);
  CHECK_EQ(kgs_sched_submit(s, &p, &x, &err), KGRT_STATUS_OUT_OF_RANGE);
  p = params(prompts[0], lens[0], 0);
  CHECK_EQ(kgs_sched_submit(s, &p, &x, &err), KGRT_STATUS_OUT_OF_RANGE);
  p = params(prompts[0], lens[0], 250);
  CHECK_EQ(kgs_sched_submit(s, &p, &x, &err), KGRT_STATUS_OUT_OF_RANGE);
  big[0] = 1000;
  p = params(big, 3, 1);
  CHECK_EQ(kgs_sched_submit(s, &p, &x, &err), KGRT_STATUS_OUT_OF_RANGE);
  kgs_req_t *q[5] = {0};
  p = params(prompts[0], lens[0], 1);
  for (int i = 0; i < 4; ++i)
    CHECK_EQ(kgs_sched_submit(s, &p, &q[i], &err), KGRT_STATUS_OK);
  CHECK_EQ(kgs_sched_submit(s, &p, &q[4], &err), KGRT_STATUS_UNAVAILABLE);
  kgs_sched_cancel_all(s);
  CHECK_EQ(kgs_sched_step(s, 0, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgs_sched_pending(s), 0);
  for (int i = 0; i < 4; ++i)
    kgs_req_release(q[i]);
  kgs_sched_close(s);
  CHECK_EQ(kgs_sched_submit(s, &p, &x, &err), KGRT_STATUS_FAILED_PRECONDITION);
  check_pool(s, "at the end");
  kgs_sched_destroy(s);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_sched MODEL.gguf [DEVICE]\n");
    return 1;
  }
  test_stop();
  test_prefix();
  kgrt_error_t err = {0};
  kgrt_device_t *dev = NULL;
  kgrt_model_t *m = NULL;
  kgrt_weights_t *w = NULL;
  llm_tokenizer_t tok = {0};
  char why[256];
  if (kgrt_weights_open(argv[1], NULL, &w, &err) != KGRT_STATUS_OK ||
      llm_tokenizer_load(&tok, w, why, sizeof why) != 0 ||
      kgrt_device_open(argc > 2 ? argv[2] : "sim:gfx1100", NULL, &dev, &err) !=
          KGRT_STATUS_OK ||
      kgrt_model_load(dev, &kgen_tiny_llama_batch, &m, &err) != KGRT_STATUS_OK ||
      kgrt_model_bind_weights(m, w, 0, &err) != KGRT_STATUS_OK) {
    fprintf(stderr, "test_sched: %s: %s\n", argv[1], err.message);
    return 1;
  }
  test_sched(m, &tok);
  kgrt_model_unload(m);
  kgrt_device_close(dev);
  llm_tokenizer_free(&tok);
  kgrt_weights_close(w);
  return TEST_DONE();
}
