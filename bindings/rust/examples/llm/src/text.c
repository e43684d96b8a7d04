/* text.c - kgrt-llm's text side over examples/llm's tokenizer (llm_text):
 * the GGUF file's tokenizer behind one opaque handle, and token ids out as
 * text exactly as llm.c's put_token writes them (control tokens are not
 * text; the SentencePiece space before the first piece is not shown; bytes
 * through the UTF-8 stream, a character cut across tokens out once whole). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "llm_tokenizer.h"
#include "llm_utf8.h"

enum { MAX_PIECE = 1024 };

typedef struct kgrt_llm_text {
  llm_tokenizer_t tok;
  llm_utf8_t utf8;
  int started;
} kgrt_llm_text_t;

/* The tokenizer of `w`, or NULL with a line in why. */
kgrt_llm_text_t *kgrt_llm_text_new(const kgrt_weights_t *w, char *why, size_t why_size) {
  kgrt_llm_text_t *t = calloc(1, sizeof *t);
  if (t == NULL) {
    snprintf(why, why_size, "out of memory");
    return NULL;
  }
  if (llm_tokenizer_load(&t->tok, w, why, why_size) != 0) {
    free(t);
    return NULL;
  }
  return t;
}

void kgrt_llm_text_free(kgrt_llm_text_t *t) {
  if (t != NULL) {
    llm_tokenizer_free(&t->tok);
    free(t);
  }
}

/* The prompt as llm.c encodes it (BOS where the file asks, control tokens'
 * text the token): the count, or -1. */
int kgrt_llm_text_encode(const kgrt_llm_text_t *t, const char *text, size_t len,
                         int32_t *ids, int cap) {
  return llm_tokenizer_encode(&t->tok, text, len, LLM_ENCODE_BOS | LLM_ENCODE_SPECIAL,
                              ids, cap);
}

int kgrt_llm_text_is_eog(const kgrt_llm_text_t *t, int32_t id) {
  return llm_tokenizer_is_eog(&t->tok, id);
}

/* Token id's text into out (cap >= 3 * MAX_PIECE + 4): the byte count. */
size_t kgrt_llm_text_put(kgrt_llm_text_t *t, int32_t id, char *out, size_t cap) {
  char piece[MAX_PIECE];
  size_t n = llm_tokenizer_piece(&t->tok, id, 0, piece, sizeof piece);
  if (n >= sizeof piece)
    n = sizeof piece - 1;
  const size_t skip = !t->started && t->tok.add_space_prefix && n > 0 && piece[0] == ' ';
  t->started |= n > 0;
  if (cap < 3 * MAX_PIECE + 4)
    return 0;
  return llm_utf8_push(&t->utf8, piece + skip, n - skip, out, cap);
}

/* The end of the text (a held incomplete character): the byte count. */
size_t kgrt_llm_text_flush(kgrt_llm_text_t *t, char *out, size_t cap) {
  return llm_utf8_flush(&t->utf8, out, cap);
}
