/* test_tokenizer.c - examples/llm's GGUF tokenizer on vocabularies written
 * here: SentencePiece-style BPE encodes by its scores (the best-scored
 * merge first, whole words where the pieces reach them), falls back to byte
 * pieces, prepends BOS, and decodes back to the text; byte-level BPE (GPT-2
 * and Llama 3 style) splits text as their pre-tokenizers' regular
 * expressions do, merges by rank, encodes any bytes and decodes them back;
 * malformed tokenizers are refused. */
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
  /* no merges reach "Hello" and 'H' alone is no token */
  CHECK_EQ(llm_tokenizer_encode(&t, "Hello", ids, 4), -1);
  llm_tokenizer_free(&t);
  kgrt_weights_close(w);
  ww_free(&file);
}

/* The words llm_tokenizer_split gives, joined by '|'. */
static void split(llm_pre_t pre, const char *text, char *out, size_t size) {
  size_t ends[64], o = 0, from = 0;
  int n = llm_tokenizer_split(pre, text, strlen(text), ends, 64);
  out[0] = 0;
  for (int i = 0; i < n && o + (ends[i] - from) + 2 < size; from = ends[i++]) {
    if (i > 0)
      out[o++] = '|';
    memcpy(out + o, text + from, ends[i] - from);
    o += ends[i] - from;
  }
  out[o] = 0;
  if (n < 0)
    snprintf(out, size, "(refused)");
}

static void test_split(void) {
  static const struct {
    llm_pre_t pre;
    const char *text, *words;
  } cases[] = {
      /* Llama 3: contractions in any case, a letter run with the one
       * non-letter before it, digits by three, punctuation with the line
       * breaks after it, spaces before a word less the last, line breaks on
       * their own, CJK as letters and its full stop not */
      {LLM_PRE_LLAMA3, "I'm   here\n\nok", "I|'m|  | here|\n\n|ok"},
      {LLM_PRE_LLAMA3, "x=12345!!\n", "x|=|123|45|!!\n"},
      {LLM_PRE_LLAMA3, "DON'T stop 7", "DON|'T| stop| |7"},
      {LLM_PRE_LLAMA3, "  lead, end  ", " | lead|,| end|  "},
      {LLM_PRE_LLAMA3,
       "\xc3\x9cn\xc3\xaf"
       "code \xe4\xb8\xad\xe6\x96\x87\xe3\x80\x82",
       "\xc3\x9cn\xc3\xaf"
       "code| \xe4\xb8\xad\xe6\x96\x87|\xe3\x80\x82"},
      {LLM_PRE_QWEN2, "x=123", "x|=|1|2|3"},
      /* GPT-2: contractions in lower case only, ' ?' before letters,
       * numbers and punctuation, digits whole */
      {LLM_PRE_GPT2, "x=12345!!\n", "x|=|12345|!!|\n"},
      {LLM_PRE_GPT2, "DON'T I'm  7", "DON|'|T| I|'m| | 7"},
      {LLM_PRE_UNKNOWN, "x", "(refused)"},
  };
  char w[256];
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    split(cases[i].pre, cases[i].text, w, sizeof w);
    CHECK_STR(w, cases[i].words);
  }
}

/* GPT-2's byte-level alphabet, as the test spells it: byte b is its own
 * code point where it prints (33-126, 161-172, 174-255), else 256 + k for
 * the k-th byte that does not. */
static void byte_char(unsigned b, char out[3]) {
  unsigned cp = b, k = 0;
  int own = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174;
  if (!own) {
    for (unsigned o = 0; o < b; ++o)
      k += !((o >= 33 && o <= 126) || (o >= 161 && o <= 172) || o >= 174);
    cp = 256 + k;
  }
  if (cp < 0x80) {
    out[0] = (char)cp;
    out[1] = 0;
  } else {
    out[0] = (char)(0xc0 | cp >> 6);
    out[1] = (char)(0x80 | (cp & 0x3f));
    out[2] = 0;
  }
}

static void test_bpe_encode(void) {
  /* ids 0..255: the byte characters; then the merges' results and BOS */
  static char bytes[256][3];
  const char *tokens[256 + 11];
  for (unsigned b = 0; b < 256; ++b) {
    byte_char(b, bytes[b]);
    tokens[b] = bytes[b];
  }
  const char *merged[] = {"\xc4\xa0t", "he",          "\xc4\xa0the", "\xc4\xa0w",
                          "or",        "\xc4\xa0wor", "ld",          "\xc4\xa0world",
                          "34",        "'m",          "<s>"};
  for (int i = 0; i < 11; ++i)
    tokens[256 + i] = merged[i];
  const char *merges[] = {"\xc4\xa0 t",   "h e", "\xc4\xa0t he",   "\xc4\xa0 w", "o r",
                          "\xc4\xa0w or", "l d", "\xc4\xa0wor ld", "3 4",        "' m"};
  for (int pre = 0; pre < 2; ++pre) {
    ww_gguf_t g;
    ww_buf_t file = {0};
    kgrt_weights_t *w = NULL;
    kgrt_error_t err;
    ww_gguf_init(&g, 3, 32);
    ww_gguf_kv_str(&g, "tokenizer.ggml.model", "gpt2");
    ww_gguf_kv_str(&g, "tokenizer.ggml.pre", pre ? "llama-bpe" : "gpt-2");
    ww_gguf_kv_strs(&g, "tokenizer.ggml.tokens", tokens, 256 + 11);
    ww_gguf_kv_strs(&g, "tokenizer.ggml.merges", merges, 10);
    ww_gguf_kv_u32(&g, "tokenizer.ggml.bos_token_id", 266);
    ww_gguf_kv_u32(&g, "tokenizer.ggml.add_bos_token", (uint32_t)pre);
    float x[8] = {0};
    uint64_t ne[1] = {8};
    ww_gguf_tensor(&g, "t.weight", WW_GGML_F32, 1, ne, x, sizeof x);
    CHECK(ww_gguf_finish(&g, &file, NULL) == 0);
    ww_gguf_free(&g);
    CHECK(kgrt_weights_open_memory(file.p, file.len, KGRT_WEIGHTS_FORMAT_GGUF, "bpe.gguf",
                                   NULL, &w, &err) == KGRT_STATUS_OK);
    llm_tokenizer_t t;
    char why[128];
    CHECK(llm_tokenizer_load(&t, w, why, sizeof why) == 0);
    CHECK_EQ(t.pre, pre ? LLM_PRE_LLAMA3 : LLM_PRE_GPT2);
    CHECK_EQ(t.n_merges, 10);
    int32_t ids[64];
    /* "the": h e first (rank 1); " world": Ġ w, o r, Ġw or, l d, Ġwor ld */
    const int b = pre; /* Llama 3's file adds BOS */
    CHECK_EQ(llm_tokenizer_encode(&t, "the world", ids, 64), b + 3);
    CHECK_EQ(ids[0], pre ? 266 : (int32_t)'t');
    CHECK_EQ(ids[b], 't');
    CHECK_EQ(ids[b + 1], 257);
    CHECK_EQ(ids[b + 2], 263);
    CHECK_EQ(llm_tokenizer_encode(&t, " the", ids, 64), b + 1);
    CHECK_EQ(ids[b], 258);
    /* GPT-2 keeps 12345 whole, so 3 4 merges; Llama 3 splits 123|45 */
    CHECK_EQ(llm_tokenizer_encode(&t, "12345", ids, 64), b + (pre ? 5 : 4));
    CHECK_EQ(ids[b + 2], pre ? (int32_t)'3' : 264);
    CHECK_EQ(llm_tokenizer_encode(&t, "I'm", ids, 64), b + 2);
    CHECK_EQ(ids[b + 1], 265);
    CHECK_EQ(llm_tokenizer_encode(&t, "the world", ids, b + 2), -1); /* no room */
    /* any bytes, valid UTF-8 or not, encode and decode back */
    uint32_t s = 12345;
    for (int round = 0; round < 200; ++round) {
      char text[40], back[256];
      int n = 1 + round % 38;
      for (int i = 0; i < n; ++i) {
        s = s * 1664525u + 1013904223u;
        static const char some[] = " theworld'm12345\n\t,";
        text[i] =
            round % 2 ? (char)((s >> 24) % 255 + 1) : some[(s >> 24) % (sizeof some - 1)];
      }
      text[n] = 0;
      int k = llm_tokenizer_encode(&t, text, ids, 64);
      CHECK(k > b);
      decode(&t, ids + b, k - b, back, sizeof back);
      CHECK_STR(back, text);
    }
    llm_tokenizer_free(&t);
    kgrt_weights_close(w);
    ww_free(&file);
  }
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
  test_split();
  test_bpe_encode();
  test_refused();
  return TEST_DONE();
}
