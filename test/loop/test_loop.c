/* test_loop.c - a 64-step greedy decode of decode.lua, three ways: driven
 * from the host (one int read back per step), on the device with
 * kgrt_model_run_steps (the token and the position linked, the context S
 * stepped; the tokens collected and read back once at the end), and on the
 * device in four calls of 16 steps. The three must give exactly the same
 * tokens, and those must be the float64 reference's up to the first step
 * whose two best logits are too close to call.
 *
 * Usage: test_loop [DEVICE_SPEC...] (default sim:gfx1100 and sim:gfx942). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "decode.h"
#include "kgrt.h"
#include "test.h"

enum { V = 64, D = 32, SLOTS = 128, STEPS = 64, FIRST = 7 };

static float eq[V * D], ek[V * D], ev[V * D], wo[V * D], ep[SLOTS * D];

/* Deterministic weights in [-1, 1). */
static void fill(float *w, int n, uint32_t seed) {
  uint32_t s = seed;
  for (int i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    w[i] = (float)((double)(s >> 8) / (double)(1u << 23) - 1.0);
  }
}

/* The float64 decode: tokens[0 .. n) from FIRST; *n_sure: how many of them
 * are certain (the first whose best two logits are within 1e-3, and the
 * steps after it, are not). */
static void reference(int32_t *tokens, int *n_sure) {
  static double kc[STEPS][D], vc[STEPS][D];
  int32_t tok = FIRST;
  *n_sure = STEPS;
  for (int p = 0; p < STEPS; ++p) {
    for (int d = 0; d < D; ++d) {
      kc[p][d] = ek[tok * D + d];
      vc[p][d] = (double)ev[tok * D + d] + ep[p * D + d];
    }
    double s[STEPS], m = -INFINITY, sum = 0, a[D] = {0};
    for (int j = 0; j <= p; ++j) {
      s[j] = 0;
      for (int d = 0; d < D; ++d)
        s[j] += ((double)eq[tok * D + d] + ep[p * D + d]) * kc[j][d];
      s[j] /= sqrt((double)D);
      m = fmax(m, s[j]);
    }
    for (int j = 0; j <= p; ++j) {
      s[j] = exp(s[j] - m);
      sum += s[j];
    }
    for (int j = 0; j <= p; ++j)
      for (int d = 0; d < D; ++d)
        a[d] += s[j] / sum * vc[j][d];
    double best = -INFINITY, second = -INFINITY;
    int32_t arg = 0;
    for (int v = 0; v < V; ++v) {
      double l = 0;
      for (int d = 0; d < D; ++d)
        l += a[d] * wo[v * D + d];
      if (l > best) {
        second = best;
        best = l;
        arg = v;
      } else if (l > second) {
        second = l;
      }
    }
    if (best - second < 1e-3 && *n_sure == STEPS)
      *n_sure = p;
    tokens[p] = arg;
    tok = arg;
  }
}

#define OK(call)                                                                         \
  do {                                                                                   \
    kgrt_status_t st_ = (call);                                                          \
    CHECK_EQ(st_, KGRT_STATUS_OK);                                                       \
    if (st_ != KGRT_STATUS_OK) {                                                         \
      fprintf(stderr, "%s: %s\n", #call, err.message);                                   \
      return;                                                                            \
    }                                                                                    \
  } while (0)

/* Zeroed state, S = 1, token FIRST at position 0. */
static kgrt_status_t start(kgrt_model_t *m, kgrt_error_t *err) {
  const int32_t tok[1] = {FIRST}, pos[1] = {0};
  kgrt_status_t st = kgrt_model_reset_state(m, err);
  if (st == KGRT_STATUS_OK)
    st = kgrt_model_set_dim(m, "S", 1, err);
  if (st == KGRT_STATUS_OK)
    st = kgrt_model_set_input(m, "token", tok, sizeof tok, err);
  if (st == KGRT_STATUS_OK)
    st = kgrt_model_set_input(m, "pos", pos, sizeof pos, err);
  return st;
}

static void run_device(const char *spec) {
  kgrt_error_t err;
  kgrt_device_t *dev = NULL;
  kgrt_model_t *m = NULL;
  OK(kgrt_device_open(spec, NULL, &dev, &err));
  kgrt_memory_t mem;
  OK(kgrt_model_memory(dev, &kgen_decode, &mem, &err));
  CHECK(mem.state >= 2 * 128 * D * sizeof(float)); /* the two caches */
  kgrt_status_t st = kgrt_model_load(dev, &kgen_decode, &m, &err);
  CHECK_EQ(st, KGRT_STATUS_OK);
  if (st != KGRT_STATUS_OK) {
    fprintf(stderr, "%s: %s\n", spec, err.message);
    kgrt_device_close(dev);
    return;
  }
  OK(kgrt_model_set_weight(m, "eq", eq, sizeof eq, &err));
  OK(kgrt_model_set_weight(m, "ek", ek, sizeof ek, &err));
  OK(kgrt_model_set_weight(m, "ev", ev, sizeof ev, &err));
  OK(kgrt_model_set_weight(m, "wo", wo, sizeof wo, &err));
  OK(kgrt_model_set_weight(m, "ep", ep, sizeof ep, &err));

  /* from the host: set S, token and position, run, read the token back */
  int32_t host[STEPS], dev_all[STEPS], dev_chunks[STEPS], ref[STEPS];
  OK(start(m, &err));
  for (int p = 0; p < STEPS; ++p) {
    const int32_t pos[1] = {p};
    OK(kgrt_model_set_dim(m, "S", p + 1, &err));
    if (p > 0) {
      OK(kgrt_model_set_input(m, "token", &host[p - 1], sizeof host[0], &err));
      OK(kgrt_model_set_input(m, "pos", pos, sizeof pos, &err));
    }
    OK(kgrt_model_run(m, &err));
    OK(kgrt_model_get_output(m, "next_token", &host[p], sizeof host[p], &err));
  }

  /* on the device: 64 steps, the tokens read back once */
  OK(kgrt_model_link(m, "next_token", "token", &err));
  OK(kgrt_model_link(m, "next_pos", "pos", &err));
  OK(kgrt_model_step_dim(m, "S", 1, &err));
  OK(start(m, &err));
  OK(kgrt_model_run_steps(m, STEPS, "next_token", dev_all, sizeof dev_all, &err));
  /* where it stopped: S = 64, the last step's outputs readable */
  int32_t last = -1, next_pos = -1;
  OK(kgrt_model_get_output(m, "next_token", &last, sizeof last, &err));
  OK(kgrt_model_get_output(m, "next_pos", &next_pos, sizeof next_pos, &err));
  CHECK_EQ(last, dev_all[STEPS - 1]);
  CHECK_EQ(next_pos, STEPS);
  /* one more step would pass S's max of 128 only after 65 more */
  CHECK_EQ(kgrt_model_run_steps(m, 65, NULL, NULL, 0, &err), KGRT_STATUS_OUT_OF_RANGE);

  /* four calls of 16: each goes on where the one before stopped */
  OK(start(m, &err));
  for (int c = 0; c < 4; ++c)
    OK(kgrt_model_run_steps(m, 16, "next_token", dev_chunks + 16 * c,
                            16 * sizeof dev_chunks[0], &err));

  int n_sure = 0;
  reference(ref, &n_sure);
  int same_host = 1, same_chunks = 1, distinct = 0;
  for (int p = 0; p < STEPS; ++p) {
    same_host &= host[p] == dev_all[p];
    same_chunks &= dev_chunks[p] == dev_all[p];
    distinct += p > 0 && host[p] != host[p - 1];
  }
  CHECK(same_host);
  CHECK(same_chunks);
  CHECK(distinct > 8); /* the tokens move: the loop feeds them back */
  CHECK(n_sure >= 16);
  for (int p = 0; p < n_sure; ++p)
    CHECK_EQ(host[p], ref[p]);
  fprintf(stderr, "%s: %d steps, host = device = %s; float64 agrees on the first %d\n",
          kgrt_device_name(dev), STEPS, same_host && same_chunks ? "yes" : "NO", n_sure);
  fprintf(stderr, "tokens:");
  for (int p = 0; p < STEPS; ++p)
    fprintf(stderr, " %d", dev_all[p]);
  fprintf(stderr, "\n");
  kgrt_model_unload(m);
  kgrt_device_close(dev);
}

int main(int argc, char **argv) {
  fill(eq, V * D, 1);
  fill(ek, V * D, 2);
  fill(ev, V * D, 3);
  fill(wo, V * D, 4);
  fill(ep, SLOTS * D, 5);
  if (argc < 2) {
    run_device("sim:gfx1100");
    run_device("sim:gfx942");
  }
  for (int i = 1; i < argc; ++i)
    run_device(argv[i]);
  return TEST_DONE();
}
