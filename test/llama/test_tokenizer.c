/* test_tokenizer.c - examples/llm's GGUF tokenizer on vocabularies written
 * here: SentencePiece-style BPE encodes by its scores (the best-scored
 * merge first, whole words where the pieces reach them), falls back to byte
 * pieces, prepends BOS, and decodes back to the text; byte-level BPE (GPT-2
 * style) decodes its remapped bytes; malformed tokenizers are refused. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kgrt_weights.h"
#include "llm_tokenizer.h"
#include "test.h"
#include "weights_writer.h"

#define SP "\xe2\x96\x81"

/* A GGUF file in memory with one f32 tensor and the tokenizer KVs. */
static int open_vocab(ww_buf_t *file, kgrt_weights_t **w, const char *model,
                      const char *const *tokens, const float *scores, int n,
                      int scores_n) {
  ww_gguf_t g;
  ww_gguf_init(&g, 3, 32);
  ww_gguf_kv_str(&g, "general.architecture", "llama");
  ww_gguf_kv_str(&g, "tokenizer.ggml.model", model);
  ww_gguf_kv_strs(&g, "tokenizer.ggml.tokens", tokens, (uint64_t)n);
  if (scores != NULL) {
    ww_buf_t v = {0};
    ww_u32(&v, WW_F32);
    ww_u64(&v, (uint64_t)scores_n);
    for (int i = 0; i < scores_n; ++i) {
      uint32_t u;
      memcpy(&u, &scores[i], 4);
      ww_u32(&v, u);
    }
    ww_gguf_kv_raw(&g, "tokenizer.ggml.scores", WW_ARRAY, v.p, v.len);
    ww_free(&v);
  }
  ww_gguf_kv_u32(&g, "tokenizer.ggml.bos_token_id", 1);
  ww_gguf_kv_u32(&g, "tokenizer.ggml.eos_token_id", 2);
  float x[8] = {0};
  uint64_t ne[1] = {8};
  ww_gguf_tensor(&g, "t.weight", WW_GGML_F32, 1, ne, x, sizeof x);
  int rc = ww_gguf_finish(&g, file, NULL);
  ww_gguf_free(&g);
  kgrt_error_t err;
  if (rc != 0 ||
      kgrt_weights_open_memory(file->p, file->len, KGRT_WEIGHTS_FORMAT_GGUF, "vocab.gguf",
                               NULL, w, &err) != KGRT_STATUS_OK) {
    fprintf(stderr, "cannot open the vocabulary: %s\n", rc ? "writer" : err.message);
    return -1;
  }
  return 0;
}

static void decode(const llm_tokenizer_t *t, const int32_t *ids, int n, char *out,
                   size_t size) {
  size_t o = 0;
  for (int i = 0; i < n; ++i) {
    if (ids[i] == t->bos)
      continue;
    char piece[64];
    size_t l = llm_tokenizer_piece(t, ids[i], piece, sizeof piece);
    if (o + l < size) {
      memcpy(out + o, piece, l);
      o += l;
    }
  }
  out[o] = 0;
}

static void test_spm(void) {
  /* pieces: control, bytes for 'x' (0x78), 0xC3, 0xA9; letters; words and
   * their prefixes, longer scoring higher */
  const char *tokens[] = {"<unk>",   "<s>",   "</s>",   "<0x78>",  "<0xC3>", "<0xA9>",
                          SP,        "o",     "n",      "c",       "e",      "u",
                          "p",       "a",     "t",      "i",       "m",      SP "o",
                          SP "u",    SP "a",  SP "t",   SP "on",   SP "up",  SP "upo",
                          SP "upon", SP "ti", SP "tim", SP "time", "nc"};
  const int n = (int)(sizeof tokens / sizeof tokens[0]);
  float scores[sizeof tokens / sizeof tokens[0]];
  for (int i = 0; i < n; ++i)
    scores[i] = (float)strlen(tokens[i]);
  scores[n - 1] = 100; /* "nc" merges first; then "▁o", and "▁o" + "nc" is no piece */
  ww_buf_t file = {0};
  kgrt_weights_t *w = NULL;
  llm_tokenizer_t t;
  char why[128];
  CHECK(open_vocab(&file, &w, "llama", tokens, scores, n, n) == 0);
  CHECK(llm_tokenizer_load(&t, w, why, sizeof why) == 0);
  CHECK_EQ(t.kind, LLM_TOK_SPM);
  CHECK_EQ(t.bos, 1);
  CHECK_EQ(t.eos, 2);
  CHECK_EQ(t.add_bos, 1);
  int32_t ids[32];
  char text[128];
  /* "upon a time": whole words */
  int k = llm_tokenizer_encode(&t, "upon a time", ids, 32);
  CHECK_EQ(k, 4);
  CHECK_EQ(ids[0], 1);
  CHECK_STR(t.piece[ids[1]], SP "upon");
  CHECK_STR(t.piece[ids[2]], SP "a");
  CHECK_STR(t.piece[ids[3]], SP "time");
  decode(&t, ids, k, text, sizeof text);
  CHECK_STR(text, " upon a time");
  /* the best-scored merge wins even where it blocks a longer word */
  k = llm_tokenizer_encode(&t, "once", ids, 32);
  CHECK_EQ(k, 4); /* <s> ▁o nc e */
  CHECK_STR(t.piece[ids[1]], SP "o");
  CHECK_STR(t.piece[ids[2]], "nc");
  CHECK_STR(t.piece[ids[3]], "e");
  /* no piece: the bytes */
  k = llm_tokenizer_encode(&t, "x\xc3\xa9", ids, 32);
  CHECK_EQ(k, 5); /* <s> ▁ <0x78> <0xC3> <0xA9> */
  CHECK_EQ(ids[2], 3);
  CHECK_EQ(ids[3], 4);
  CHECK_EQ(ids[4], 5);
  decode(&t, ids, k, text, sizeof text);
  CHECK_STR(text, " x\xc3\xa9");
  /* a byte with no byte piece cannot be encoded; nor can more than cap */
  CHECK_EQ(llm_tokenizer_encode(&t, "z", ids, 32), -1);
  CHECK_EQ(llm_tokenizer_encode(&t, "upon a time", ids, 3), -1);
  /* ids outside the vocabulary decode to nothing */
  CHECK_EQ(llm_tokenizer_piece(&t, n, text, sizeof text), 0);
  CHECK_EQ(llm_tokenizer_piece(&t, -1, text, sizeof text), 0);
  llm_tokenizer_free(&t);
  kgrt_weights_close(w);
  ww_free(&file);
}

static void test_gpt2(void) {
  /* GPT-2's byte alphabet: 'H' is itself, a space is U+0120 (Ġ), a newline
   * U+010A (Ċ) */
  const char *tokens[] = {"!", "<s>", "</s>", "Hello", "\xc4\xa0world", "\xc4\x8a"};
  ww_buf_t file = {0};
  kgrt_weights_t *w = NULL;
  llm_tokenizer_t t;
  char why[128], text[64];
  CHECK(open_vocab(&file, &w, "gpt2", tokens, NULL, 6, 0) == 0);
  CHECK(llm_tokenizer_load(&t, w, why, sizeof why) == 0);
  CHECK_EQ(t.kind, LLM_TOK_GPT2);
  CHECK_EQ(t.add_bos, 0);
  int32_t ids[] = {3, 4, 5, 0};
  decode(&t, ids, 4, text, sizeof text);
  CHECK_STR(text, "Hello world\n!");
  CHECK_EQ(llm_tokenizer_encode(&t, "Hello", ids, 4), -1); /* not yet */
  llm_tokenizer_free(&t);
  kgrt_weights_close(w);
  ww_free(&file);
}

static void test_refused(void) {
  const char *tokens[] = {"a", "b", "c"};
  const float scores[] = {1, 2};
  ww_buf_t file = {0};
  kgrt_weights_t *w = NULL;
  llm_tokenizer_t t;
  char why[128];
  /* a score count that is not the token count */
  CHECK(open_vocab(&file, &w, "llama", tokens, scores, 3, 2) == 0);
  CHECK(llm_tokenizer_load(&t, w, why, sizeof why) == -1);
  CHECK(strstr(why, "scores") != NULL);
  kgrt_weights_close(w);
  ww_free(&file);
  /* an unknown tokenizer model */
  file = (ww_buf_t){0};
  CHECK(open_vocab(&file, &w, "bert", tokens, NULL, 3, 0) == 0);
  CHECK(llm_tokenizer_load(&t, w, why, sizeof why) == -1);
  CHECK(strstr(why, "tokenizer.ggml.model") != NULL);
  kgrt_weights_close(w);
  ww_free(&file);
}

int main(void) {
  test_spm();
  test_gpt2();
  test_refused();
  return TEST_DONE();
}
