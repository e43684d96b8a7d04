/* llama_batch.c - batched decode of a whole Llama model (lua/models/llama.lua's
 * `batch`: many sequences a step over a paged KV cache) on a device, random
 * weights at Llama-3-8B shapes (models/llama3_8b_batch.lua, bf16;
 * llama3_8b_q4_0_batch.lua, Q4_0), as llama.cpp's llama-batched-bench
 * measures it (-npp 512 -ntg 128):
 *   1. copy bandwidth of the same run (models/copy_16384x8192.lua): the
 *      roofline's denominator;
 *   2. 128 sequences prefilled with 512 random tokens each, one 512-token
 *      step a sequence (kgrt_paged.h), host wall clock: prefill tokens/s;
 *   3. for B in 1, 8, 32, 64, 128: the first B sequences decode from
 *      position 512 as a device-resident loop (next_token, next_pos and
 *      next_ctx linked back; kgrt_model_run_steps), 4 steps of warm-up
 *      then 128 timed (host wall clock): output tokens/s (B x 128 / time),
 *      the step time, and the step's roofline: the bytes of every weight
 *      read once plus each sequence's K and V at the mean context (576),
 *      over the copy bandwidth, or the matmul FLOPs over `gemm_tflops`
 *      (argument; default 700) where that is larger;
 *   4. kgrt_model_profile of one decode step at B = 64 (and 8): each
 *      kernel's summed device time;
 *   5. steps as a server mixes them (kgen-serve: decoding sequences and a
 *      prompt chunk of another in one step): 64 sequences decoding beside
 *      a chunk of C tokens at position 256 of a new sequence, the same
 *      with the count D set to 0 (every token on the attention's flash
 *      path, as before decode_tokens: "flash_all"), and the chunk alone,
 *      C in 184, 256 (a server's steady state at 512-token prompts and 128
 *      outputs: 4 prompt tokens for each decode token) and 447 (64 + 448 =
 *      512 the table's T): the
 *      first run (graph capture), the mean of 8 replays (host wall clock),
 *      steps alternating between C and C + 1 tokens (a new graph each step)
 *      with graph replay on and off, and profiles of the 184-token steps.
 * Usage: llama_batch SPEC [MODEL...] [--gemm-tflops X] (MODEL:
 * llama3_8b_batch, llama3_8b_q4_0_batch; default both). Prints JSON
 * lines. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "copy_16384x8192.h"
#include "kgrt.h"
#include "kgrt_paged.h"
#include "llama3_8b_batch.h"
#include "llama3_8b_q4_0_batch.h"
#include "llama_bench.h"

/* the tables' batch: models/llama3_8b_*batch.lua */
enum {
  SEQS = 128,
  BLOCKS = 5632,
  BS = 16,
  MAXB = 1024 / BS,
  CHUNK = 512,
  PROMPT = 512,
  GEN = 128,
  WARM = 4,
  PROFILE_CAP = 4096
};
static const int batches[] = {1, 8, 32, 64, 128};

static const struct {
  const char *name;
  const kgrt_model_table_t *table;
} models[] = {
    {"llama3_8b_batch", &kgen_llama3_8b_batch},
    {"llama3_8b_q4_0_batch", &kgen_llama3_8b_q4_0_batch},
};
/* Llama-3-8B: layers, KV heads, head dim (K and V in bf16) */
enum { LAYERS = 32, KVH = 8, HD = 128 };

#define OK(call)                                                                         \
  do {                                                                                   \
    kgrt_status_t st_ = (call);                                                          \
    if (st_ != KGRT_STATUS_OK) {                                                         \
      fprintf(stderr, "llama_batch: %s: %s: %s\n", #call, kgrt_status_name(st_),         \
              err.message);                                                              \
      goto done;                                                                         \
    }                                                                                    \
  } while (0)

/* Each kernel's summed device time over one run of the plan (5 reps). */
static void print_profile(kgrt_model_t *m, const char *name, int batch) {
  kgrt_error_t err;
  uint32_t n = 0;
  kgrt_step_profile_t *prof = calloc(PROFILE_CAP, sizeof *prof);
  if (prof == NULL ||
      kgrt_model_profile(m, 5, prof, PROFILE_CAP, &n, &err) != KGRT_STATUS_OK) {
    free(prof);
    return;
  }
  const char *names[64];
  double us[64] = {0}, total = 0;
  int kinds = 0;
  for (uint32_t i = 0; i < n; ++i) {
    if (!prof[i].launched)
      continue;
    int k = 0;
    while (k < kinds && strcmp(names[k], prof[i].kernel) != 0)
      ++k;
    if (k == kinds && kinds < 64)
      names[kinds++] = prof[i].kernel;
    if (k < kinds)
      us[k] += prof[i].us;
    total += prof[i].us;
  }
  printf("{\"kind\": \"profile\", \"model\": \"%s\", \"batch\": %d, \"sum_us\": %.1f}\n",
         name, batch, total);
  for (int k = 0; k < kinds; ++k)
    printf("{\"kind\": \"profile_kernel\", \"model\": \"%s\", \"batch\": %d, \"kernel\": "
           "\"%s\", \"us\": %.1f}\n",
           name, batch, names[k], us[k]);
  fflush(stdout);
  free(prof);
}

/* 5.: mixed steps, decoding sequences (seqs[0..decode), each one token at
 * PROMPT + 64) beside a chunk of `chunk` tokens at MIX_POS of `extra`. With
 * `flash_all` the count D is set to 0 after the bind: every token on the
 * attention's flash path, as before the decode path took the decoding
 * sequences of a mixed step (lua/ops/attention.lua's decode_tokens). */
enum { MIX_POS = 256, MIX_RUNS = 8 };
static int flash_all;
static kgrt_status_t bind_mixed(kgrt_model_t *m, kgrt_batch_t *step, kgrt_kv_seq_t **seqs,
                                const int32_t *first, int decode, kgrt_kv_seq_t *extra,
                                int chunk, kgrt_error_t *err) {
  static int32_t tokens[CHUNK];
  for (int i = 0; i < chunk; ++i)
    tokens[i] = (int32_t)(next() % 128256);
  kgrt_batch_clear(step);
  for (int s = 0; s < decode; ++s) {
    kgrt_status_t st =
        kgrt_batch_add(step, seqs[s], &first[s], 1, PROMPT + 64, NULL, NULL, err);
    if (st != KGRT_STATUS_OK)
      return st;
  }
  if (chunk > 0) {
    kgrt_status_t st =
        kgrt_batch_add(step, extra, tokens, (uint32_t)chunk, MIX_POS, NULL, NULL, err);
    if (st != KGRT_STATUS_OK)
      return st;
  }
  kgrt_status_t st = kgrt_batch_bind(step, m, err);
  if (st == KGRT_STATUS_OK && flash_all)
    st = kgrt_model_set_dim(m, "D", 0, err);
  return st;
}

/* The step at (decode, chunk): its first run (a graph captured and
 * instantiated), its mean over MIX_RUNS replays, and the mean over MIX_RUNS
 * steps that alternate between chunk and chunk + 1 tokens, as a server's
 * steps change shape (each a capture and a graph update), with graph replay
 * on and off; a profile of the step where `profile`. */
static void mixed_step(kgrt_model_t *m, const char *name, kgrt_batch_t *step,
                       kgrt_kv_seq_t **seqs, const int32_t *first, int decode,
                       kgrt_kv_seq_t *extra, int chunk, int profile) {
  kgrt_error_t err = {0};
  double ms[4] = {0};
  /* next_token: one a sequence of the step */
  static int32_t tok[SEQS + 1];
  const size_t tok_bytes = sizeof tok[0] * (size_t)(decode + 1);
  OK(bind_mixed(m, step, seqs, first, decode, extra, chunk, &err));
  double t0 = now_s();
  OK(kgrt_model_run(m, &err));
  OK(kgrt_model_get_output(m, "next_token", tok, tok_bytes, &err));
  ms[0] = (now_s() - t0) * 1e3;
  t0 = now_s();
  for (int r = 0; r < MIX_RUNS; ++r)
    OK(kgrt_model_run(m, &err));
  OK(kgrt_model_get_output(m, "next_token", tok, tok_bytes, &err));
  ms[1] = (now_s() - t0) / MIX_RUNS * 1e3;
  for (int replay = 1; replay >= 0; --replay) {
    OK(kgrt_model_set_replay(m, replay, &err));
    t0 = now_s();
    for (int r = 0; r < MIX_RUNS; ++r) {
      OK(bind_mixed(m, step, seqs, first, decode, extra, chunk + r % 2, &err));
      OK(kgrt_model_run(m, &err));
    }
    OK(kgrt_model_get_output(m, "next_token", tok, tok_bytes, &err));
    ms[3 - replay] = (now_s() - t0) / MIX_RUNS * 1e3;
  }
  OK(kgrt_model_set_replay(m, 1, &err));
  printf(
      "{\"kind\": \"mixed\", \"model\": \"%s\", \"decode\": %d, \"chunk\": %d, "
      "\"flash_all\": %d, \"first_ms\": %.3f, \"step_ms\": %.3f, "
      "\"alternating_ms\": %.3f, \"alternating_no_replay_ms\": %.3f, \"tok_s\": %.0f}\n",
      name, decode, chunk, flash_all, ms[0], ms[1], ms[2], ms[3],
      (decode + chunk) / ms[1] * 1e3);
  fflush(stdout);
  if (profile) {
    OK(bind_mixed(m, step, seqs, first, decode, extra, chunk, &err));
    print_profile(m, name, decode + chunk);
  }
done:
  return;
}

static void bench_mixed(kgrt_model_t *m, const char *name, kgrt_kv_pool_t *pool,
                        kgrt_batch_t *step, kgrt_kv_seq_t **seqs, const int32_t *first) {
  kgrt_error_t err = {0};
  kgrt_kv_seq_t *extra = NULL;
  OK(kgrt_kv_seq_create(pool, &extra, &err));
  OK(kgrt_kv_seq_reserve(extra, MIX_POS + CHUNK, &err));
  static const int chunks[] = {184, 256, 447};
  for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; ++c) {
    mixed_step(m, name, step, seqs, first, 64, extra, chunks[c], c == 0);
    flash_all = 1; /* the same step as before decode_tokens */
    mixed_step(m, name, step, seqs, first, 64, extra, chunks[c], 0);
    flash_all = 0;
    mixed_step(m, name, step, seqs, first, 0, extra, chunks[c], c == 0);
  }
done:
  kgrt_kv_seq_destroy(extra);
}

static void bench_model(kgrt_device_t *dev, int which, double copy_gbps, double tflops) {
  const kgrt_model_table_t *t = models[which].table;
  const char *name = models[which].name;
  kgrt_error_t err = {0};
  kgrt_model_t *m = NULL;
  kgrt_kv_pool_t *pool = NULL;
  kgrt_batch_t *step = NULL;
  kgrt_kv_seq_t *seqs[SEQS] = {0};
  unsigned char *buf = NULL;
  double weight_bytes = 0, flops_per_token = 0;
  kgrt_memory_t mem;
  OK(kgrt_model_memory(dev, t, &mem, &err));
  printf("{\"kind\": \"memory\", \"model\": \"%s\", \"total_GB\": %.2f, \"weights_GB\": "
         "%.2f, \"state_GB\": %.2f}\n",
         name, (double)mem.total / 1e9, (double)mem.weights / 1e9,
         (double)mem.state / 1e9);
  fflush(stdout);
  OK(kgrt_model_load(dev, t, &m, &err));
  for (uint32_t i = 0; i < t->num_weights; ++i) {
    const kgrt_tensor_info_t *w = &t->weights[i];
    size_t bytes = 0;
    OK(kgrt_model_tensor_bytes(m, w->name, &bytes, &err));
    free(buf);
    buf = malloc(bytes);
    if (buf == NULL) {
      fprintf(stderr, "llama_batch: out of host memory\n");
      goto done;
    }
    fill(w->dtype, buf, bytes);
    OK(kgrt_model_set_weight(m, w->name, buf, bytes, &err));
    const int embd = strcmp(w->name, "token_embd_weight") == 0;
    if (!embd)
      weight_bytes += (double)bytes;
    if (w->rank == 2 && !embd)
      flops_per_token +=
          2.0 * (double)dim_value(t, w->dims[0]) * (double)dim_value(t, w->dims[1]);
  }
  free(buf);
  buf = NULL;
  OK(kgrt_kv_pool_create(BLOCKS, BS, MAXB, NULL, &pool, &err));
  OK(kgrt_batch_create(pool, CHUNK, SEQS, NULL, &step, &err));

  /* prefill: a 512-token step a sequence */
  static int32_t prompt[PROMPT], first[SEQS];
  double t0 = now_s();
  for (int s = 0; s < SEQS; ++s) {
    for (int i = 0; i < PROMPT; ++i)
      prompt[i] = (int32_t)(next() % 128256);
    OK(kgrt_kv_seq_create(pool, &seqs[s], &err));
    OK(kgrt_kv_seq_reserve(seqs[s], PROMPT + WARM + GEN, &err));
    kgrt_batch_clear(step);
    OK(kgrt_batch_add(step, seqs[s], prompt, PROMPT, 0, NULL, NULL, &err));
    OK(kgrt_batch_bind(step, m, &err));
    OK(kgrt_model_run(m, &err));
    OK(kgrt_model_get_output(m, "next_token", &first[s], sizeof first[s], &err));
  }
  double dt = now_s() - t0;
  printf("{\"kind\": \"prefill\", \"model\": \"%s\", \"sequences\": %d, \"tokens\": %d, "
         "\"s\": %.2f, \"tok_s\": %.0f}\n",
         name, SEQS, PROMPT, dt, SEQS * PROMPT / dt);
  fflush(stdout);

  /* decode from 512, B sequences a step, on the device */
  static int32_t out[(WARM + GEN) * SEQS];
  for (size_t bi = 0; bi < sizeof batches / sizeof batches[0]; ++bi) {
    const int B = batches[bi];
    kgrt_batch_clear(step);
    for (int s = 0; s < B; ++s)
      OK(kgrt_batch_add(step, seqs[s], &first[s], 1, PROMPT, NULL, NULL, &err));
    OK(kgrt_batch_bind(step, m, &err));
    OK(kgrt_model_link(m, "next_token", "tokens", &err));
    OK(kgrt_model_link(m, "next_pos", "pos", &err));
    OK(kgrt_model_link(m, "next_ctx", "ctx", &err));
    OK(kgrt_model_run_steps(m, WARM, "next_token", out, sizeof(int32_t) * WARM * B,
                            &err));
    t0 = now_s();
    OK(kgrt_model_run_steps(m, GEN, "next_token", out, sizeof(int32_t) * GEN * B, &err));
    dt = now_s() - t0;
    kgrt_model_clear_links(m);
    const double ctx = PROMPT + WARM + GEN / 2.0;
    const double kv = 2.0 * LAYERS * KVH * HD * 2 * ctx * B;
    const double bw_s = (weight_bytes + kv) / (copy_gbps * 1e9);
    const double flop_s = flops_per_token * B / (tflops * 1e12);
    const double roof = bw_s > flop_s ? bw_s : flop_s;
    printf("{\"kind\": \"decode\", \"model\": \"%s\", \"batch\": %d, \"tok_s\": %.1f, "
           "\"step_ms\": %.3f, \"roofline_ms\": %.3f, \"bound\": \"%s\", "
           "\"frac_roofline\": %.3f, \"weights_GB\": %.2f, \"kv_GB\": %.2f, "
           "\"last_token\": %d}\n",
           name, B, B * GEN / dt, dt / GEN * 1e3, roof * 1e3,
           bw_s >= flop_s ? "bytes" : "flops", roof / (dt / GEN), weight_bytes / 1e9,
           kv / 1e9, out[GEN * B - 1]);
    fflush(stdout);
    if (B == 8 || B == 64) {
      /* one step at this batch, context 576 */
      kgrt_batch_clear(step);
      for (int s = 0; s < B; ++s)
        OK(kgrt_batch_add(step, seqs[s], &first[s], 1, PROMPT + 64, NULL, NULL, &err));
      OK(kgrt_batch_bind(step, m, &err));
      print_profile(m, name, B);
    }
  }
  bench_mixed(m, name, pool, step, seqs, first);
done:
  for (int s = 0; s < SEQS; ++s)
    kgrt_kv_seq_destroy(seqs[s]);
  kgrt_batch_destroy(step);
  kgrt_kv_pool_destroy(pool);
  free(buf);
  kgrt_model_unload(m);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: llama_batch SPEC [MODEL...] [--gemm-tflops X]\n");
    return 2;
  }
  double tflops = 700;
  kgrt_error_t err = {0};
  kgrt_device_t *dev = NULL;
  if (kgrt_device_open(argv[1], NULL, &dev, &err) != KGRT_STATUS_OK) {
    fprintf(stderr, "llama_batch: %s\n", err.message);
    return 1;
  }
  int named = 0;
  for (int a = 2; a < argc; ++a) {
    if (strcmp(argv[a], "--gemm-tflops") == 0 && a + 1 < argc)
      tflops = atof(argv[++a]);
    else
      named = 1;
  }
  double copy = bench_copy(dev);
  for (size_t i = 0; i < sizeof models / sizeof models[0]; ++i) {
    int want = !named;
    for (int a = 2; a < argc; ++a)
      want |= strcmp(argv[a], models[i].name) == 0;
    if (want)
      bench_model(dev, (int)i, copy, tflops);
  }
  kgrt_device_close(dev);
  return 0;
}
