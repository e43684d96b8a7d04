/* make_tiny_llama.c - writes the random-init GGUF file of
 * examples/llm/tiny_llama.lua (the same sizes; bf16; norms f32), with a
 * SentencePiece-style vocabulary of 1000 pieces: <unk>, <s>, </s>, the 256
 * byte pieces, then English words with every prefix of each (so the BPE
 * merges reach them), letters and digits.
 *   make_tiny_llama OUT.gguf [SEED] [--ffn N] [--q4_k_m]
 * (--ffn: another FFN size, a file the table does not fit, for the tests;
 * --q4_k_m: the weights as a Q4_K_M file mixes them: Q4_K, the LM head in
 * Q6_K, layer 0's attn_v and ffn_down in Q6_K: formats that change by layer)
 *   make_tiny_llama --hf DIR
 * writes the same model as a Hugging Face checkpoint instead:
 * DIR/model.safetensors (HF tensor names) and DIR/config.json.
 *   make_tiny_llama OUT.gguf --variant bf16|f16|q8_0|q4_k|q4_0 [--context N]
 * writes a test Llama's file instead (test_llama.c's: the config of
 * test/llama/llama_<variant>.lua, seed 1, no vocabulary of words), with
 * rope_freqs.weight where its RoPE is scaled, as llama.cpp reads it;
 * --context: its context_length (the test tables' is 64).
 * --no-rope-dim: no rope.dimension_count (readers take the head size from
 * attention.key_length). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llm_model.h"
#include "weights_writer.h"

enum { VOCAB = 1000 };

static const char *const words[] = {
    "the",    "of",      "and",     "to",    "in",    "is",     "was",     "he",
    "for",    "it",      "with",    "as",    "his",   "on",     "be",      "at",
    "by",     "had",     "not",     "are",   "but",   "from",   "or",      "have",
    "an",     "they",    "which",   "one",   "you",   "were",   "her",     "all",
    "she",    "there",   "would",   "their", "we",    "him",    "been",    "has",
    "when",   "who",     "will",    "more",  "no",    "if",     "out",     "so",
    "said",   "what",    "up",      "its",   "about", "into",   "than",    "them",
    "can",    "only",    "other",   "new",   "some",  "could",  "time",    "these",
    "two",    "may",     "then",    "do",    "first", "any",    "my",      "now",
    "such",   "like",    "our",     "over",  "man",   "me",     "even",    "most",
    "made",   "after",   "also",    "did",   "many",  "before", "must",    "through",
    "back",   "years",   "where",   "much",  "your",  "way",    "well",    "down",
    "should", "because", "each",    "just",  "those", "people", "how",     "too",
    "little", "state",   "good",    "very",  "make",  "world",  "still",   "own",
    "see",    "men",     "work",    "long",  "get",   "here",   "between", "both",
    "life",   "being",   "under",   "never", "day",   "same",   "another", "know",
    "while",  "last",    "might",   "us",    "great", "old",    "year",    "off",
    "come",   "since",   "against", "go",    "came",  "right",  "used",    "take",
    "three",  "once",    "upon",    "a",     "small", "cat",    "dog",     "sun",
    "moon",   "tree",    "river",   "house", "king",  "queen",  "light",   "night",
    "story",  "model",   "kernel"};

static char *pieces[VOCAB];
static float scores[VOCAB];
static int n;

static int has(const char *s) {
  for (int i = 0; i < n; ++i)
    if (strcmp(pieces[i], s) == 0)
      return 1;
  return 0;
}

static void add(const char *s, float score) {
  if (n < VOCAB && !has(s)) {
    pieces[n] = strdup(s);
    scores[n++] = score;
  }
}

/* The config.json transformers writes for c (LlamaConfig's keys). */
static int write_hf_config(const llm_config_t *c, const char *path) {
  FILE *f = fopen(path, "w");
  if (f == NULL)
    return -1;
  fprintf(
      f,
      "{\n  \"architectures\": [\"LlamaForCausalLM\"],\n  \"model_type\": \"llama\",\n"
      "  \"hidden_act\": \"silu\",\n  \"hidden_size\": %d,\n  \"intermediate_size\": "
      "%d,\n"
      "  \"num_hidden_layers\": %d,\n  \"num_attention_heads\": %d,\n"
      "  \"num_key_value_heads\": %d,\n  \"head_dim\": %d,\n  \"vocab_size\": %d,\n"
      "  \"max_position_embeddings\": %d,\n  \"rope_theta\": %.1f,\n"
      "  \"rope_scaling\": null,\n  \"rms_norm_eps\": 1e-05,\n"
      "  \"tie_word_embeddings\": false,\n  \"attention_bias\": false,\n"
      "  \"torch_dtype\": \"bfloat16\",\n  \"bos_token_id\": 1,\n  \"eos_token_id\": "
      "2\n}\n",
      c->hidden, c->ffn, c->layers, c->heads, c->kv_heads, c->head_dim, c->vocab,
      c->context, c->rope_theta);
  return fclose(f) == 0 ? 0 : -1;
}

/* A test Llama's file (test_llama.c's model: seed 1). */
static int write_variant(const char *name, int context, int no_rope_dim,
                         const char *out) {
  static const struct {
    const char *name;
    llm_config_t c;
  } variants[] = {{"bf16", LLM_TINY_BF16},
                  {"f16", LLM_TINY_F16},
                  {"q8_0", LLM_TINY_Q8_0},
                  {"q4_k", LLM_TINY_Q4_K},
                  {"q4_0", LLM_TINY_Q4_0}};
  for (size_t i = 0; i < sizeof variants / sizeof variants[0]; ++i) {
    if (strcmp(name, variants[i].name) != 0)
      continue;
    llm_config_t c = variants[i].c;
    if (context > 0)
      c.context = context;
    llm_model_t m;
    int rc = llm_model_init(&m, &c, 1);
    m.rope_freqs = 1;
    m.no_rope_dim = no_rope_dim;
    if (rc == 0)
      rc = llm_model_write_gguf(&m, out);
    llm_model_free(&m);
    if (rc != 0)
      fprintf(stderr, "make_tiny_llama: cannot write %s\n", out);
    return rc == 0 ? 0 : 1;
  }
  fprintf(stderr,
          "make_tiny_llama: --variant %s: expected bf16, f16, q8_0, q4_k or q4_0\n",
          name);
  return 1;
}

int main(int argc, char **argv) {
  int ffn = 768, q4_k_m = 0, bad = argc < 2, context = 0, no_rope_dim = 0;
  const char *variant = NULL;
  uint32_t seed = 1;
  const char *hf = argc == 3 && strcmp(argv[1], "--hf") == 0 ? argv[2] : NULL;
  const char *out = NULL;
  for (int a = 1; hf == NULL && a < argc; ++a) {
    if (strcmp(argv[a], "--ffn") == 0 && a + 1 < argc)
      ffn = atoi(argv[++a]);
    else if (strcmp(argv[a], "--q4_k_m") == 0)
      q4_k_m = 1;
    else if (strcmp(argv[a], "--variant") == 0 && a + 1 < argc)
      variant = argv[++a];
    else if (strcmp(argv[a], "--context") == 0 && a + 1 < argc)
      context = atoi(argv[++a]);
    else if (strcmp(argv[a], "--no-rope-dim") == 0)
      no_rope_dim = 1;
    else if (out == NULL && argv[a][0] != '-')
      out = argv[a];
    else if (a == 2 && argv[a][0] >= '0' && argv[a][0] <= '9')
      seed = (uint32_t)strtoul(argv[a], NULL, 10);
    else
      bad = 1;
  }
  if (bad || (hf == NULL && out == NULL)) {
    fprintf(
        stderr,
        "usage: make_tiny_llama OUT.gguf [SEED] [--ffn N] [--q4_k_m] [--no-rope-dim] | "
        "OUT.gguf --variant NAME [--context N] | --hf DIR\n");
    return 1;
  }
  if (variant != NULL)
    return write_variant(variant, context, no_rope_dim, out);
  if (ffn < 256 || ffn % 256 != 0) {
    fprintf(stderr, "make_tiny_llama: --ffn takes a multiple of 256\n");
    return 1;
  }
  add("<unk>", 0);
  add("<s>", 0);
  add("</s>", 0);
  char buf[64];
  for (int b = 0; b < 256; ++b) {
    snprintf(buf, sizeof buf, "<0x%02X>", b);
    add(buf, 0);
  }
  const char *sp = "\xe2\x96\x81"; /* the SentencePiece space */
  add(sp, -1);
  for (const char *c =
           "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,!?'";
       *c; ++c) {
    snprintf(buf, sizeof buf, "%c", *c);
    add(buf, -2);
    snprintf(buf, sizeof buf, "%s%c", sp, *c);
    add(buf, -1.5f);
  }
  /* each word with a space before it, and every prefix: longer scores higher */
  for (size_t w = 0; w < sizeof words / sizeof words[0]; ++w)
    for (size_t l = 2; l <= strlen(words[w]); ++l) {
      snprintf(buf, sizeof buf, "%s%.*s", sp, (int)l, words[w]);
      add(buf, (float)l - 0.001f * (float)w);
    }
  for (int i = 0; n < VOCAB; ++i) { /* pad with letter pairs */
    snprintf(buf, sizeof buf, "%c%c", 'a' + i / 26 % 26, 'a' + i % 26);
    add(buf, -3);
  }
  llm_config_t c = {.hidden = 256,
                    .layers = 2,
                    .heads = 8,
                    .kv_heads = 2,
                    .head_dim = 64,
                    .ffn = ffn,
                    .vocab = VOCAB,
                    .context = 256,
                    .rope_theta = 10000};
  for (int k = 0; k < LLM_KINDS; ++k)
    c.fmt[k] = q4_k_m ? WW_GGML_Q4_K : WW_GGML_BF16;
  static const uint32_t q4_k_m_layers[2][LLM_KINDS] = {
      {[LLM_ATTN_V] = WW_GGML_Q6_K, [LLM_FFN_DOWN] = WW_GGML_Q6_K}};
  if (q4_k_m) {
    c.fmt[LLM_OUTPUT] = WW_GGML_Q6_K;
    c.layer_fmt = q4_k_m_layers;
  }
  llm_model_t m;
  int rc = llm_model_init(&m, &c, seed);
  m.vocab = (const char *const *)pieces;
  m.scores = scores;
  m.no_rope_dim = no_rope_dim;
  char path[4096];
  if (hf != NULL) {
    snprintf(path, sizeof path, "%s/model.safetensors", hf);
    if (rc == 0)
      rc = llm_model_write_safetensors(&m, path);
    if (rc == 0) {
      snprintf(path, sizeof path, "%s/config.json", hf);
      rc = write_hf_config(&c, path);
    }
  } else {
    snprintf(path, sizeof path, "%s", out);
    if (rc == 0)
      rc = llm_model_write_gguf(&m, path);
  }
  if (rc != 0)
    fprintf(stderr, "make_tiny_llama: cannot write %s\n", path);
  llm_model_free(&m);
  for (int i = 0; i < n; ++i)
    free(pieces[i]);
  return rc == 0 ? 0 : 1;
}
