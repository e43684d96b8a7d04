/* llama_decode.c - a whole Llama model (lua/models/llama.lua) on a device,
 * batch 1, random weights at real shapes (models/llama3_8b.lua,
 * llama3_8b_q4_0.lua, llama3_2_1b.lua), timed as a product would run it:
 *   1. copy bandwidth of the same run (models/copy_16384x8192.lua, timed
 *      as kgbench times it): the roofline's denominator;
 *   2. prefill of 512 tokens (kgrt_model_time: median of 5 behind the
 *      L2-evicting write), in TFLOP/s of its matmuls and attention;
 *   3. decode from context 512 to 1024 as a device-resident loop
 *      (kgrt_model_run_steps: the sampled token and the position fed back,
 *      tokens read back once at the end), host wall clock over 504 steps
 *      after 8 of warm-up; tokens/s and the fraction of the roofline (bytes
 *      of every weight the step reads and the KV cache at the mean context,
 *      over the copy bandwidth);
 *   4. kgrt_model_profile of the prefill (after 2) and of one decode step
 *      at context 768: each step's device time, summed by kernel.
 * Usage: llama_decode SPEC [MODEL...] (MODEL: llama3_8b, llama3_8b_q4_0,
 * llama3_2_1b; default all). Prints JSON lines. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "copy_16384x8192.h"
#include "kgrt.h"
#include "llama3_2_1b.h"
#include "llama3_8b.h"
#include "llama3_8b_q4_0.h"
#include "llama_bench.h"

enum { PROMPT = 512, WARM = 8, STEPS = 504, PROFILE_CAP = 4096 };

static const struct {
  const char *name;
  const kgrt_model_table_t *table;
  int layers, kv_heads, head_dim, tied;
} models[] = {
    {"llama3_8b", &kgen_llama3_8b, 32, 8, 128, 0},
    {"llama3_8b_q4_0", &kgen_llama3_8b_q4_0, 32, 8, 128, 0},
    {"llama3_2_1b", &kgen_llama3_2_1b, 16, 8, 64, 1},
};

#define OK(call)                                                                         \
  do {                                                                                   \
    kgrt_status_t st_ = (call);                                                          \
    if (st_ != KGRT_STATUS_OK) {                                                         \
      fprintf(stderr, "llama_decode: %s: %s: %s\n", #call, kgrt_status_name(st_),        \
              err.message);                                                              \
      goto done;                                                                         \
    }                                                                                    \
  } while (0)

/* Random bytes of a weight: f32 norms near 1; f16/bf16 of magnitude about
 * 0.01 with random signs; Q8_0/Q4_0 blocks with a small f16 scale and
 * random quants (no float math: 16 GB must fill in seconds). */
static int cmp_desc(const void *a, const void *b) {
  double x = ((const double *)a)[0], y = ((const double *)b)[0];
  return x < y ? 1 : x > y ? -1 : 0;
}

/* kgrt_model_profile of 5 runs at the model's current dims: each kernel's
 * summed time, longest first, under `phase` (context ctx); prof holds
 * PROFILE_CAP records. */
static void print_profile(kgrt_model_t *m, const char *name, const char *phase, int ctx,
                          kgrt_step_profile_t *prof) {
  kgrt_error_t err;
  uint32_t n = 0;
  if (prof == NULL ||
      kgrt_model_profile(m, 5, prof, PROFILE_CAP, &n, &err) != KGRT_STATUS_OK)
    return;
  double sums[64][2];
  const char *names[64];
  int kinds = 0;
  double total = 0;
  for (uint32_t i = 0; i < n; ++i) {
    int k = 0;
    while (k < kinds && strcmp(names[k], prof[i].kernel) != 0)
      ++k;
    if (k == kinds && kinds < 64) {
      names[kinds] = prof[i].kernel;
      sums[kinds][0] = 0;
      sums[kinds][1] = 0;
      ++kinds;
    }
    if (k < kinds) {
      sums[k][0] += prof[i].us;
      sums[k][1] += (double)prof[i].bytes;
    }
    total += prof[i].us;
  }
  printf("{\"kind\": \"profile\", \"phase\": \"%s\", \"model\": \"%s\", \"context\": %d, "
         "\"steps\": %u, \"sum_us\": %.1f}\n",
         phase, name, ctx, n, total);
  double order[64][2];
  for (int k = 0; k < kinds; ++k) {
    order[k][0] = sums[k][0];
    order[k][1] = k;
  }
  qsort(order, (size_t)kinds, sizeof order[0], cmp_desc);
  for (int j = 0; j < kinds; ++j) {
    int k = (int)order[j][1];
    printf("{\"kind\": \"profile_kernel\", \"phase\": \"%s\", \"model\": \"%s\", "
           "\"kernel\": \"%s\", \"us\": %.1f, \"GB\": %.4f, \"GBps\": %.0f}\n",
           phase, name, names[k], sums[k][0], sums[k][1] / 1e9,
           sums[k][0] > 0 ? sums[k][1] / (sums[k][0] * 1e-6) / 1e9 : 0.0);
  }
  fflush(stdout);
}

static void bench_model(kgrt_device_t *dev, int which, double copy_gbps) {
  const kgrt_model_table_t *t = models[which].table;
  const char *name = models[which].name;
  kgrt_error_t err = {0};
  kgrt_model_t *m = NULL;
  kgrt_memory_t mem;
  unsigned char *buf = NULL;
  kgrt_step_profile_t *prof = NULL;
  double weight_bytes = 0, flops_per_token = 0;
  OK(kgrt_model_memory(dev, t, &mem, &err));
  printf("{\"kind\": \"memory\", \"model\": \"%s\", \"total_GB\": %.2f, \"weights_GB\": "
         "%.2f, "
         "\"state_GB\": %.3f}\n",
         name, (double)mem.total / 1e9, (double)mem.weights / 1e9,
         (double)mem.state / 1e9);
  fflush(stdout);
  OK(kgrt_model_load(dev, t, &m, &err));
  double t0 = now_s();
  for (uint32_t i = 0; i < t->num_weights; ++i) {
    const kgrt_tensor_info_t *w = &t->weights[i];
    size_t bytes = 0;
    OK(kgrt_model_tensor_bytes(m, w->name, &bytes, &err));
    free(buf);
    buf = malloc(bytes);
    if (buf == NULL) {
      fprintf(stderr, "llama_decode: out of host memory\n");
      goto done;
    }
    fill(w->dtype, buf, bytes);
    OK(kgrt_model_set_weight(m, w->name, buf, bytes, &err));
    /* read per decoded token: everything but the embedding table, of which
     * one row (the tied 1B reads it whole as its LM head) */
    int embd = strcmp(w->name, "token_embd_weight") == 0;
    if (!embd || models[which].tied)
      weight_bytes += (double)bytes;
    if (w->rank == 2 && !embd) {
      double n = (double)dim_value(t, w->dims[0]), k = (double)dim_value(t, w->dims[1]);
      flops_per_token += 2 * n * k;
    }
  }
  free(buf);
  buf = NULL;
  printf("{\"kind\": \"load\", \"model\": \"%s\", \"weights_GB\": %.3f, "
         "\"fill_upload_s\": %.1f}\n",
         name, weight_bytes / 1e9, now_s() - t0);
  fflush(stdout);

  /* prefill: 512 random tokens at positions 0 .. 511 */
  int32_t tokens[PROMPT], pos[PROMPT], last = PROMPT - 1, seed = 0;
  const float greedy[4] = {0.0f, 0.0f, 1.0f, 0.0f}; /* params: the argmax */
  for (int i = 0; i < PROMPT; ++i) {
    tokens[i] = (int32_t)(next() % 128256);
    pos[i] = i;
  }
  OK(kgrt_model_set_dim(m, "T", PROMPT, &err));
  OK(kgrt_model_set_dim(m, "S", PROMPT, &err));
  OK(kgrt_model_set_input(m, "tokens", tokens, sizeof tokens, &err));
  OK(kgrt_model_set_input(m, "pos", pos, sizeof pos, &err));
  OK(kgrt_model_set_input(m, "last", &last, sizeof last, &err));
  OK(kgrt_model_set_input(m, "seed", &seed, sizeof seed, &err));
  OK(kgrt_model_set_input(m, "params", greedy, sizeof greedy, &err));
  double prefill_us = 0;
  OK(kgrt_model_time(m, 2, 5, &prefill_us, &err));
  const int L = models[which].layers, KVH = models[which].kv_heads,
            D = models[which].head_dim;
  const int H = 32;
  /* the LM head runs for the last row only */
  double head = 2.0 * (double)dim_value(t, t->weights[0].dims[0]) *
                (double)dim_value(t, t->weights[0].dims[1]);
  double matmul_flops =
      (flops_per_token - (models[which].tied ? 0 : head)) * PROMPT + head;
  double attn_flops = 4.0 * L * H * D * ((double)PROMPT * (PROMPT + 1) / 2);
  printf("{\"kind\": \"prefill\", \"model\": \"%s\", \"tokens\": %d, \"us\": %.1f, "
         "\"TFLOPs\": %.1f, \"tok_s\": %.0f}\n",
         name, PROMPT, prefill_us,
         (matmul_flops + attn_flops) / (prefill_us * 1e-6) / 1e12,
         PROMPT / (prefill_us * 1e-6));
  fflush(stdout);
  prof = calloc(PROFILE_CAP, sizeof *prof);
  print_profile(m, name, "prefill", PROMPT, prof);

  /* decode from 512: one prefill run fills the cache, then the loop */
  OK(kgrt_model_run(m, &err));
  int32_t first = 0, zero = 0, at = PROMPT;
  OK(kgrt_model_get_output(m, "next_token", &first, sizeof first, &err));
  OK(kgrt_model_set_dim(m, "T", 1, &err));
  OK(kgrt_model_set_dim(m, "S", PROMPT + 1, &err));
  OK(kgrt_model_set_input(m, "tokens", &first, sizeof first, &err));
  OK(kgrt_model_set_input(m, "pos", &at, sizeof at, &err));
  OK(kgrt_model_set_input(m, "last", &zero, sizeof zero, &err));
  OK(kgrt_model_link(m, "next_token", "tokens", &err));
  OK(kgrt_model_link(m, "next_pos", "pos", &err));
  OK(kgrt_model_step_dim(m, "S", 1, &err));
  static int32_t out[WARM + STEPS];
  OK(kgrt_model_run_steps(m, WARM, "next_token", out, sizeof(int32_t) * WARM, &err));
  t0 = now_s();
  OK(kgrt_model_run_steps(m, STEPS, "next_token", out + WARM, sizeof(int32_t) * STEPS,
                          &err));
  double dt = now_s() - t0;
  double ctx = PROMPT + WARM + STEPS / 2.0;
  double kv_bytes = 2.0 * L * KVH * D * ctx * 2;
  double tps = STEPS / dt, roof = copy_gbps * 1e9 / (weight_bytes + kv_bytes);
  printf(
      "{\"kind\": \"decode\", \"model\": \"%s\", \"context\": \"%d-%d\", \"tok_s\": "
      "%.1f, "
      "\"ms_per_token\": %.3f, \"bytes_per_token_GB\": %.3f, \"roofline_tok_s\": %.1f, "
      "\"frac_roofline\": %.3f, \"last_token\": %d}\n",
      name, PROMPT + WARM, PROMPT + WARM + STEPS, tps, 1e3 / tps,
      (weight_bytes + kv_bytes) / 1e9, roof, tps / roof, out[WARM + STEPS - 1]);
  fflush(stdout);

  /* one decode step's profile at context 768 */
  kgrt_model_clear_links(m);
  OK(kgrt_model_set_dim(m, "S", 768, &err));
  at = 767;
  OK(kgrt_model_set_input(m, "pos", &at, sizeof at, &err));
  print_profile(m, name, "decode", 768, prof);
done:
  free(buf);
  free(prof);
  kgrt_model_unload(m);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: llama_decode SPEC [MODEL...]\n");
    return 2;
  }
  kgrt_error_t err = {0};
  kgrt_device_t *dev = NULL;
  if (kgrt_device_open(argv[1], NULL, &dev, &err) != KGRT_STATUS_OK) {
    fprintf(stderr, "llama_decode: %s\n", err.message);
    return 1;
  }
  double copy = bench_copy(dev);
  for (size_t i = 0; i < sizeof models / sizeof models[0]; ++i) {
    int want = argc == 2;
    for (int a = 2; a < argc; ++a)
      want |= strcmp(argv[a], models[i].name) == 0;
    if (want)
      bench_model(dev, (int)i, copy);
  }
  kgrt_device_close(dev);
  return 0;
}
