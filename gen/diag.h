/* diag.h - error reporting inside kgen. Fallible functions return 0 on success
 * and -1 on error after filling a kg_diag_t with a one-line message; the CLI
 * prints it once. Messages read "FILE:LINE: error: what" when a source
 * position is known, else "kgen: error: what" (or name the argument). */
#ifndef KG_DIAG_H
#define KG_DIAG_H

#include <stdarg.h>
#include <stddef.h>

#define KG_DIAG_MAX 2048

typedef struct kg_diag {
  char msg[KG_DIAG_MAX]; /* empty when no error was recorded */
} kg_diag_t;

/* Records "kgen: error: <fmt>" and returns -1. */
int kg_error(kg_diag_t *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Records "<file>:<line>: error: <fmt>" (line <= 0: "<file>: error: ...") and returns -1.
 */
int kg_error_at(kg_diag_t *d, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Records the message as given (already formatted) and returns -1. */
int kg_error_raw(kg_diag_t *d, const char *msg);

/* One unit of s (len > 0 bytes) as text that cannot drive a terminal: a
 * printable ASCII byte, or the whole UTF-8 sequence of a printable code
 * point, as it is; anything else (C0 controls, DEL, C1 controls, line and
 * bidi controls, malformed UTF-8) as \xNN of its first byte. Writes at most
 * 4 bytes to out and their count to *out_len; returns the bytes of s used. */
size_t kg_escape_unit(const char *s, size_t len, char out[4], size_t *out_len);

#define KG_TRY(expr)                                                                     \
  do {                                                                                   \
    if ((expr) != 0)                                                                     \
      return -1;                                                                         \
  } while (0)

#endif /* KG_DIAG_H */
