/* text.c - a request's text buffer and its stop strings (text.h). */
#include <stdlib.h>
#include <string.h>

#include "text.h"

int kgs_buf_put(kgs_buf_t *b, const char *s, size_t n) {
  if (b->n + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->n + n + 1)
      cap *= 2;
    char *p = realloc(b->p, cap);
    if (p == NULL)
      return -1;
    b->p = p;
    b->cap = cap;
  }
  if (n > 0)
    memcpy(b->p + b->n, s, n);
  b->n += n;
  b->p[b->n] = 0;
  return 0;
}

void kgs_buf_free(kgs_buf_t *b) {
  free(b->p);
  *b = (kgs_buf_t){0};
}

int kgs_stop_add(kgs_stop_t *s, const char *str, size_t len) {
  if (s->n == KGS_MAX_STOPS || len == 0 || len > KGS_MAX_STOP_LEN)
    return -1;
  char *c = malloc(len + 1);
  if (c == NULL)
    return -1;
  memcpy(c, str, len);
  c[len] = 0;
  s->str[s->n] = c;
  s->len[s->n++] = len;
  return 0;
}

/* The first occurrence of any stop string in h[0 .. n): its offset, or n. */
static size_t first_stop(const kgs_stop_t *s, const char *h, size_t n) {
  size_t best = n;
  for (int i = 0; i < s->n; ++i) {
    const char *at = memmem(h, n, s->str[i], s->len[i]);
    if (at != NULL && (size_t)(at - h) < best)
      best = (size_t)(at - h);
  }
  return best;
}

/* The longest end of h[0 .. n) that is the start of a stop string. */
static size_t open_tail(const kgs_stop_t *s, const char *h, size_t n) {
  size_t keep = 0;
  for (int i = 0; i < s->n; ++i) {
    size_t k = s->len[i] - 1 < n ? s->len[i] - 1 : n;
    for (; k > keep; --k)
      if (memcmp(h + n - k, s->str[i], k) == 0) {
        keep = k;
        break;
      }
  }
  return keep;
}

int kgs_stop_feed(kgs_stop_t *s, const char *text, size_t n, kgs_buf_t *out) {
  if (s->n == 0)
    return kgs_buf_put(out, text, n);
  if (kgs_buf_put(&s->held, text, n) != 0)
    return -1;
  const size_t at = first_stop(s, s->held.p, s->held.n);
  if (at < s->held.n) {
    const int rc = kgs_buf_put(out, s->held.p, at);
    s->held.n = 0;
    return rc == 0 ? 1 : -1;
  }
  const size_t go = s->held.n - open_tail(s, s->held.p, s->held.n);
  if (kgs_buf_put(out, s->held.p, go) != 0)
    return -1;
  memmove(s->held.p, s->held.p + go, s->held.n - go);
  s->held.n -= go;
  return 0;
}

int kgs_stop_flush(kgs_stop_t *s, kgs_buf_t *out) {
  const int rc = kgs_buf_put(out, s->held.p, s->held.n);
  s->held.n = 0;
  return rc;
}

void kgs_stop_free(kgs_stop_t *s) {
  for (int i = 0; i < s->n; ++i)
    free(s->str[i]);
  kgs_buf_free(&s->held);
  *s = (kgs_stop_t){0};
}
