/* test_tokenizer_cases.c - examples/llm's tokenizer on llama.cpp's tokenizer
 * tests (its models/ggml-vocab-*.gguf vocabularies with their .inp/.out
 * cases, as test-tokenizer-0 runs them: each input encoded with no BOS and
 * without parsing control tokens, compared with its line of ids) and, with
 * --round-trip, the rules of its test-tokenizer-1-spm / -bpe:
 * - every token's text (decoded with control tokens shown) encodes, with
 *   control tokens parsed, to tokens that decode to that text again (byte-
 *   level BPE: tokens whose text is not well-formed UTF-8 are skipped, as
 *   test-tokenizer-1-bpe skipped them, since the encoder reads such bytes
 *   as U+FFFD); with --ignore-merges (Llama 3's), to that one token;
 * - every code point (but surrogates and U+40000 .. U+E0000, as there)
 *   encodes to tokens that decode to it again (SentencePiece: but U+2581;
 *   byte-level BPE: but those with a byte the vocabulary has no token for,
 *   as Falcon's has none for 14 control characters: counted, skipped).
 * Decoding joins the tokens' pieces (control tokens as their text, as
 * llama.cpp's common_detokenize), a SentencePiece text without its first
 * space (llama.cpp's detokenize, without its clean-up of spaces
 * around punctuation, which is not a round trip).
 *
 *   test_tokenizer_cases [--round-trip] [--ignore-merges] VOCAB.gguf ...
 *
 * Exit 1 when any case fails. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kgrt_weights.h"
#include "llm_tokenizer.h"
#include "llm_unicode.h"
#include "test.h"

enum { MAX_IDS = 65536 };

/* The text of ids[0 .. n) into out[cap] (cut there); its length. */
static size_t decode(const llm_tokenizer_t *t, const int32_t *ids, int n, int special,
                     char *out, size_t cap) {
  size_t o = 0;
  for (int i = 0; i < n; ++i) {
    char piece[4096];
    size_t l = llm_tokenizer_piece(t, ids[i], special, piece, sizeof piece);
    if (l >= sizeof piece)
      l = sizeof piece - 1;
    const char *p = piece;
    if (o == 0 && i == 0 && t->kind == LLM_TOK_SPM && t->add_space_prefix && l > 0 &&
        p[0] == ' ') {
      p++; /* the space the encoder put before the text */
      l--;
    }
    if (o + l < cap) {
      memcpy(out + o, p, l);
      o += l;
    }
  }
  return o;
}

static int well_formed(const char *s, size_t n) {
  for (size_t i = 0, l; i < n; i += l)
    if (llm_utf8_next((const unsigned char *)s, n, i, &l) == 0xfffd &&
        !(l == 3 && memcmp(s + i, "\xef\xbf\xbd", 3) == 0))
      return 0;
  return 1;
}

static void print_ids(const char *what, const int32_t *ids, int n) {
  fprintf(stderr, "  %s:", what);
  for (int i = 0; i < n && i < 64; ++i)
    fprintf(stderr, " %d", ids[i]);
  fprintf(stderr, n > 64 ? " ...\n" : "\n");
}

/* test-tokenizer-0: the cases beside the vocabulary. */
static void cases(const llm_tokenizer_t *t, const char *path, int32_t *ids) {
  char name[4096];
  size_t n_inp, n_out;
  snprintf(name, sizeof name, "%s.inp", path);
  char *inp = (char *)test_read_file(name, &n_inp);
  snprintf(name, sizeof name, "%s.out", path);
  char *outs = (char *)test_read_file(name, &n_out);
  CHECK(inp != NULL && outs != NULL);
  if (inp == NULL || outs == NULL) {
    free(inp);
    free(outs);
    return;
  }
  static const char sep[] = "\n__ggml_vocab_test__\n";
  const size_t sl = sizeof sep - 1;
  const char *in = inp, *in_end = inp + n_inp, *out = outs, *out_end = outs + n_out;
  int n_cases = 0, failed = 0;
  while (in < in_end && out < out_end) {
    const char *next = memmem(in, (size_t)(in_end - in), sep, sl);
    const size_t len = next ? (size_t)(next - in) : (size_t)(in_end - in);
    const char *eol = memchr(out, '\n', (size_t)(out_end - out));
    if (eol == NULL)
      eol = out_end;
    int32_t want[1024];
    int nw = 0;
    for (const char *p = out; p < eol && nw < 1024;) {
      char *e;
      long v = strtol(p, &e, 10);
      if (e == p)
        break;
      want[nw++] = (int32_t)v;
      p = e;
    }
    const int got = llm_tokenizer_encode(t, in, len, 0, ids, MAX_IDS);
    n_cases++;
    if (got != nw || memcmp(ids, want, sizeof *ids * (size_t)nw) != 0) {
      if (failed++ < 5) {
        fprintf(stderr, "%s: case %d '%.*s'\n", path, n_cases, (int)(len < 80 ? len : 80),
                in);
        print_ids("want", want, nw);
        print_ids("got ", ids, got);
      }
    }
    in = next ? next + sl : in_end;
    out = eol + (eol < out_end);
  }
  CHECK(n_cases > 0 && in >= in_end);
  CHECK_EQ(failed, 0);
  printf("%s: %d of %d cases pass\n", path, n_cases - failed, n_cases);
  free(inp);
  free(outs);
}

/* test-tokenizer-1: every token's text and every code point back again. */
static void round_trip(const llm_tokenizer_t *t, const char *path, int ignore_merges,
                       int32_t *ids) {
  static char text[16384], check[16384];
  int failed = 0, skipped = 0;
  for (int32_t id = 0; id < t->n; ++id) {
    const size_t n = decode(t, &id, 1, 1, text, sizeof text);
    if (t->kind == LLM_TOK_BPE && !well_formed(text, n)) {
      skipped++;
      continue;
    }
    const int got = llm_tokenizer_encode(t, text, n, LLM_ENCODE_SPECIAL, ids, MAX_IDS);
    const size_t m = got < 0 ? 0 : decode(t, ids, got, 1, check, sizeof check);
    const int bad =
        got < 0 || m != n || memcmp(text, check, n) != 0 || (ignore_merges && got != 1);
    if (bad && failed++ < 5) {
      fprintf(stderr, "%s: token %d '%.*s' (%zu bytes) encodes to", path, id, (int)n,
              text, n);
      print_ids("", ids, got);
      fprintf(stderr, "  which decodes to '%.*s'\n", (int)m, check);
    }
  }
  int cp_failed = 0, cps = 0, no_byte = 0;
  int byte_token[256];
  for (int b = 0; b < 256; ++b)
    byte_token[b] = t->kind == LLM_TOK_SPM ||
                    llm_tokenizer_find(t, t->byte_char[b], strlen(t->byte_char[b])) >= 0;
  for (uint32_t c = 0; c < 0x110000; ++c) {
    if ((c >= 0xd800 && c <= 0xdfff) || (c >= 0x40000 && c <= 0xe0000))
      continue;
    char u[4];
    const size_t n = llm_utf8_put(c, u);
    int has = 1;
    for (size_t b = 0; b < n; ++b)
      has &= byte_token[(unsigned char)u[b]];
    if (!has) {
      no_byte++;
      continue;
    }
    const int got = llm_tokenizer_encode(t, u, n, LLM_ENCODE_SPECIAL, ids, MAX_IDS);
    const size_t m = got < 0 ? 0 : decode(t, ids, got, 1, check, sizeof check);
    cps++;
    if ((got < 0 || m != n || memcmp(u, check, n) != 0) &&
        !(t->kind == LLM_TOK_SPM && c == 0x2581) && cp_failed++ < 5)
      fprintf(stderr, "%s: code point U+%04X decodes to '%.*s' (%zu bytes)\n", path, c,
              (int)m, check, m);
  }
  CHECK_EQ(failed, 0);
  CHECK_EQ(cp_failed, 0);
  printf(
      "%s: round trip of %d tokens (%d not UTF-8, skipped): %d fail; of %d code points "
      "(%d with a byte that has no token, skipped): %d fail\n",
      path, t->n, skipped, failed, cps, no_byte, cp_failed);
}

int main(int argc, char **argv) {
  int trip = 0, ignore_merges = 0, files = 0;
  int32_t *ids = malloc(sizeof *ids * MAX_IDS);
  CHECK(ids != NULL);
  for (int i = 1; i < argc && ids != NULL; ++i) {
    if (strcmp(argv[i], "--round-trip") == 0) {
      trip = 1;
      continue;
    }
    if (strcmp(argv[i], "--ignore-merges") == 0) {
      ignore_merges = 1;
      continue;
    }
    const clock_t t0 = clock();
    kgrt_error_t err;
    kgrt_weights_t *w = NULL;
    llm_tokenizer_t t;
    char why[256];
    files++;
    if (kgrt_weights_open(argv[i], NULL, &w, &err) != KGRT_STATUS_OK) {
      fprintf(stderr, "%s\n", err.message);
      CHECK(0);
      continue;
    }
    if (llm_tokenizer_load(&t, w, why, sizeof why) != 0) {
      fprintf(stderr, "%s: %s\n", argv[i], why);
      CHECK(0);
      kgrt_weights_close(w);
      continue;
    }
    cases(&t, argv[i], ids);
    if (trip)
      round_trip(&t, argv[i], ignore_merges, ids);
    printf("%s: %.1f s\n", argv[i], (double)(clock() - t0) / CLOCKS_PER_SEC);
    llm_tokenizer_free(&t);
    kgrt_weights_close(w);
  }
  CHECK(files > 0);
  free(ids);
  return TEST_DONE();
}
