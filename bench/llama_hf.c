/* llama_hf.c - kgen's Llama (models/llama3_hf2.lua) against Hugging Face
 * transformers' own logits, on the same random weights: hf_logits.py saves
 * a 2-layer LlamaForCausalLM at Llama-3-8B shapes as safetensors and writes
 * HF's greedy decode (37-token prompt, 32 steps) in bf16 and the same tokens
 * through the same weights in float32; this binds that file by its Hugging
 * Face names, runs the same prompt and feeds HF's tokens step by step, and
 * compares each step's logits (NMSE against HF bf16, against HF f32, and
 * HF bf16 against HF f32 for scale) and greedy token. Prints JSON lines;
 * exit 1 when a step's NMSE against HF f32 is over 1e-4 or a token differs
 * from HF bf16's.
 * Usage: llama_hf SPEC DIR */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kgrt.h"
#include "kgrt_weights.h"
#include "llama3_hf2.h"

#define OK(call)                                                                         \
  do {                                                                                   \
    kgrt_status_t st_ = (call);                                                          \
    if (st_ != KGRT_STATUS_OK) {                                                         \
      fprintf(stderr, "llama_hf: %s: %s: %s\n", #call, kgrt_status_name(st_),            \
              err.message);                                                              \
      goto done;                                                                         \
    }                                                                                    \
  } while (0)

static int read_i32(FILE *f, int32_t *v, size_t n) {
  return fread(v, 4, n, f) == n ? 0 : -1;
}

static double nmse(const float *a, const float *ref, int n) {
  double num = 0, den = 0;
  for (int v = 0; v < n; ++v) {
    num += ((double)a[v] - ref[v]) * ((double)a[v] - ref[v]);
    den += (double)ref[v] * ref[v];
  }
  return num / den;
}

/* The header of a logits file; 0 when it matches (P, V) or sets them. */
static int read_head(FILE *f, int32_t head[3]) {
  return f != NULL && read_i32(f, head, 3) == 0 && head[0] >= 1 && head[0] <= 64 &&
                 head[1] >= 0 && head[2] == 128256
             ? 0
             : -1;
}

static int argmax(const float *x, int n) {
  int best = 0;
  for (int i = 1; i < n; ++i)
    if (x[i] > x[best])
      best = i;
  return best;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: llama_hf SPEC DIR\n");
    return 2;
  }
  kgrt_error_t err = {0};
  kgrt_device_t *dev = NULL;
  kgrt_model_t *m = NULL;
  kgrt_weights_t *w = NULL;
  int32_t head[3], head32[3], *prompt = NULL, *prompt32 = NULL;
  float *want = NULL, *got = NULL, *want32 = NULL;
  FILE *f32 = NULL;
  int failures = -1;
  char path[4096];
  snprintf(path, sizeof path, "%s/hf_logits.bin", argv[2]);
  FILE *f = fopen(path, "rb");
  if (read_head(f, head) != 0) {
    fprintf(stderr, "llama_hf: cannot read %s\n", path);
    goto done;
  }
  snprintf(path, sizeof path, "%s/hf_logits_f32.bin", argv[2]);
  f32 = fopen(path, "rb");
  if (read_head(f32, head32) != 0 || memcmp(head, head32, sizeof head) != 0) {
    fprintf(stderr, "llama_hf: cannot read %s\n", path);
    goto done;
  }
  const int P = head[0], STEPS = head[1], V = head[2];
  prompt = malloc(sizeof(int32_t) * (size_t)P);
  want = malloc(sizeof(float) * (size_t)V);
  got = malloc(sizeof(float) * (size_t)V);
  want32 = malloc(sizeof(float) * (size_t)V);
  prompt32 = malloc(sizeof(int32_t) * (size_t)P);
  if (!prompt || !want || !got || !want32 || !prompt32 ||
      read_i32(f, prompt, (size_t)P) != 0 || read_i32(f32, prompt32, (size_t)P) != 0 ||
      memcmp(prompt, prompt32, sizeof(int32_t) * (size_t)P) != 0)
    goto done;
  OK(kgrt_device_open(argv[1], NULL, &dev, &err));
  OK(kgrt_model_load(dev, &kgen_llama3_hf2, &m, &err));
  snprintf(path, sizeof path, "%s/model.safetensors", argv[2]);
  OK(kgrt_weights_open(path, NULL, &w, &err));
  OK(kgrt_model_bind_weights(m, w, 0, &err));
  failures = 0;
  int32_t pos[64], last, seed = 0, tok = 0;
  const float greedy[4] = {0.0f, 0.0f, 1.0f, 0.0f}; /* params: the argmax */
  for (int step = 0; step <= STEPS; ++step) {
    const int T = step == 0 ? P : 1, pos0 = step == 0 ? 0 : P + step - 1;
    for (int t = 0; t < T; ++t)
      pos[t] = pos0 + t;
    last = T - 1;
    OK(kgrt_model_set_dim(m, "T", T, &err));
    OK(kgrt_model_set_dim(m, "S", pos0 + T, &err));
    OK(kgrt_model_set_input(m, "tokens", step == 0 ? prompt : &tok,
                            sizeof(int32_t) * (size_t)T, &err));
    OK(kgrt_model_set_input(m, "pos", pos, sizeof(int32_t) * (size_t)T, &err));
    OK(kgrt_model_set_input(m, "last", &last, sizeof last, &err));
    OK(kgrt_model_set_input(m, "seed", &seed, sizeof seed, &err));
    OK(kgrt_model_set_input(m, "params", greedy, sizeof greedy, &err));
    for (int v = 0; v < V; ++v)
      got[v] = NAN;
    OK(kgrt_model_run(m, &err));
    OK(kgrt_model_get_output(m, "logits", got, sizeof(float) * (size_t)V, &err));
    int32_t ours = -1;
    OK(kgrt_model_get_output(m, "next_token", &ours, sizeof ours, &err));
    int32_t tok32 = -1;
    if (read_i32(f, &tok, 1) != 0 ||
        fread(want, sizeof(float), (size_t)V, f) != (size_t)V ||
        read_i32(f32, &tok32, 1) != 0 ||
        fread(want32, sizeof(float), (size_t)V, f32) != (size_t)V || tok32 != tok) {
      fprintf(stderr, "llama_hf: %s's logits files are short or disagree\n", argv[2]);
      failures++;
      goto done;
    }
    double vs_bf16 = nmse(got, want, V), vs_f32 = nmse(got, want32, V);
    double hf_vs_f32 = nmse(want, want32, V);
    int hf_best = argmax(want, V);
    double second = -INFINITY; /* HF's margin: how close its own call was */
    for (int v = 0; v < V; ++v)
      if (v != hf_best && want[v] > second)
        second = want[v];
    int same = ours == tok;
    /* where the tokens differ: how far apart the two are in HF's float32
     * forward (its token's lead over ours) and in kgen's logits */
    const int best32 = argmax(want32, V);
    const double gap32 = ours >= 0 && ours < V ? want32[best32] - want32[ours] : NAN;
    const double gap_ours = ours >= 0 && ours < V ? got[ours] - got[best32] : NAN;
    if (!(vs_f32 <= 1e-4) || !same)
      failures++;
    printf("{\"kind\": \"hf_logits\", \"step\": %d, \"nmse_vs_hf_bf16\": %.3g, "
           "\"nmse_vs_hf_f32\": %.3g, \"hf_bf16_vs_hf_f32\": %.3g, \"token\": %d, "
           "\"hf_token\": %d, \"hf_f32_token\": %d, \"hf_margin\": %.4g, "
           "\"f32_lead_over_ours\": %.4g, \"ours_lead_over_f32\": %.4g, "
           "\"f32_logit\": %.4g, \"same\": %s}\n",
           step, vs_bf16, vs_f32, hf_vs_f32, ours, tok, best32, want[hf_best] - second,
           gap32, gap_ours, want32[best32], same ? "true" : "false");
  }
  printf("{\"kind\": \"hf_summary\", \"steps\": %d, \"failures\": %d}\n", STEPS + 1,
         failures);
done:
  if (f)
    fclose(f);
  if (f32)
    fclose(f32);
  kgrt_weights_close(w);
  kgrt_model_unload(m);
  kgrt_device_close(dev);
  free(prompt);
  free(want);
  free(got);
  free(want32);
  free(prompt32);
  return failures == 0 ? 0 : 1;
}
