/* test_clip_tok.c - examples/sd's CLIP tokenizer (sd_clip_tok.h).
 *   test_clip_tok TINY.json DIR
 * The hand-made clip_tiny_tokenizer.json (45 tokens, 12 merges) as a
 * tokenizer.json and, written into DIR, as vocab.json + merges.txt: the
 * end-of-word suffix on the last symbol only, lowercase, white space,
 * punctuation, contractions, digits one by one, special tokens in the
 * text, a symbol outside the vocabulary, truncation with EOS kept,
 * padding, a pad_token beside the vocab.json (SD 2.x); then broken files
 * written into DIR: one line naming the file.
 *   test_clip_tok --cases CASES.tsv TOKENIZER...
 * Each "text<TAB>ids" line of CASES (# starts a comment) encoded by each
 * tokenizer (a tokenizer.json, a vocab.json or a folder) to 77 ids: the
 * ids, then EOS as padding. Exits 77 (skipped) when CASES or the first
 * tokenizer is not there (clip_vocab.sh writes them). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sd_clip_tok.h"
#include "test.h"

enum { T = 77 };

/* Encodes text to n ids padded with pad, and compares with want[0 ..
 * count) then pad; prints both when they differ. */
static void check_ids(const sd_clip_tok_t *t, const char *text, int n, int32_t pad,
                      const int32_t *want, int count, const char *where) {
  int32_t ids[T];
  char why[256];
  const int got = sd_clip_tok_encode(t, text, strlen(text), pad, ids, n, why, sizeof why);
  int same = got == count;
  for (int i = 0; same && i < n; ++i)
    same = ids[i] == (i < count ? want[i] : pad);
  CHECK(same);
  if (same)
    return;
  fprintf(stderr, "  %s: \"%s\": got %d:", where, text, got);
  for (int i = 0; i < n && got >= 0; ++i)
    fprintf(stderr, " %d", (int)ids[i]);
  fprintf(stderr, "\n  want %d:", count);
  for (int i = 0; i < count; ++i)
    fprintf(stderr, " %d", (int)want[i]);
  fputc('\n', stderr);
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  CHECK(f != NULL);
  if (f != NULL) {
    fputs(text, f);
    fclose(f);
  }
}

/* The tiny tokenizer's ids (clip_tiny_tokenizer.json) */
enum {
  A_W = 19,
  O = 7,
  S_W = 22,
  X_W = 25,
  ONE_W = 26,
  TWO_W = 27,
  THREE_W = 28,
  COMMA_W = 30,
  HELL = 33,
  HELLO_W = 34,
  CAT_W = 36,
  APOS_S_W = 37,
  WORLD_W = 41,
  BANGS_W = 42,
  BOS = 43,
  EOS = 44,
};

static void check_tiny(const sd_clip_tok_t *t, const char *where) {
  CHECK_EQ(t->bpe.n, 45);
  CHECK_EQ(t->bpe.bos, BOS);
  CHECK_EQ(t->bpe.eos, EOS);
  const struct {
    const char *text;
    int32_t ids[12];
    int n;
  } cases[] = {
      {"hello", {BOS, HELLO_W, EOS}, 3},
      /* the suffix goes on the last symbol only: "o" + "x</w>" do not merge */
      {"hellox", {BOS, HELL, O, X_W, EOS}, 5},
      {"Hello  WORLD!!", {BOS, HELLO_W, WORLD_W, BANGS_W, EOS}, 5},
      {" \t cat's\n\n", {BOS, CAT_W, APOS_S_W, EOS}, 4},
      /* digits one by one; punctuation a word of its own */
      {"x123,a", {BOS, X_W, ONE_W, TWO_W, THREE_W, COMMA_W, A_W, EOS}, 8},
      /* special tokens in the text are those tokens, in any case */
      {"cat<|endoftext|>cat", {BOS, CAT_W, EOS, CAT_W, EOS}, 5},
      {"<|STARTOFTEXT|>s", {BOS, BOS, S_W, EOS}, 4},
      /* no token: each symbol the unknown token (<|endoftext|>); "é" is
       * two byte-level characters, "É" lowercased and composed to it */
      {"z", {BOS, EOS, EOS}, 3},
      {"\xc3\xa9", {BOS, EOS, EOS, EOS}, 4},
      {"E\xcc\x81", {BOS, EOS, EOS, EOS}, 4},
      {"", {BOS, EOS}, 2},
      {"   ", {BOS, EOS}, 2},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
    check_ids(t, cases[i].text, 12, EOS, cases[i].ids, cases[i].n, where);
  /* 8 ids: BOS, the first 6 tokens, EOS; another pad */
  const int32_t cut[8] = {BOS, CAT_W, CAT_W, CAT_W, CAT_W, CAT_W, CAT_W, EOS};
  check_ids(t, "cat cat cat cat cat cat cat cat cat", 8, EOS, cut, 8, where);
  check_ids(t, "cat cat cat cat cat cat", 8, EOS, cut, 8, where);
  const int32_t padded[3] = {BOS, CAT_W, EOS};
  check_ids(t, "CAT", 8, 0, padded, 3, where);
  char why[128];
  int32_t ids[4];
  CHECK_EQ(sd_clip_tok_encode(t, "\xc3", 1, EOS, ids, 4, why, sizeof why), -1);
  CHECK_EQ(sd_clip_tok_encode(t, "\xed\xa0\x80", 3, EOS, ids, 4, why, sizeof why), -1);
  CHECK_EQ(sd_clip_tok_encode(t, "\xc0\xaf", 2, EOS, ids, 4, why, sizeof why), -1);
}

/* A file that must be refused: one line naming `names`. */
static void refused(const char *path, const char *names) {
  sd_clip_tok_t t;
  char why[512] = "";
  CHECK_EQ(sd_clip_tok_load(&t, path, why, sizeof why), -1);
  CHECK(strstr(why, names) == why);
  CHECK(strchr(why, '\n') == NULL);
  fprintf(stderr, "refused as it should: %s\n", why);
}

static int tiny(const char *json, const char *dir) {
  sd_clip_tok_t t;
  char why[512], path[1024], path2[1024];
  if (sd_clip_tok_load(&t, json, why, sizeof why) != 0) {
    fprintf(stderr, "test_clip_tok: %s\n", why);
    return 1;
  }
  check_tiny(&t, "tokenizer.json");
  /* the same as vocab.json and merges.txt, read from the file and the folder */
  FILE *v = (snprintf(path, sizeof path, "%s/vocab.json", dir), fopen(path, "wb"));
  FILE *m = (snprintf(path2, sizeof path2, "%s/merges.txt", dir), fopen(path2, "wb"));
  CHECK(v != NULL && m != NULL);
  if (v == NULL || m == NULL)
    return TEST_DONE();
  fputc('{', v);
  for (int32_t i = 0; i < t.bpe.n; ++i)
    fprintf(v, "%s\"%s\": %d", i ? ", " : "", t.bpe.piece[i], (int)i);
  fputs("}\n", v);
  fputs("#version: 0.2\r\n", m);
  for (int32_t i = 0; i < t.bpe.n_merges; ++i)
    fprintf(m, "%s\n", t.bpe.merge[i]);
  fclose(v);
  fclose(m);
  sd_clip_tok_free(&t);
  const char *pair[] = {path, dir};
  for (int k = 0; k < 2; ++k) {
    if (sd_clip_tok_load(&t, pair[k], why, sizeof why) != 0) {
      fprintf(stderr, "test_clip_tok: %s\n", why);
      CHECK(0);
      continue;
    }
    check_tiny(&t, k ? "folder" : "vocab.json");
    CHECK_EQ(t.pad, -1);
    sd_clip_tok_free(&t);
  }
  /* the pad_token of a special_tokens_map.json or tokenizer_config.json
   * beside them (SD 2.x's folder): id 2 here, "<|endoftext|>" aside */
  char side[1024], config[1024], piece[160];
  CHECK_EQ(sd_clip_tok_load(&t, dir, why, sizeof why), 0);
  snprintf(piece, sizeof piece, "%s", t.bpe.piece[2]);
  const int32_t eos = t.bpe.eos;
  sd_clip_tok_free(&t);
  CHECK(eos != 2);
  snprintf(side, sizeof side, "%s/special_tokens_map.json", dir);
  snprintf(config, sizeof config, "%s/tokenizer_config.json", dir);
  char text[512];
  snprintf(text, sizeof text, "{\"pad_token\": \"%s\"}", piece);
  write_file(side, text);
  CHECK_EQ(sd_clip_tok_load(&t, dir, why, sizeof why), 0);
  CHECK_EQ(t.pad, 2);
  sd_clip_tok_free(&t);
  remove(side);
  snprintf(text, sizeof text, "{\"pad_token\": {\"content\": \"%s\", \"lstrip\": false}}",
           piece);
  write_file(config, text);
  CHECK_EQ(sd_clip_tok_load(&t, path, why, sizeof why), 0);
  CHECK_EQ(t.pad, 2);
  sd_clip_tok_free(&t);
  write_file(config, "{\"pad_token\": \"no such piece\"}");
  refused(dir, config);
  write_file(config, "{\"pad_token\": 3}");
  refused(dir, config);
  write_file(config, "{\"pad_token\": ");
  refused(dir, config);
  remove(config);

  /* broken files: one line, naming the file */
  static const struct {
    const char *what, *json;
  } bad[] = {
      {"no merges",
       "{\"model\": {\"type\": \"BPE\", \"end_of_word_suffix\": \"</w>\", "
       "\"vocab\": {\"a\": 0, \"<|startoftext|>\": 1, \"<|endoftext|>\": 2}}}"},
      {"an id out of range",
       "{\"model\": {\"type\": \"BPE\", \"end_of_word_suffix\": \"</w>\", \"merges\": "
       "[], "
       "\"vocab\": {\"a\": 3, \"<|startoftext|>\": 1, \"<|endoftext|>\": 2}}}"},
      {"an id twice", "{\"model\": {\"type\": \"BPE\", \"end_of_word_suffix\": \"</w>\", "
                      "\"merges\": [], \"vocab\": {\"a\": 1, \"<|startoftext|>\": 1, "
                      "\"<|endoftext|>\": 2}}}"},
      {"a negative id",
       "{\"model\": {\"type\": \"BPE\", \"end_of_word_suffix\": \"</w>\", "
       "\"merges\": [], \"vocab\": {\"a\": -1, \"<|startoftext|>\": 1, "
       "\"<|endoftext|>\": 2}}}"},
      {"a merge of no tokens",
       "{\"model\": {\"type\": \"BPE\", \"end_of_word_suffix\": \"</w>\", \"merges\": "
       "[\"a b\"], \"vocab\": {\"a\": 0, \"<|startoftext|>\": 1, \"<|endoftext|>\": "
       "2}}}"},
      {"a malformed merge",
       "{\"model\": {\"type\": \"BPE\", \"end_of_word_suffix\": \"</w>\", \"merges\": "
       "[\"ab\"], \"vocab\": {\"a\": 0, \"<|startoftext|>\": 1, \"<|endoftext|>\": 2}}}"},
      {"no EOS", "{\"model\": {\"type\": \"BPE\", \"end_of_word_suffix\": \"</w>\", "
                 "\"merges\": [], \"vocab\": {\"a\": 0, \"<|startoftext|>\": 1}}}"},
      {"no suffix",
       "{\"model\": {\"type\": \"BPE\", \"merges\": [], \"vocab\": {\"a\": 0, "
       "\"<|startoftext|>\": 1, \"<|endoftext|>\": 2}}}"},
      {"WordPiece", "{\"model\": {\"type\": \"WordPiece\", \"vocab\": {\"a\": 0}}}"},
      {"an added token not in the vocabulary",
       "{\"added_tokens\": [{\"id\": 7, \"content\": \"<|endoftext|>\"}], \"model\": "
       "{\"type\": \"BPE\", \"end_of_word_suffix\": \"</w>\", \"merges\": [], \"vocab\": "
       "{\"a\": 0, \"<|startoftext|>\": 1, \"<|endoftext|>\": 2}}}"},
      {"a pad id out of range",
       "{\"padding\": {\"pad_id\": 3}, \"model\": {\"type\": \"BPE\", "
       "\"end_of_word_suffix\": \"</w>\", \"merges\": [], \"vocab\": {\"a\": 0, "
       "\"<|startoftext|>\": 1, \"<|endoftext|>\": 2}}}"},
      {"an unknown unk_token",
       "{\"model\": {\"type\": \"BPE\", \"end_of_word_suffix\": \"</w>\", \"unk_token\": "
       "\"<unk>\", \"merges\": [], \"vocab\": {\"a\": 0, \"<|startoftext|>\": 1, "
       "\"<|endoftext|>\": 2}}}"},
      {"not JSON", "{\"model\": {\"type\": \"BPE\",}}"},
      {"a repeated name", "{\"model\": {}, \"model\": {}}"},
  };
  snprintf(path, sizeof path, "%s/bad.json", dir);
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    fprintf(stderr, "%s: ", bad[i].what);
    write_file(path, bad[i].json);
    refused(path, path);
  }
  /* a vocab.json without its merges.txt; a missing file */
  snprintf(path, sizeof path, "%s/lone", dir);
  CHECK(mkdir(path, 0777) == 0 || errno == EEXIST);
  snprintf(path, sizeof path, "%s/lone/vocab.json", dir);
  write_file(path, "{\"a\": 0, \"<|startoftext|>\": 1, \"<|endoftext|>\": 2}");
  snprintf(path2, sizeof path2, "%s/lone/merges.txt", dir);
  refused(path, path2);
  write_file(path2, "#version: 0.2\na\n");
  refused(path, path2);
  snprintf(path, sizeof path, "%s/none.json", dir);
  refused(path, path);
  return TEST_DONE();
}

/* The cases of a .tsv file by each tokenizer. */
static int cases(const char *file, char **toks, int n_toks) {
  size_t size;
  struct stat st;
  if (stat(file, &st) != 0 || stat(toks[0], &st) != 0) {
    printf("SKIPPED: no %s or %s (diffusion/clip_vocab_setup makes them)\n", file,
           toks[0]);
    return 77;
  }
  char *text = (char *)test_read_file(file, &size), *line, *next;
  if (text == NULL || (text = realloc(text, size + 1)) == NULL) {
    fprintf(stderr, "test_clip_tok: %s: cannot be read\n", file);
    return 1;
  }
  text[size] = 0;
  enum { MAX_CASES = 256 };
  static const char *texts[MAX_CASES];
  static int32_t want[MAX_CASES][T];
  static int n_want[MAX_CASES];
  int n_cases = 0;
  for (line = text; line != NULL && *line != 0 && n_cases < MAX_CASES; line = next) {
    if ((next = strchr(line, '\n')) != NULL)
      *next++ = 0;
    char *tab = strchr(line, '\t');
    if (line[0] == '#' || tab == NULL)
      continue;
    *tab = 0;
    texts[n_cases] = line;
    int n = 0;
    for (char *s = tab + 1; *s != 0 && n < T;) {
      char *end;
      want[n_cases][n++] = (int32_t)strtol(s, &end, 10);
      s = *end == ',' ? end + 1 : end;
    }
    n_want[n_cases++] = n;
  }
  for (int k = 0; k < n_toks; ++k) {
    sd_clip_tok_t t;
    char why[512];
    if (sd_clip_tok_load(&t, toks[k], why, sizeof why) != 0) {
      fprintf(stderr, "test_clip_tok: %s\n", why);
      CHECK(0);
      continue;
    }
    for (int c = 0; c < n_cases; ++c)
      check_ids(&t, texts[c], T, t.bpe.eos, want[c], n_want[c], toks[k]);
    fprintf(stderr, "%s: %d cases of %s\n", toks[k], n_cases, file);
    sd_clip_tok_free(&t);
  }
  CHECK(n_cases > 0);
  free(text);
  return TEST_DONE();
}

int main(int argc, char **argv) {
  if (argc >= 4 && strcmp(argv[1], "--cases") == 0)
    return cases(argv[2], argv + 3, argc - 3);
  if (argc == 3)
    return tiny(argv[1], argv[2]);
  fprintf(stderr,
          "usage: test_clip_tok TINY.json DIR | --cases CASES.tsv TOKENIZER...\n");
  return 2;
}
