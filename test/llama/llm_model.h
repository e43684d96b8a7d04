/* llm_model.h - random-init Llama-family models for the tests and tools: a
 * config (the same keys as lua/models/llama.lua), weights drawn from a seed,
 * each stored in its GGUF format and kept dequantized in double, written as
 * a GGUF file (names and metadata as llama.cpp writes them) or as a
 * safetensors file (Hugging Face names; float formats only), and a float64
 * reference forward pass with its own KV cache.
 *
 * No weights can be downloaded here, so every model the tests run is made
 * by this file. Test code: plain over fast. Needs weights_writer.h. */
#ifndef KG_LLM_MODEL_H
#define KG_LLM_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "kgrt.h"

/* Weight kinds with a format of their own (lua/models/llama.lua's). */
enum {
  LLM_TOKEN_EMBD,
  LLM_OUTPUT,
  LLM_ATTN_Q,
  LLM_ATTN_K,
  LLM_ATTN_V,
  LLM_ATTN_OUTPUT,
  LLM_FFN_GATE,
  LLM_FFN_UP,
  LLM_FFN_DOWN,
  LLM_KINDS
};

typedef struct llm_config {
  int hidden, layers, heads, kv_heads, head_dim, ffn, vocab;
  int context;        /* KV cache slots */
  double rope_theta;  /* 0: 10000 */
  int rope_half;      /* 1: pairs (i, i + D/2); 0: interleaved (2i, 2i + 1) */
  double rope_factor; /* Llama 3.1 scaling when > 0 */
  double rope_low, rope_high, rope_original;
  double norm_eps;         /* 0: 1e-5 */
  int tied_embeddings;     /* the LM head is token_embd */
  int qkv_bias;            /* f32 biases on q, k, v (Qwen2) */
  int sliding_window;      /* 0: none (Mistral: keys within the last W positions) */
  uint32_t fmt[LLM_KINDS]; /* WW_GGML_* of each kind */
  /* per layer (layers entries, NULL: none), the kinds whose format is not
   * fmt[kind] there (0: fmt[kind]), as a Q4_K_M file has */
  const uint32_t (*layer_fmt)[LLM_KINDS];
} llm_config_t;

typedef struct llm_tensor {
  char gguf[64],
      hf[96];         /* blk.0.attn_q.weight / model.layers.0.self_attn.q_proj.weight */
  uint32_t type;      /* WW_GGML_* */
  int64_t rows, cols; /* rows 1 for a vector */
  void *bytes;        /* as stored */
  size_t nbytes;
  double *value; /* the stored values, decoded */
} llm_tensor_t;

typedef struct llm_model {
  llm_config_t c;
  int n;
  llm_tensor_t *t;
  /* indices into t: per layer, then the globals */
  int *attn_norm, *q, *k, *v, *qb, *kb, *vb, *o, *ffn_norm, *gate, *up, *down;
  int embd, out_norm, out;
  /* a SentencePiece-style vocabulary for the GGUF file (tokenizer.ggml.*),
   * or NULL (the file gets one of byte pieces and fillers): pieces, their
   * scores, n of them (the config's vocab) */
  const char *const *vocab;
  const float *scores;
  /* GGUF: also rope_freqs.weight, Llama 3.1's RoPE scaling as llama.cpp
   * reads it (a tensor no kgen table binds); no rope.dimension_count
   * (readers then take attention.key_length) */
  int rope_freqs, no_rope_dim;
} llm_model_t;

/* The sizes every test Llama shares (tiny.lua): 2 layers, hidden 256, 8
 * heads over 2 KV heads of 64, FFN 768, vocab 1000, a 64-slot KV cache. */
#define LLM_TINY_VOCAB 1000
#define LLM_TINY_SIZES                                                                   \
  .hidden = 256, .layers = 2, .heads = 8, .kv_heads = 2, .head_dim = 64, .ffn = 768,     \
  .vocab = LLM_TINY_VOCAB, .context = 64
/* The f16 test Llama's (llama_f16.lua): Qwen2's shape, heads x head_dim =
 * hidden (4 heads over 2 KV heads of 64), which llama.cpp's qwen2 loader
 * requires; the only test Llama with 2 query heads per KV head. */
#define LLM_TINY_SIZES_QWEN2                                                             \
  .hidden = 256, .layers = 2, .heads = 4, .kv_heads = 2, .head_dim = 64, .ffn = 768,     \
  .vocab = LLM_TINY_VOCAB, .context = 64
/* llama_bf16.lua's config (and llama_tp2/4.lua's): Llama 3.1's RoPE scaling,
 * bf16 weights (weights_writer.h's WW_GGML_BF16). */
/* clang-format off */
#define LLM_TINY_BF16                                                                    \
  {LLM_TINY_SIZES, .rope_theta = 500000, .rope_factor = 8, .rope_low = 1,                \
   .rope_high = 4, .rope_original = 64,                                                  \
   .fmt = {WW_GGML_BF16, WW_GGML_BF16, WW_GGML_BF16, WW_GGML_BF16, WW_GGML_BF16,         \
           WW_GGML_BF16, WW_GGML_BF16, WW_GGML_BF16, WW_GGML_BF16}}
/* The other test Llamas' configs (llama_*.lua; test_llama.c repeats them):
 * Qwen2-style f16 (half RoPE, q/k/v biases, tied embeddings), Mistral-style
 * Q8_0 (a sliding window of 16), Q4_K_M-style Q4_K (layer 0's attn_v and
 * ffn_down and the LM head in Q6_K), Q4_0. */
#define LLM_TINY_F16                                                                     \
  {LLM_TINY_SIZES_QWEN2, .rope_theta = 1000000, .rope_half = 1, .qkv_bias = 1,                 \
   .tied_embeddings = 1, .norm_eps = 1e-6,                                               \
   .fmt = {WW_GGML_F16, WW_GGML_F16, WW_GGML_F16, WW_GGML_F16, WW_GGML_F16,              \
           WW_GGML_F16, WW_GGML_F16, WW_GGML_F16, WW_GGML_F16}}
#define LLM_TINY_Q8_0                                                                    \
  {LLM_TINY_SIZES, .sliding_window = 16,                                                 \
   .fmt = {WW_GGML_Q8_0, WW_GGML_Q8_0, WW_GGML_Q8_0, WW_GGML_Q8_0, WW_GGML_Q8_0,         \
           WW_GGML_Q8_0, WW_GGML_Q8_0, WW_GGML_Q8_0, WW_GGML_Q8_0}}
extern const uint32_t llm_tiny_q4_k_layers[2][LLM_KINDS];
#define LLM_TINY_Q4_K                                                                    \
  {LLM_TINY_SIZES, .layer_fmt = llm_tiny_q4_k_layers,                                    \
   .fmt = {WW_GGML_Q4_K, WW_GGML_Q6_K, WW_GGML_Q4_K, WW_GGML_Q4_K, WW_GGML_Q4_K,         \
           WW_GGML_Q4_K, WW_GGML_Q4_K, WW_GGML_Q4_K, WW_GGML_Q4_K}}
#define LLM_TINY_Q4_0                                                                    \
  {LLM_TINY_SIZES,                                                                       \
   .fmt = {WW_GGML_Q4_0, WW_GGML_Q4_0, WW_GGML_Q4_0, WW_GGML_Q4_0, WW_GGML_Q4_0,         \
           WW_GGML_Q4_0, WW_GGML_Q4_0, WW_GGML_Q4_0, WW_GGML_Q4_0}}
/* clang-format on */

/* Draws the weights from seed: embeddings and norms near their usual
 * scales, projections with std about 1 / sqrt(K). 0 on success. */
int llm_model_init(llm_model_t *m, const llm_config_t *c, uint32_t seed);
void llm_model_free(llm_model_t *m);
/* The file as llama.cpp's converter writes one: general.architecture
 * "llama" ("qwen2" where the RoPE rotates halves), its hyperparameters
 * (attention.key_length and value_length where heads x head_dim is not
 * hidden, attention.sliding_window where there is one), a SentencePiece
 * tokenizer with token types. 0 on success. */
int llm_model_write_gguf(const llm_model_t *m, const char *path);
/* Its metadata KVs alone (architecture, sizes, tokenizer) into a GGUF
 * writer (weights_writer.h), for a writer whose tensors are not in m
 * (bench/llama_gguf.c: random weights at real shapes). 0 on success. */
struct ww_gguf;
int llm_model_gguf_meta(struct ww_gguf *g, const llm_model_t *m);
/* Hugging Face names; -1 when a weight is quantized. */
int llm_model_write_safetensors(const llm_model_t *m, const char *path);

/* The float64 forward pass over its own KV cache. */
typedef struct llm_ref {
  const llm_model_t *m;
  double *kc, *vc; /* [layers][kv_heads][context][head_dim] */
} llm_ref_t;

int llm_ref_init(llm_ref_t *r, const llm_model_t *m);
void llm_ref_free(llm_ref_t *r);
/* Runs tokens[0 .. T) at positions pos0 .. pos0 + T - 1 (the cache holds
 * the positions before), writing the last token's logits[vocab]. 0 on
 * success, -1 past the context. */
int llm_ref_forward(llm_ref_t *r, const int32_t *tokens, int T, int pos0, double *logits);

/* sum (a - ref)^2 / sum ref^2; NaN when a holds a NaN. */
double llm_nmse(const float *a, const double *ref, int n);

/* Whether ref's greedy token is clear under an NMSE of nmse_bound: its best
 * two logits further apart than 4 sqrt(nmse_bound) x their rms, which logits
 * off by that NMSE cannot swap. *out_best is the best; *out_gap the two's
 * difference. */
int llm_token_clear(const double *ref, int n, double nmse_bound, int *out_best,
                    double *out_gap);

/* One run of a lua/models/llama.lua table: dims T and S (pos0 + T), inputs
 * tokens, pos (pos0 ..), last (T - 1) and seed (0), then kgrt_model_run.
 * T at most LLM_RUN_MAX_T. */
#define LLM_RUN_MAX_T 64
kgrt_status_t llm_run(kgrt_model_t *m, const int32_t *tokens, int T, int pos0,
                      kgrt_error_t *err);

#endif /* KG_LLM_MODEL_H */
