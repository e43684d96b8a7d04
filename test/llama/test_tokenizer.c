/* test_tokenizer.c - examples/llm's GGUF tokenizer on vocabularies written
 * here: SentencePiece-style BPE encodes by its scores (the best-scored
 * merge first, whole words where the pieces reach them), falls back to byte
 * pieces, prepends BOS, encodes an empty text as nothing, and decodes back
 * to the text; byte-level BPE (GPT-2 and Llama 3 style) splits text as
 * their pre-tokenizers' regular expressions do, merges by rank (Llama 3: a
 * word that is a token is that token), encodes any text and decodes it
 * back; control and user-defined tokens are found in the text first;
 * malformed tokenizers and other kinds are refused, by name.
 * (llama.cpp's own cases: test_tokenizer_cases.c.) */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kgrt_weights.h"
#include "llm_tokenizer.h"
#include "llm_unicode.h"
#include "test.h"
#include "weights_writer.h"

#define SP "\xe2\x96\x81"

/* A tokenizer to write: the model, its tokens (with scores, types and
 * merges where given) and its pre-tokenizer; BOS 1 and EOS 2. */
typedef struct vocab {
  const char *model, *pre;
  const char *const *tokens;
  int n;
  const float *scores;
  int n_scores;
  const int32_t *types; /* n of them */
  const char *const *merges;
  int n_merges;
} vocab_t;

/* A GGUF file in memory with one f32 tensor and the tokenizer KVs. */
static int open_vocab(ww_buf_t *file, kgrt_weights_t **w, const vocab_t *v) {
  ww_gguf_t g;
  ww_gguf_init(&g, 3, 32);
  ww_gguf_kv_str(&g, "general.architecture", "llama");
  ww_gguf_kv_str(&g, "tokenizer.ggml.model", v->model);
  if (v->pre != NULL)
    ww_gguf_kv_str(&g, "tokenizer.ggml.pre", v->pre);
  ww_gguf_kv_strs(&g, "tokenizer.ggml.tokens", v->tokens, (uint64_t)v->n);
  if (v->scores != NULL) {
    ww_buf_t a = {0};
    ww_u32(&a, WW_F32);
    ww_u64(&a, (uint64_t)v->n_scores);
    for (int i = 0; i < v->n_scores; ++i) {
      uint32_t u;
      memcpy(&u, &v->scores[i], 4);
      ww_u32(&a, u);
    }
    ww_gguf_kv_raw(&g, "tokenizer.ggml.scores", WW_ARRAY, a.p, a.len);
    ww_free(&a);
  }
  if (v->types != NULL)
    ww_gguf_kv_i32s(&g, "tokenizer.ggml.token_type", v->types, (uint64_t)v->n);
  if (v->merges != NULL)
    ww_gguf_kv_strs(&g, "tokenizer.ggml.merges", v->merges, (uint64_t)v->n_merges);
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

/* The text's ids, BOS first where the file asks (as llm encodes a prompt). */
static int enc(const llm_tokenizer_t *t, const char *text, int32_t *ids, int cap) {
  return llm_tokenizer_encode(t, text, strlen(text), LLM_ENCODE_BOS, ids, cap);
}

static void decode(const llm_tokenizer_t *t, const int32_t *ids, int n, char *out,
                   size_t size) {
  size_t o = 0;
  for (int i = 0; i < n; ++i) {
    if (ids[i] == t->bos)
      continue;
    char piece[64];
    size_t l = llm_tokenizer_piece(t, ids[i], 0, piece, sizeof piece);
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
  CHECK(open_vocab(&file, &w,
                   &(vocab_t){.model = "llama",
                              .tokens = tokens,
                              .n = n,
                              .scores = scores,
                              .n_scores = n}) == 0);
  CHECK(llm_tokenizer_load(&t, w, why, sizeof why) == 0);
  CHECK_EQ(t.kind, LLM_TOK_SPM);
  CHECK_EQ(t.bos, 1);
  CHECK_EQ(t.eos, 2);
  CHECK_EQ(t.add_bos, 1);
  int32_t ids[32];
  char text[128];
  /* "upon a time": whole words */
  int k = enc(&t, "upon a time", ids, 32);
  CHECK_EQ(k, 4);
  CHECK_EQ(ids[0], 1);
  CHECK_STR(t.piece[ids[1]], SP "upon");
  CHECK_STR(t.piece[ids[2]], SP "a");
  CHECK_STR(t.piece[ids[3]], SP "time");
  decode(&t, ids, k, text, sizeof text);
  CHECK_STR(text, " upon a time");
  /* the best-scored merge wins even where it blocks a longer word */
  k = enc(&t, "once", ids, 32);
  CHECK_EQ(k, 4); /* <s> ▁o nc e */
  CHECK_STR(t.piece[ids[1]], SP "o");
  CHECK_STR(t.piece[ids[2]], "nc");
  CHECK_STR(t.piece[ids[3]], "e");
  /* no piece: the bytes */
  k = enc(&t, "x\xc3\xa9", ids, 32);
  CHECK_EQ(k, 5); /* <s> ▁ <0x78> <0xC3> <0xA9> */
  CHECK_EQ(ids[2], 3);
  CHECK_EQ(ids[3], 4);
  CHECK_EQ(ids[4], 5);
  decode(&t, ids, k, text, sizeof text);
  CHECK_STR(text, " x\xc3\xa9");
  /* a byte with no byte piece cannot be encoded; nor can more than cap */
  CHECK_EQ(enc(&t, "z", ids, 32), -1);
  CHECK_EQ(enc(&t, "upon a time", ids, 3), -1);
  /* ids outside the vocabulary decode to nothing */
  CHECK_EQ(llm_tokenizer_piece(&t, n, 0, text, sizeof text), 0);
  CHECK_EQ(llm_tokenizer_piece(&t, -1, 0, text, sizeof text), 0);
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
  /* a byte-level BPE without merges is refused, as llama.cpp refuses it */
  CHECK(open_vocab(
            &file, &w,
            &(vocab_t){.model = "gpt2", .pre = "gpt-2", .tokens = tokens, .n = 6}) == 0);
  CHECK(llm_tokenizer_load(&t, w, why, sizeof why) == -1);
  CHECK(strstr(why, "tokenizer.ggml.merges") != NULL);
  kgrt_weights_close(w);
  ww_free(&file);
  file = (ww_buf_t){0};
  const char *merges[] = {"H e"};
  CHECK(open_vocab(&file, &w,
                   &(vocab_t){.model = "gpt2",
                              .pre = "gpt-2",
                              .tokens = tokens,
                              .n = 6,
                              .merges = merges,
                              .n_merges = 1}) == 0);
  CHECK(llm_tokenizer_load(&t, w, why, sizeof why) == 0);
  CHECK_EQ(t.kind, LLM_TOK_BPE);
  CHECK_EQ(t.add_bos, 0);
  int32_t ids[] = {3, 4, 5, 0};
  decode(&t, ids, 4, text, sizeof text);
  CHECK_STR(text, "Hello world\n!");
  /* bytes with no token are left out, as llama.cpp leaves them out */
  CHECK_EQ(enc(&t, "Hello!", ids, 4), 1);
  CHECK_EQ(ids[0], 0);
  llm_tokenizer_free(&t);
  kgrt_weights_close(w);
  ww_free(&file);
}

/* The words llm_pretok_split gives, joined by '|'. */
static void split(llm_pre_t pre, const char *text, char *out, size_t size) {
  uint32_t cp[64];
  size_t at[65], ends[64], n = 0, o = 0, from = 0, len = strlen(text);
  for (size_t i = 0, l; i < len && n < 64; i += l) {
    at[n] = i;
    cp[n++] = llm_utf8_next((const unsigned char *)text, len, i, &l);
  }
  at[n] = len;
  int words = llm_pretok_split(pre, cp, n, ends, 64);
  out[0] = 0;
  for (int i = 0; i < words; from = at[ends[i++]]) {
    const size_t to = at[ends[i]];
    if (o + (to - from) + 2 >= size)
      break;
    if (i > 0)
      out[o++] = '|';
    memcpy(out + o, text + from, to - from);
    o += to - from;
  }
  out[o] = 0;
  if (words < 0)
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
      /* StarCoder's: digits one at a time, then GPT-2's; Falcon's:
       * punctuation runs first, digits by three last; DeepSeek Coder's:
       * line breaks, letters, punctuation, CJK, digits each apart */
      {LLM_PRE_STARCODER, "x=12 ab", "x|=|1|2| ab"},
      {LLM_PRE_FALCON, "a+=1234 b", "a|+=|123|4| b"},
      {LLM_PRE_DEEPSEEK_CODER, "if(x)\n 12", "if|(|x|)|\n| |1|2"},
      /* llama.cpp's default for an unnamed one: punctuation first, digits by
       * three last */
      {LLM_PRE_DEFAULT, "it's 1234", "it|'|s| |123|4"},
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
  const char *tokens[256 + 12];
  for (unsigned b = 0; b < 256; ++b) {
    byte_char(b, bytes[b]);
    tokens[b] = bytes[b];
  }
  const char *merged[] = {"\xc4\xa0t", "he",          "\xc4\xa0the", "\xc4\xa0w",
                          "or",        "\xc4\xa0wor", "ld",          "\xc4\xa0world",
                          "34",        "'m",          "<s>",         "ok"};
  for (int i = 0; i < 12; ++i)
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
    ww_gguf_kv_strs(&g, "tokenizer.ggml.tokens", tokens, 256 + 12);
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
    int32_t ids[256];
    /* "the": h e first (rank 1); " world": Ġ w, o r, Ġw or, l d, Ġwor ld */
    const int b = pre; /* Llama 3's file adds BOS */
    CHECK_EQ(enc(&t, "the world", ids, 64), b + 3);
    CHECK_EQ(ids[0], pre ? 266 : (int32_t)'t');
    CHECK_EQ(ids[b], 't');
    CHECK_EQ(ids[b + 1], 257);
    CHECK_EQ(ids[b + 2], 263);
    CHECK_EQ(enc(&t, " the", ids, 64), b + 1);
    CHECK_EQ(ids[b], 258);
    /* GPT-2 keeps 12345 whole, so 3 4 merges; Llama 3 splits 123|45 */
    CHECK_EQ(enc(&t, "12345", ids, 64), b + (pre ? 5 : 4));
    CHECK_EQ(ids[b + 2], pre ? (int32_t)'3' : 264);
    CHECK_EQ(enc(&t, "I'm", ids, 64), b + 2);
    CHECK_EQ(ids[b + 1], 265);
    CHECK_EQ(enc(&t, "the world", ids, b + 2), -1); /* no room */
    /* "ok" is a token no merge reaches: Llama 3 takes the word whole */
    CHECK_EQ(enc(&t, "ok", ids, 64), b + (pre ? 1 : 2));
    CHECK_EQ(ids[b], pre ? 267 : (int32_t)'o');
    /* a byte that starts no UTF-8 character is U+FFFD, as llama.cpp reads it */
    char back[256];
    CHECK_EQ(enc(&t, "\xff", ids, 64), b + 3);
    decode(&t, ids + b, 3, back, sizeof back);
    CHECK_STR(back, "\xef\xbf\xbd");
    /* any text (UTF-8) encodes and decodes back */
    uint32_t s = 12345;
    for (int round = 0; round < 200; ++round) {
      char text[160];
      int n = 0;
      for (int i = 0; i < 1 + round % 38; ++i) {
        s = s * 1664525u + 1013904223u;
        static const char some[] = " theworld'm12345\n\t,";
        uint32_t c = (s >> 8) % 0x110000;
        if (round % 2 == 0 || (c >= 0xd800 && c <= 0xdfff) || c == 0)
          c = (unsigned char)some[(s >> 24) % (sizeof some - 1)];
        n += (int)llm_utf8_put(c, text + n);
      }
      text[n] = 0;
      int k = enc(&t, text, ids, 256);
      CHECK(k > b);
      decode(&t, ids + b, k - b, back, sizeof back);
      CHECK_STR(back, text);
    }
    llm_tokenizer_free(&t);
    kgrt_weights_close(w);
    ww_free(&file);
  }
}

/* Token types: control and user-defined tokens are found in the text
 * before the merges (control ones only with LLM_ENCODE_SPECIAL), decode as
 * their text (control ones only when asked); the empty text is no token. */
static void test_special(void) {
  const char *tokens[] = {"<unk>",  "<s>", "</s>", "<|im|>", "<0x3C>", "<0x7C>",
                          "<0x3E>", SP,    "h",    "i",      SP "hi",  "<",
                          "s",      ">",   "|",    "m",      "<|u|>",  SP "h"};
  const int32_t types[] = {2, 3, 3, 3, 6, 6, 6, 1, 1, 1, 1, 1, 1, 1, 1, 1, 4, 1};
  const int n = (int)(sizeof tokens / sizeof tokens[0]);
  float scores[sizeof tokens / sizeof tokens[0]] = {0};
  scores[10] = 1; /* ▁h then ▁hi */
  scores[17] = 0.5f;
  ww_buf_t file = {0};
  kgrt_weights_t *w = NULL;
  llm_tokenizer_t t;
  char why[128], text[64];
  int32_t ids[32];
  CHECK(open_vocab(&file, &w,
                   &(vocab_t){.model = "llama",
                              .tokens = tokens,
                              .n = n,
                              .scores = scores,
                              .n_scores = n,
                              .types = types}) == 0);
  CHECK(llm_tokenizer_load(&t, w, why, sizeof why) == 0);
  CHECK_EQ(t.type[3], LLM_TOKEN_CONTROL);
  CHECK_EQ(t.type[16], LLM_TOKEN_USER_DEFINED);
  /* empty: nothing, or BOS alone (SentencePiece: no "▁" for no text) */
  CHECK_EQ(llm_tokenizer_encode(&t, "", 0, 0, ids, 32), 0);
  CHECK_EQ(llm_tokenizer_encode(&t, "", 0, LLM_ENCODE_BOS, ids, 32), 1);
  /* "<|im|> hi": the control token when asked, its characters when not;
   * SentencePiece puts a "▁" before the text after a special token too */
  const char *s = "<|im|> hi";
  CHECK_EQ(llm_tokenizer_encode(&t, s, strlen(s), LLM_ENCODE_SPECIAL, ids, 32), 3);
  CHECK_EQ(ids[0], 3);
  CHECK_EQ(ids[1], 7);
  CHECK_EQ(ids[2], 10);
  int k = llm_tokenizer_encode(&t, s, strlen(s), 0, ids, 32);
  CHECK_EQ(k, 8); /* ▁ < | i m | > ▁hi */
  CHECK_EQ(ids[0], 7);
  CHECK_EQ(ids[1], 11);
  CHECK_EQ(ids[k - 1], 10);
  /* a user-defined token is found either way */
  s = "hi<|u|>hi";
  CHECK_EQ(llm_tokenizer_encode(&t, s, strlen(s), 0, ids, 32), 3);
  CHECK_EQ(ids[0], 10);
  CHECK_EQ(ids[1], 16);
  CHECK_EQ(ids[2], 10);
  /* decoding: control tokens only when asked, user-defined as their text */
  CHECK_EQ(llm_tokenizer_piece(&t, 3, 0, text, sizeof text), 0);
  CHECK_EQ(llm_tokenizer_piece(&t, 3, 1, text, sizeof text), 6);
  CHECK_STR(text, "<|im|>");
  CHECK_EQ(llm_tokenizer_piece(&t, 16, 0, text, sizeof text), 5);
  CHECK_EQ(llm_tokenizer_piece(&t, 4, 0, text, sizeof text), 1);
  CHECK_STR(text, "<");
  /* the whole length, as snprintf, where the buffer is short */
  CHECK_EQ(llm_tokenizer_piece(&t, 16, 0, text, 3), 5);
  CHECK_STR(text, "<|");
  CHECK(llm_tokenizer_is_eog(&t, 2));
  CHECK(!llm_tokenizer_is_eog(&t, 3));
  llm_tokenizer_free(&t);
  kgrt_weights_close(w);
  ww_free(&file);
}

static void test_refused(void) {
  const char *tokens[] = {"a", "b", "c"};
  const float scores[] = {1, 2};
  const char *merges[] = {"a b"};
  ww_buf_t file = {0};
  kgrt_weights_t *w = NULL;
  llm_tokenizer_t t;
  char why[256];
  /* a score count that is not the token count */
  CHECK(open_vocab(&file, &w,
                   &(vocab_t){.model = "llama",
                              .tokens = tokens,
                              .n = 3,
                              .scores = scores,
                              .n_scores = 2}) == 0);
  CHECK(llm_tokenizer_load(&t, w, why, sizeof why) == -1);
  CHECK(strstr(why, "scores") != NULL);
  kgrt_weights_close(w);
  ww_free(&file);
  /* vocabularies of other kinds, by name */
  static const struct {
    const char *model, *pre, *says;
  } kinds[] = {{"bert", NULL, "WordPiece"},
               {"t5", NULL, "Unigram"},
               {"qwerty", NULL, "\"qwerty\""},
               {"gpt2", "tekken", "\"tekken\""}};
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; ++i) {
    file = (ww_buf_t){0};
    CHECK(open_vocab(&file, &w,
                     &(vocab_t){.model = kinds[i].model,
                                .pre = kinds[i].pre,
                                .tokens = tokens,
                                .n = 3,
                                .merges = merges,
                                .n_merges = 1}) == 0);
    CHECK(llm_tokenizer_load(&t, w, why, sizeof why) == -1);
    CHECK(strstr(why, kinds[i].says) != NULL);
    kgrt_weights_close(w);
    ww_free(&file);
  }
}

int main(void) {
  test_spm();
  test_gpt2();
  test_split();
  test_bpe_encode();
  test_special();
  test_refused();
  return TEST_DONE();
}
