/* buf.h - the one emitter: a growable byte buffer that all generated text and
 * binary output goes through. Allocation failure is fatal to kgen (a CLI), so
 * appends never fail. */
#ifndef KG_BUF_H
#define KG_BUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct kg_buf {
  char *data; /* always NUL-terminated when len > 0 or after kg_buf_cstr */
  size_t len;
  size_t cap;
} kg_buf_t;

void kg_buf_init(kg_buf_t *b);
void kg_buf_free(kg_buf_t *b);
void kg_buf_reserve(kg_buf_t *b, size_t extra);
void kg_buf_put(kg_buf_t *b, const void *data, size_t len);
void kg_buf_puts(kg_buf_t *b, const char *s);
void kg_buf_putc(kg_buf_t *b, char c);
void kg_buf_printf(kg_buf_t *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void kg_buf_vprintf(kg_buf_t *b, const char *fmt, va_list ap);
/* The contents as a C string (adds a NUL that len does not count). */
const char *kg_buf_cstr(kg_buf_t *b);
/* Hands the storage to the caller and leaves b empty. */
char *kg_buf_take(kg_buf_t *b, size_t *out_len);

/* Memory helpers that exit with a message on failure. */
void *kg_xmalloc(size_t n);
void *kg_xcalloc(size_t n, size_t size);
void *kg_xrealloc(void *p, size_t n);
char *kg_xstrdup(const char *s);

#endif /* KG_BUF_H */
