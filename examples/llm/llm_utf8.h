/* llm_utf8.h - a token stream's bytes as valid UTF-8 text: bytes are held
 * until they complete a character (a multi-byte character cut across
 * tokens goes out once whole), and each ill-formed sequence becomes one
 * U+FFFD (its maximal subpart, as the Unicode standard recommends and
 * WHATWG and Python decode). Plain data, no allocation. */
#ifndef LLM_UTF8_H
#define LLM_UTF8_H

#include <stddef.h>

typedef struct llm_utf8 {
  unsigned char held[4]; /* the start of a character not yet complete */
  int n_held;
} llm_utf8_t;

/* Valid UTF-8 out of in[0 .. n): the characters completed so far, U+FFFD
 * for each ill-formed sequence; the start of an incomplete character is
 * held for the next call. Writes at most 3 * n + 4 bytes to out (cap must
 * allow that) and returns the count. */
size_t llm_utf8_push(llm_utf8_t *u, const char *in, size_t n, char *out, size_t cap);
/* The end of the stream: a held incomplete character as one U+FFFD (at
 * most 3 bytes into out). Returns the count; the stream starts afresh. */
size_t llm_utf8_flush(llm_utf8_t *u, char *out, size_t cap);

#endif /* LLM_UTF8_H */
