/* text.h - a request's text on its way out (serve/sched.c): a growable
 * buffer, and stop strings matched on the decoded text. Text is held back
 * while its end could still become a stop string, so that no byte of a
 * stop string ever goes out; what goes out is cut only where the input was
 * cut (whole UTF-8 characters in, whole characters out). Plain data. */
#ifndef KGS_TEXT_H
#define KGS_TEXT_H

#include <stddef.h>

typedef struct kgs_buf {
  char *p;
  size_t n, cap;
} kgs_buf_t;

/* Appends s[0 .. n) (NUL-terminated after); 0, or -1 when out of memory. */
int kgs_buf_put(kgs_buf_t *b, const char *s, size_t n);
void kgs_buf_free(kgs_buf_t *b);

enum { KGS_MAX_STOPS = 4, KGS_MAX_STOP_LEN = 256 };

typedef struct kgs_stop {
  char *str[KGS_MAX_STOPS]; /* copies, non-empty */
  size_t len[KGS_MAX_STOPS];
  int n;
  kgs_buf_t held; /* text that may be the start of a stop string */
} kgs_stop_t;

/* Adds a stop string (1 .. KGS_MAX_STOP_LEN bytes, at most KGS_MAX_STOPS):
 * 0, or -1 (too many, empty or too long, out of memory). */
int kgs_stop_add(kgs_stop_t *s, const char *str, size_t len);
/* Feeds text[0 .. n): appends to out what can go out now. Returns 1 when a
 * stop string is in the text (out then holds what came before it; the rest
 * is dropped), 0 otherwise, -1 when out of memory. */
int kgs_stop_feed(kgs_stop_t *s, const char *text, size_t n, kgs_buf_t *out);
/* The end of the text: what is held goes out. 0, or -1 (out of memory). */
int kgs_stop_flush(kgs_stop_t *s, kgs_buf_t *out);
void kgs_stop_free(kgs_stop_t *s);

#endif /* KGS_TEXT_H */
