/* llama_tp.c - Llama-3-8B shapes (bf16, random weights) whole on one GPU and
 * split over two (tensor parallel: models/llama3_8b_2k.lua and
 * llama3_8b_2k_tp2.lua), in one run, one host thread per rank:
 *   1. prefill of 2048 tokens (kgrt_model_time: median of 5 behind the
 *      L2-evicting write, every rank timing at once; rank 0's time), then
 *      one prefill profiled (kgrt_model_profile), summed by kernel;
 *   2. greedy decode from a 512-token prompt: 32 runs one by one, the split
 *      model fed the whole one's tokens, every run's logits read back and
 *      compared (NMSE; the greedy token wherever the whole model's best two
 *      logits are further apart than the NMSE can account for), then 256
 *      steps as a device-resident loop (kgrt_model_run_steps) on the host's
 *      clock, tokens/s;
 *   3. one decode step profiled (kgrt_model_profile), summed by kernel.
 * Both get the same weights: every tensor is made whole from a seed of its
 * own (its index in the table) and each rank binds its part of it with
 * kgrt_model_set_weight_whole.
 * The same for the model as a pipeline over the two (llama3_8b_2k_pp2.lua:
 * 16 layers a GPU, the residual handed on by a broadcast).
 * Usage: llama_tp SPEC0 SPEC1 (cuda:0 cuda:1). Prints JSON lines, then the
 * ratios split / whole. LLAMA_TP_NO_PP=1 in the environment leaves out the
 * pipeline (a sweep of collective settings, say). */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kgrt.h"
#include "llama3_8b_2k.h"
#include "llama3_8b_2k_pp2.h"
#include "llama3_8b_2k_tp2.h"

enum {
  PREFILL = 2048,
  PROMPT = 512,
  CHECKED = 32,
  STEPS = 256,
  MAX_RANKS = 2,
  VOCAB = 128256,
  PROFILE_CAP = 4096
};

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* xorshift64 from a tensor's own seed */
static uint64_t next(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

/* The whole tensor of weight i: f32 norms near 1; bf16 of magnitude about
 * 2^-7 with random signs and mantissas. */
static void fill(kgrt_dtype_t dt, uint32_t i, unsigned char *p, size_t bytes) {
  uint64_t s = 0x9E3779B97F4A7C15ull ^ ((uint64_t)(i + 1) * 0xD1B54A32D192ED03ull);
  if (dt == KGRT_DTYPE_F32) {
    for (size_t k = 0; k + 4 <= bytes; k += 4) {
      uint32_t u = 0x3F800000u | (uint32_t)(next(&s) & 0x7FFF);
      memcpy(p + k, &u, 4);
    }
    return;
  }
  for (size_t k = 0; k + 8 <= bytes; k += 8) {
    uint64_t r = next(&s), v = 0;
    for (int h = 0; h < 4; ++h)
      v |= (uint64_t)(0x3C00u | ((r >> (16 * h)) & 0x807Fu)) << (16 * h);
    memcpy(p + k, &v, 8);
  }
}

typedef struct job {
  const char *spec;
  const kgrt_model_table_t *table;
  kgrt_comm_t *comm; /* NULL: the whole model */
  uint32_t rank;
  double prefill_us, decode_s;
  kgrt_memory_t held;        /* once its weights are bound */
  const int32_t *feed;       /* the tokens the checked runs are fed; NULL: its own */
  float *logits;             /* CHECKED x VOCAB */
  kgrt_step_profile_t *prof; /* one decode step at context 768 */
  uint32_t num_prof;
  kgrt_step_profile_t *prefill_prof; /* one prefill of 2048 tokens */
  uint32_t num_prefill_prof;
  int32_t tokens[CHECKED + STEPS];
  kgrt_error_t err;
  int failed; /* the line that failed */
} job_t;

#define OK(call)                                                                         \
  do {                                                                                   \
    if ((call) != KGRT_STATUS_OK) {                                                      \
      j->failed = __LINE__;                                                              \
      goto done;                                                                         \
    }                                                                                    \
  } while (0)

static void *rank_main(void *arg) {
  job_t *j = arg;
  kgrt_error_t *err = &j->err;
  kgrt_device_t *dev = NULL;
  kgrt_model_t *m = NULL;
  unsigned char *buf = NULL;
  const kgrt_model_table_t *t = j->table;
  OK(kgrt_device_open(j->spec, NULL, &dev, err));
  OK(kgrt_model_load(dev, t, &m, err));
  if (j->comm != NULL)
    OK(kgrt_model_join(m, j->comm, j->rank, err));
  for (uint32_t i = 0; i < t->num_weights; ++i) {
    const kgrt_tensor_info_t *w = &t->weights[i];
    size_t bytes = 0;
    OK(kgrt_model_tensor_bytes(m, w->name, &bytes, err));
    if (w->parts > 1)
      bytes *= w->parts;
    free(buf);
    buf = malloc(bytes);
    if (buf == NULL) {
      j->failed = __LINE__;
      goto done;
    }
    fill(w->dtype, i, buf, bytes);
    OK(kgrt_model_set_weight_whole(m, w->name, buf, bytes, err));
  }
  free(buf);
  buf = NULL;
  kgrt_model_held_memory(m, &j->held);
  /* 1. prefill of 2048 tokens */
  static int32_t tokens[PREFILL], pos[PREFILL];
  int32_t last = PREFILL - 1, seed = 0;
  const float greedy[4] = {0.0f, 0.0f, 1.0f, 0.0f}; /* params: the argmax */
  uint64_t s = 12345;
  for (int i = 0; i < PREFILL; ++i) {
    tokens[i] = (int32_t)(next(&s) % 128256);
    pos[i] = i;
  }
  OK(kgrt_model_set_dim(m, "T", PREFILL, err));
  OK(kgrt_model_set_dim(m, "S", PREFILL, err));
  OK(kgrt_model_set_input(m, "tokens", tokens, sizeof tokens, err));
  OK(kgrt_model_set_input(m, "pos", pos, sizeof pos, err));
  OK(kgrt_model_set_input(m, "last", &last, sizeof last, err));
  OK(kgrt_model_set_input(m, "seed", &seed, sizeof seed, err));
  OK(kgrt_model_set_input(m, "params", greedy, sizeof greedy, err));
  OK(kgrt_model_time(m, 2, 5, &j->prefill_us, err));
  j->prefill_prof = calloc(PROFILE_CAP, sizeof *j->prefill_prof);
  if (j->prefill_prof == NULL) {
    j->failed = __LINE__;
    goto done;
  }
  OK(kgrt_model_profile(m, 3, j->prefill_prof, PROFILE_CAP, &j->num_prefill_prof, err));
  /* 2. decode from a 512-token prompt (the prefill's first 512) */
  OK(kgrt_model_reset_state(m, err));
  last = PROMPT - 1;
  OK(kgrt_model_set_dim(m, "T", PROMPT, err));
  OK(kgrt_model_set_dim(m, "S", PROMPT, err));
  OK(kgrt_model_set_input(m, "tokens", tokens, sizeof(int32_t) * PROMPT, err));
  OK(kgrt_model_set_input(m, "pos", pos, sizeof(int32_t) * PROMPT, err));
  OK(kgrt_model_set_input(m, "last", &last, sizeof last, err));
  OK(kgrt_model_run(m, err));
  OK(kgrt_model_get_output(m, "next_token", &j->tokens[0], sizeof(int32_t), err));
  OK(kgrt_model_get_output(m, "logits", j->logits, sizeof(float) * VOCAB, err));
  int32_t zero = 0, at = PROMPT;
  OK(kgrt_model_set_dim(m, "T", 1, err));
  OK(kgrt_model_set_input(m, "last", &zero, sizeof zero, err));
  for (int i = 1; i < CHECKED; ++i, ++at) {
    const int32_t *in = j->feed != NULL ? &j->feed[i - 1] : &j->tokens[i - 1];
    OK(kgrt_model_set_dim(m, "S", at + 1, err));
    OK(kgrt_model_set_input(m, "tokens", in, sizeof(int32_t), err));
    OK(kgrt_model_set_input(m, "pos", &at, sizeof at, err));
    OK(kgrt_model_run(m, err));
    OK(kgrt_model_get_output(m, "next_token", &j->tokens[i], sizeof(int32_t), err));
    OK(kgrt_model_get_output(m, "logits", j->logits + (size_t)i * VOCAB,
                             sizeof(float) * VOCAB, err));
  }
  /* the loop goes on from the last checked run's own token */
  OK(kgrt_model_set_dim(m, "S", at + 1, err));
  OK(kgrt_model_set_input(m, "tokens", &j->tokens[CHECKED - 1], sizeof(int32_t), err));
  OK(kgrt_model_set_input(m, "pos", &at, sizeof at, err));
  OK(kgrt_model_link(m, "next_token", "tokens", err));
  OK(kgrt_model_link(m, "next_pos", "pos", err));
  OK(kgrt_model_step_dim(m, "S", 1, err));
  double t0 = now_s();
  OK(kgrt_model_run_steps(m, STEPS, "next_token", j->tokens + CHECKED,
                          sizeof(int32_t) * STEPS, err));
  j->decode_s = now_s() - t0;
  /* 3. one decode step profiled at context 768 (every rank at once) */
  kgrt_model_clear_links(m);
  at = 767;
  OK(kgrt_model_set_dim(m, "S", 768, err));
  OK(kgrt_model_set_input(m, "pos", &at, sizeof at, err));
  j->prof = calloc(PROFILE_CAP, sizeof *j->prof);
  if (j->prof == NULL) {
    j->failed = __LINE__;
    goto done;
  }
  OK(kgrt_model_profile(m, 5, j->prof, PROFILE_CAP, &j->num_prof, err));
done:
  free(buf);
  kgrt_model_unload(m);
  kgrt_device_close(dev);
  return NULL;
}

/* Runs `ranks` jobs at once (the whole model: one, no communicator). */
static int run(const char *const *specs, uint32_t ranks, const kgrt_model_table_t *table,
               const int32_t *feed, job_t *jobs) {
  kgrt_comm_t *comm = NULL;
  kgrt_error_t err = {0};
  if (ranks > 1 && kgrt_comm_create(ranks, NULL, &comm, &err) != KGRT_STATUS_OK) {
    fprintf(stderr, "llama_tp: %s\n", err.message);
    return -1;
  }
  pthread_t threads[MAX_RANKS];
  uint32_t started = 0;
  for (uint32_t r = 0; r < ranks; ++r) {
    memset(&jobs[r], 0, sizeof jobs[r]);
    jobs[r].spec = specs[r], jobs[r].table = table, jobs[r].comm = comm, jobs[r].rank = r;
    jobs[r].feed = feed;
    jobs[r].logits = malloc(sizeof(float) * CHECKED * VOCAB);
    if (jobs[r].logits == NULL)
      break;
    if (pthread_create(&threads[r], NULL, rank_main, &jobs[r]) != 0)
      break;
    started++;
  }
  for (uint32_t r = 0; r < started; ++r)
    pthread_join(threads[r], NULL);
  kgrt_comm_destroy(comm);
  int rc = started == ranks ? 0 : -1;
  for (uint32_t r = 0; r < ranks; ++r)
    if (jobs[r].failed) {
      fprintf(stderr, "llama_tp: %u ranks: rank %u failed at line %d: %s\n", ranks, r,
              jobs[r].failed, jobs[r].err.message);
      rc = -1;
    }
  return rc;
}

/* A profile summed by kernel (a kernel's name up to its hash): a line for the
 * whole, then a line a kernel, `kind` and `kind`_kernel. */
static void print_profile(const char *kind, int ranks, const kgrt_step_profile_t *prof,
                          uint32_t num) {
  double total = 0, sums[64] = {0};
  char names[64][96];
  int kinds = 0;
  for (uint32_t i = 0; i < num; ++i) {
    char name[96];
    snprintf(name, sizeof name, "%s", prof[i].kernel);
    char *cut = strrchr(name, '_');
    if (cut != NULL && strlen(cut) == 9)
      *cut = '\0';
    int n = 0;
    while (n < kinds && strcmp(names[n], name) != 0)
      ++n;
    if (n == kinds && kinds < 64)
      memcpy(names[kinds++], name, sizeof name);
    if (n < kinds)
      sums[n] += prof[i].us;
    total += prof[i].us;
  }
  printf("{\"kind\": \"%s\", \"ranks\": %d, \"steps\": %u, \"sum_us\": %.1f}\n", kind,
         ranks, num, total);
  for (int n = 0; n < kinds; ++n)
    printf("{\"kind\": \"%s_kernel\", \"ranks\": %d, \"kernel\": \"%s\", \"us\": %.1f}\n",
           kind, ranks, names[n], sums[n]);
}

/* The split model's checked runs (rank 0's) against the whole model's: the
 * logits' NMSE, and the token wherever the whole's best two are clear of
 * the difference; a JSON line each and a summary. 0 when no clear token
 * differs and the ranks agree. */
static int compare(const char *mode, const job_t *whole, const job_t *split) {
  int called = 0, same = 0, wrong = 0;
  double worst = 0;
  for (int k = 0; k < CHECKED; ++k) {
    const float *a = split[0].logits + (size_t)k * VOCAB,
                *b = whole->logits + (size_t)k * VOCAB;
    double err2 = 0, ref2 = 0;
    int best = 0, second = 1;
    for (int v = 0; v < VOCAB; ++v) {
      err2 += ((double)a[v] - b[v]) * ((double)a[v] - b[v]);
      ref2 += (double)b[v] * b[v];
      if (b[v] > b[best]) {
        second = best;
        best = v;
      } else if (v != best && b[v] > b[second]) {
        second = v;
      }
    }
    const double nmse = ref2 > 0 ? err2 / ref2 : INFINITY, rms = sqrt(ref2 / VOCAB);
    const double margin = (b[best] - b[second]) / rms;
    const int sure = margin > 4 * sqrt(nmse);
    worst = nmse > worst || nmse != nmse ? nmse : worst;
    called += sure;
    same += split[0].tokens[k] == whole->tokens[k];
    wrong += sure && split[0].tokens[k] != whole->tokens[k];
    printf("{\"kind\": \"%s_check\", \"run\": %d, \"nmse\": %.3g, \"margin_rms\": %.4f, "
           "\"whole\": %d, \"split\": %d%s}\n",
           mode, k, nmse, margin, whole->tokens[k], split[0].tokens[k],
           sure ? "" : ", \"too_close\": true");
  }
  int ranks_agree = memcmp(split[0].tokens, split[1].tokens, sizeof split[0].tokens) == 0;
  printf("{\"kind\": \"%s_tokens\", \"checked\": %d, \"same\": %d, \"clear\": %d, "
         "\"clear_but_different\": %d, \"worst_nmse\": %.3g, \"ranks_agree\": %s}\n",
         mode, CHECKED, same, called, wrong, worst, ranks_agree ? "true" : "false");
  printf("{\"kind\": \"%s_ratio\", \"decode\": %.3f, \"prefill\": %.3f}\n", mode,
         (STEPS / split[0].decode_s) / (STEPS / whole->decode_s),
         whole->prefill_us / split[0].prefill_us);
  return wrong == 0 && ranks_agree ? 0 : 3;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: llama_tp SPEC0 SPEC1\n");
    return 2;
  }
  const char *const specs[2] = {argv[1], argv[2]};
  static job_t whole[1], split[MAX_RANKS], pipe[MAX_RANKS];
  const char *no_pp = getenv("LLAMA_TP_NO_PP");
  const int modes_run = no_pp && strcmp(no_pp, "1") == 0 ? 2 : 3;
  if (run(specs, 1, &kgen_llama3_8b_2k, NULL, whole) != 0 ||
      run(specs, 2, &kgen_llama3_8b_2k_tp2, whole[0].tokens, split) != 0 ||
      (modes_run == 3 &&
       run(specs, 2, &kgen_llama3_8b_2k_pp2, whole[0].tokens, pipe) != 0))
    return 1;
  const job_t *jobs[3] = {&whole[0], &split[0], &pipe[0]};
  const char *modes[3] = {"whole", "tp", "pp"};
  for (int k = 0; k < modes_run; ++k)
    printf("{\"kind\": \"%s\", \"ranks\": %d, \"prefill_tokens\": %d, \"prefill_us\": "
           "%.1f, \"prefill_tok_s\": %.0f, \"decode_tok_s\": %.1f, \"context\": "
           "\"%d-%d\", \"rank0_weights_mib\": %.1f}\n",
           modes[k], k ? 2 : 1, PREFILL, jobs[k]->prefill_us,
           PREFILL / (jobs[k]->prefill_us * 1e-6), STEPS / jobs[k]->decode_s,
           PROMPT + CHECKED, PROMPT + CHECKED + STEPS,
           (double)jobs[k]->held.weights / (1024.0 * 1024.0));
  for (int k = 0; k < modes_run; ++k) {
    char kind[64];
    snprintf(kind, sizeof kind, "%s_prefill_profile", modes[k]);
    print_profile(kind, k ? 2 : 1, jobs[k]->prefill_prof, jobs[k]->num_prefill_prof);
    snprintf(kind, sizeof kind, "%s_profile", modes[k]);
    print_profile(kind, k ? 2 : 1, jobs[k]->prof, jobs[k]->num_prof);
  }
  const int tp = compare("tp", whole, split),
            pp = modes_run == 3 ? compare("pp", whole, pipe) : 0;
  job_t *const all[] = {&whole[0], &split[0], &split[1], &pipe[0], &pipe[1]};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) {
    free(all[i]->prof);
    free(all[i]->prefill_prof);
    free(all[i]->logits);
  }
  return tp != 0 ? tp : pp;
}
