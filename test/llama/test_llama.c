/* test_llama.c - a whole Llama-family model (lua/models/llama.lua) end to end
 * on a device: random weights written as a GGUF file by llm_model.c, bound by
 * name with kgrt_model_bind_weights, a 37-token prefill and then 16 decode
 * steps, each step's logits against the float64 reference (llm_ref_forward)
 * within an NMSE bound, the greedy token identical wherever the reference's
 * best two logits are far enough apart to call, and next_pos right; then the
 * same decode as a device-resident loop (kgrt_model_run_steps), whose tokens
 * must be exactly the host-driven loop's.
 *
 * Built once per test model (LLAMA_VARIANT picks the table and the config
 * below, which repeat that model's .lua file; binding fails if a size or a
 * format differs).
 *
 * Usage: test_llama [--safetensors] [DEVICE_SPEC...] (default sim:gfx1100
 * and sim:gfx942); --safetensors binds the same weights from a safetensors
 * file with Hugging Face names instead. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kgrt.h"
#include "kgrt_weights.h"
#include "llm_model.h"
#include "test.h"
#include "weights_writer.h"

#if LLAMA_VARIANT == 1
#include "llama_bf16.h"
#define TABLE kgen_llama_bf16
static const llm_config_t config = LLM_TINY_BF16;
static const double nmse_bound = 1e-4;
#elif LLAMA_VARIANT == 2
#include "llama_f16.h"
#define TABLE kgen_llama_f16
static const llm_config_t config = LLM_TINY_F16;
static const double nmse_bound = 1e-6;
#elif LLAMA_VARIANT == 3
#include "llama_q8_0.h"
#define TABLE kgen_llama_q8_0
static const llm_config_t config = {LLM_TINY_SIZES, .sliding_window = 16,
                                    .fmt = {WW_GGML_Q8_0, WW_GGML_Q8_0, WW_GGML_Q8_0,
                                            WW_GGML_Q8_0, WW_GGML_Q8_0, WW_GGML_Q8_0,
                                            WW_GGML_Q8_0, WW_GGML_Q8_0, WW_GGML_Q8_0}};
static const double nmse_bound = 1e-6;
#elif LLAMA_VARIANT == 4
#include "llama_q4_k.h"
#define TABLE kgen_llama_q4_k
/* layer 0's attn_v and ffn_down in Q6_K (llama_q4_k.lua) */
static const uint32_t q4_k_m_layers[2][LLM_KINDS] = {
    {[LLM_ATTN_V] = WW_GGML_Q6_K, [LLM_FFN_DOWN] = WW_GGML_Q6_K}};
static const llm_config_t config = {LLM_TINY_SIZES, .layer_fmt = q4_k_m_layers,
                                    .fmt = {WW_GGML_Q4_K, WW_GGML_Q6_K, WW_GGML_Q4_K,
                                            WW_GGML_Q4_K, WW_GGML_Q4_K, WW_GGML_Q4_K,
                                            WW_GGML_Q4_K, WW_GGML_Q4_K, WW_GGML_Q4_K}};
static const double nmse_bound = 1e-6;
#elif LLAMA_VARIANT == 5
#include "llama_q4_0.h"
#define TABLE kgen_llama_q4_0
static const llm_config_t config = {LLM_TINY_SIZES,
                                    .fmt = {WW_GGML_Q4_0, WW_GGML_Q4_0, WW_GGML_Q4_0,
                                            WW_GGML_Q4_0, WW_GGML_Q4_0, WW_GGML_Q4_0,
                                            WW_GGML_Q4_0, WW_GGML_Q4_0, WW_GGML_Q4_0}};
static const double nmse_bound = 1e-4; /* bf16 activations */
#else
#error "LLAMA_VARIANT must be 1 (bf16), 2 (f16), 3 (q8_0), 4 (q4_k) or 5 (q4_0)"
#endif

enum { PROMPT = 37, STEPS = 16 };

#define OK(call)                                                                         \
  do {                                                                                   \
    if ((call) != KGRT_STATUS_OK) {                                                      \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, err.message);        \
      test_failures++;                                                                   \
      goto done;                                                                         \
    }                                                                                    \
  } while (0)

/* Checks one step: logits against ref, the token where the reference is
 * sure, next_pos. Counts the steps whose token could be called. */
static void check_step(const char *spec, int step, const float *logits, const double *ref,
                       int32_t token, int32_t next_pos, int want_pos, int *called) {
  const int V = config.vocab;
  double nmse = llm_nmse(logits, ref, V), gap;
  int best;
  const int sure = llm_token_clear(ref, V, nmse_bound, &best, &gap);
  *called += sure;
  test_checks++;
  if (!(nmse <= nmse_bound))
    TEST_FAIL_("%s step %d: logits NMSE %.3g over %.0e", spec, step, nmse, nmse_bound);
  test_checks++;
  if (sure && token != best)
    TEST_FAIL_("%s step %d: token %d, the reference's %d (margin %.3g)", spec, step,
               token, best, gap);
  CHECK_EQ(next_pos, want_pos);
  printf("%s step %2d: NMSE %.3g token %d%s\n", spec, step, nmse, token,
         sure ? "" : " (too close to call)");
}

/* The profile counts what a decode step moves (kgrt_step_profile_t.bytes):
 * of the KV caches, each attention reads one layer's keys and values up to
 * the context, so between contexts S1 and S2 an attention step's bytes grow
 * by 2 KVH D (S2 - S1) elements and no other step's change; before, every
 * step that took a cache counted both caches whole. */
static void check_profile_bytes(const char *spec, kgrt_model_t *m) {
  enum { S1 = 8, S2 = 40, MAX_STEPS = 256 };
  static kgrt_step_profile_t p1[MAX_STEPS], p2[MAX_STEPS];
  kgrt_error_t err = {0};
  uint32_t n1 = 0, n2 = 0;
  size_t cache = 0;
  OK(kgrt_model_tensor_bytes(m, "k_cache", &cache, &err));
  const size_t elems =
      (size_t)config.layers * config.kv_heads * config.context * config.head_dim;
  const uint64_t per_key = 2u * config.kv_heads * config.head_dim * (cache / elems);
  OK(kgrt_model_set_dim(m, "T", 1, &err));
  OK(kgrt_model_set_dim(m, "S", S1, &err));
  OK(kgrt_model_profile(m, 1, p1, MAX_STEPS, &n1, &err));
  OK(kgrt_model_set_dim(m, "S", S2, &err));
  OK(kgrt_model_profile(m, 1, p2, MAX_STEPS, &n2, &err));
  CHECK_EQ(n1, n2);
  int attention = 0;
  for (uint32_t s = 0; s < n1 && s < n2; ++s) {
    if (!p1[s].launched || !p2[s].launched)
      continue;
    const int is_attention = strstr(p1[s].kernel, "attention") != NULL;
    const uint64_t want = is_attention ? per_key * (S2 - S1) : 0;
    attention += is_attention;
    test_checks++;
    if (p2[s].bytes - p1[s].bytes != want || (is_attention && p1[s].bytes < per_key * S1))
      TEST_FAIL_("%s: profile step %u (%s): %llu bytes at S %d, %llu at S %d; want %llu "
                 "more",
                 spec, s, p1[s].kernel, (unsigned long long)p1[s].bytes, S1,
                 (unsigned long long)p2[s].bytes, S2, (unsigned long long)want);
  }
  CHECK_EQ(attention, config.layers);
  /* the token embedding reads a row of its table a token, not the table:
   * from T = 1 to 2 its bytes grow by one row of the table, one id and one
   * row of the result (at most 4 bytes an element) */
  size_t table = 0;
  OK(kgrt_model_tensor_bytes(m, "token_embd_weight", &table, &err));
  const uint64_t row = table / (size_t)config.vocab;
  const int32_t two[2] = {1, 2}, pos[2] = {S2 - 2, S2 - 1};
  OK(kgrt_model_set_dim(m, "T", 2, &err));
  OK(kgrt_model_set_input(m, "tokens", two, sizeof two, &err));
  OK(kgrt_model_set_input(m, "pos", pos, sizeof pos, &err));
  OK(kgrt_model_profile(m, 1, p2, MAX_STEPS, &n2, &err));
  int embedding = -1;
  for (uint32_t s = 0; s < n1 && embedding < 0; ++s)
    if (p1[s].launched && strstr(p1[s].kernel, "embedding") != NULL)
      embedding = (int)s;
  CHECK(embedding >= 0);
  if (embedding >= 0) {
    const uint64_t b1 = p1[embedding].bytes, b2 = p2[embedding].bytes;
    printf("%s: profile: the token embedding moves %llu bytes at T 1, %llu at T 2 (a row "
           "of the table %llu, the table %zu)\n",
           spec, (unsigned long long)b1, (unsigned long long)b2, (unsigned long long)row,
           table);
    CHECK(b1 < table / 8);
    CHECK(b2 - b1 >= row + 4 && b2 - b1 <= row + 4 + 4u * (uint64_t)config.hidden);
  }
done:;
}

static void run_device(const char *spec, const char *path, const llm_model_t *lm) {
  kgrt_error_t err = {0};
  kgrt_device_t *dev = NULL;
  kgrt_model_t *m = NULL;
  kgrt_weights_t *w = NULL;
  llm_ref_t ref = {0};
  const int V = config.vocab;
  float *logits = malloc(sizeof(float) * (size_t)V);
  double *want = malloc(sizeof(double) * (size_t)V);
  int32_t prompt[PROMPT], token = -1, next_pos = -1, host_tokens[STEPS + 1];
  int called = 0;
  if (logits == NULL || want == NULL || llm_ref_init(&ref, lm) != 0) {
    TEST_FAIL_("out of memory");
    goto done;
  }
  OK(kgrt_device_open(spec, NULL, &dev, &err));
  OK(kgrt_model_load(dev, &TABLE, &m, &err));
  OK(kgrt_weights_open(path, NULL, &w, &err));
  OK(kgrt_model_bind_weights(m, w, KGRT_BIND_REFUSE_UNUSED, &err));
  kgrt_weights_close(w);
  w = NULL;
  uint32_t s = 12345;
  for (int t = 0; t < PROMPT; ++t) {
    s = s * 1664525u + 1013904223u;
    prompt[t] = (int32_t)((s >> 8) % (uint32_t)V);
  }
  for (int step = 0; step <= STEPS; ++step) {
    const int T = step == 0 ? PROMPT : 1, pos0 = step == 0 ? 0 : PROMPT + step - 1;
    const int32_t *tokens = step == 0 ? prompt : &token;
    for (int v = 0; v < V; ++v)
      logits[v] = NAN;
    if (llm_ref_forward(&ref, tokens, T, pos0, want) != 0) {
      TEST_FAIL_("the reference failed at step %d", step);
      goto done;
    }
    OK(llm_run(m, tokens, T, pos0, &err));
    OK(kgrt_model_get_output(m, "logits", logits, sizeof(float) * (size_t)V, &err));
    OK(kgrt_model_get_output(m, "next_token", &token, sizeof token, &err));
    OK(kgrt_model_get_output(m, "next_pos", &next_pos, sizeof next_pos, &err));
    check_step(spec, step, logits, want, token, next_pos, pos0 + T, &called);
    host_tokens[step] = token;
    if (token < 0 || token >= V) {
      TEST_FAIL_("%s step %d: token %d outside the vocabulary", spec, step, token);
      goto done;
    }
  }
  /* the same decode on the device: state reset, the same prefill, then the
   * 16 steps with next_token and next_pos fed back by kgrt_model_run_steps,
   * the tokens read back once: exactly the host-driven loop's */
  OK(kgrt_model_reset_state(m, &err));
  OK(llm_run(m, prompt, PROMPT, 0, &err));
  int32_t first = -1, zero = 0, pos = PROMPT;
  OK(kgrt_model_get_output(m, "next_token", &first, sizeof first, &err));
  CHECK_EQ(first, host_tokens[0]);
  OK(kgrt_model_set_dim(m, "T", 1, &err));
  OK(kgrt_model_set_dim(m, "S", PROMPT + 1, &err));
  OK(kgrt_model_set_input(m, "tokens", &first, sizeof first, &err));
  OK(kgrt_model_set_input(m, "pos", &pos, sizeof pos, &err));
  OK(kgrt_model_set_input(m, "last", &zero, sizeof zero, &err));
  OK(kgrt_model_link(m, "next_token", "tokens", &err));
  OK(kgrt_model_link(m, "next_pos", "pos", &err));
  OK(kgrt_model_step_dim(m, "S", 1, &err));
  int32_t device_tokens[STEPS];
  OK(kgrt_model_run_steps(m, STEPS, "next_token", device_tokens, sizeof device_tokens,
                          &err));
  for (int i = 0; i < STEPS; ++i)
    CHECK_EQ(device_tokens[i], host_tokens[i + 1]);
  check_profile_bytes(spec, m);
  /* a test whose tokens were all too close to call would prove nothing */
  test_checks++;
  if (called < (STEPS + 1) / 2)
    TEST_FAIL_("%s: only %d of %d steps had a token clear enough to check", spec, called,
               STEPS + 1);
done:
  kgrt_weights_close(w);
  kgrt_model_unload(m);
  kgrt_device_close(dev);
  llm_ref_free(&ref);
  free(logits);
  free(want);
}

int main(int argc, char **argv) {
  int safetensors = argc > 1 && strcmp(argv[1], "--safetensors") == 0;
  char path[] = "/tmp/kgen_test_llama_XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) {
    perror("mkstemp");
    return 1;
  }
  close(fd);
  llm_model_t lm;
  if (llm_model_init(&lm, &config, 1) != 0 ||
      (safetensors ? llm_model_write_safetensors(&lm, path)
                   : llm_model_write_gguf(&lm, path)) != 0) {
    fprintf(stderr, "test_llama: cannot write the model to %s\n", path);
    unlink(path);
    return 1;
  }
  const char *defaults[] = {"sim:gfx1100", "sim:gfx942"};
  int first = 1 + safetensors;
  if (argc > first)
    for (int i = first; i < argc; ++i)
      run_device(argv[i], path, &lm);
  else
    for (int i = 0; i < 2; ++i)
      run_device(defaults[i], path, &lm);
  unlink(path);
  llm_model_free(&lm);
  return TEST_DONE();
}
