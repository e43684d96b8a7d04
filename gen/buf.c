/* buf.c - growable buffer and checked allocation (see buf.h). */
#include "buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *kg_xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) {
    fputs("kgen: error: out of memory\n", stderr);
    exit(1);
  }
  return p;
}

void *kg_xcalloc(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size ? size : 1);
  if (!p) {
    fputs("kgen: error: out of memory\n", stderr);
    exit(1);
  }
  return p;
}

void *kg_xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) {
    fputs("kgen: error: out of memory\n", stderr);
    exit(1);
  }
  return q;
}

char *kg_xstrdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *p = kg_xmalloc(n);
  memcpy(p, s, n);
  return p;
}

void kg_buf_init(kg_buf_t *b) {
  b->data = NULL;
  b->len = 0;
  b->cap = 0;
}

void kg_buf_free(kg_buf_t *b) {
  free(b->data);
  kg_buf_init(b);
}

void kg_buf_reserve(kg_buf_t *b, size_t extra) {
  size_t need = b->len + extra + 1; /* room for the terminator */
  if (need <= b->cap)
    return;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < need)
    cap *= 2;
  b->data = kg_xrealloc(b->data, cap);
  b->cap = cap;
}

void kg_buf_put(kg_buf_t *b, const void *data, size_t len) {
  kg_buf_reserve(b, len);
  if (len)
    memcpy(b->data + b->len, data, len);
  b->len += len;
  b->data[b->len] = '\0';
}

void kg_buf_puts(kg_buf_t *b, const char *s) {
  kg_buf_put(b, s, strlen(s));
}

void kg_buf_putc(kg_buf_t *b, char c) {
  kg_buf_put(b, &c, 1);
}

void kg_buf_vprintf(kg_buf_t *b, const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n < 0)
    return;
  kg_buf_reserve(b, (size_t)n);
  vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
  b->len += (size_t)n;
}

void kg_buf_printf(kg_buf_t *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  kg_buf_vprintf(b, fmt, ap);
  va_end(ap);
}

const char *kg_buf_cstr(kg_buf_t *b) {
  kg_buf_reserve(b, 0);
  b->data[b->len] = '\0';
  return b->data;
}

char *kg_buf_take(kg_buf_t *b, size_t *out_len) {
  kg_buf_cstr(b);
  char *p = b->data;
  if (out_len)
    *out_len = b->len;
  kg_buf_init(b);
  return p;
}
