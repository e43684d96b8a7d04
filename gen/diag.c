/* diag.c - one-line error messages (see diag.h). */
#include "diag.h"

#include <stdio.h>
#include <string.h>

/* A continuation byte of UTF-8. */
static int cont(unsigned char c) {
  return (c & 0xc0) == 0x80;
}

size_t kg_escape_unit(const char *s, size_t len, char out[4], size_t *out_len) {
  static const char hex[] = "0123456789abcdef";
  const unsigned char *u = (const unsigned char *)s;
  size_t n = 0; /* the bytes of a printable unit; 0: escape u[0] */
  if (u[0] >= 0x20 && u[0] < 0x7f) {
    n = 1;
  } else if (u[0] >= 0xc2 && u[0] <= 0xdf) {
    n = len >= 2 && cont(u[1]) && !(u[0] == 0xc2 && u[1] < 0xa0) ? 2 : 0; /* C1 */
  } else if (u[0] >= 0xe0 && u[0] <= 0xef) {
    n = len >= 3 && cont(u[1]) && cont(u[2]) && !(u[0] == 0xe0 && u[1] < 0xa0) &&
                !(u[0] == 0xed && u[1] >= 0xa0) /* surrogates */
            ? 3
            : 0;
    /* U+2028, U+2029 (line breaks), U+202A..U+202E, U+2066..U+2069 (bidi
     * controls that reorder what the terminal shows) */
    if (n && u[0] == 0xe2 &&
        ((u[1] == 0x80 && u[2] >= 0xa8 && u[2] <= 0xae) ||
         (u[1] == 0x81 && u[2] >= 0xa6 && u[2] <= 0xa9)))
      n = 0;
  } else if (u[0] >= 0xf0 && u[0] <= 0xf4) {
    n = len >= 4 && cont(u[1]) && cont(u[2]) && cont(u[3]) &&
                !(u[0] == 0xf0 && u[1] < 0x90) && !(u[0] == 0xf4 && u[1] >= 0x90)
            ? 4
            : 0;
  }
  if (n > 0) {
    memcpy(out, s, n);
    *out_len = n;
    return n;
  }
  out[0] = '\\';
  out[1] = 'x';
  out[2] = hex[u[0] >> 4];
  out[3] = hex[u[0] & 15];
  *out_len = 4;
  return 1;
}

/* Messages are one line: fold any newline a tool or Lua put in, and write
 * what could drive the terminal (kg_escape_unit: control bytes, C1
 * controls, malformed UTF-8) as \xNN. Truncates to KG_DIAG_MAX. */
static void one_line(char *s) {
  char out[KG_DIAG_MAX];
  size_t n = strlen(s), j = 0;
  while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
    s[--n] = '\0';
  for (size_t i = 0; i < n;) {
    if (s[i] == '\n' || s[i] == '\r' || s[i] == '\t')
      s[i] = ' ';
    char unit[4];
    size_t unit_len;
    const size_t used = kg_escape_unit(s + i, n - i, unit, &unit_len);
    if (j + unit_len >= sizeof out)
      break;
    memcpy(out + j, unit, unit_len);
    j += unit_len;
    i += used;
  }
  out[j] = '\0';
  memcpy(s, out, j + 1);
}

int kg_error(kg_diag_t *d, const char *fmt, ...) {
  va_list ap;
  int n = snprintf(d->msg, sizeof d->msg, "kgen: error: ");
  va_start(ap, fmt);
  vsnprintf(d->msg + n, sizeof d->msg - (size_t)n, fmt, ap);
  va_end(ap);
  one_line(d->msg);
  return -1;
}

int kg_error_at(kg_diag_t *d, const char *file, int line, const char *fmt, ...) {
  va_list ap;
  int n = line > 0 ? snprintf(d->msg, sizeof d->msg, "%s:%d: error: ", file, line)
                   : snprintf(d->msg, sizeof d->msg, "%s: error: ", file);
  if (n < 0 || (size_t)n >= sizeof d->msg)
    n = 0;
  va_start(ap, fmt);
  vsnprintf(d->msg + n, sizeof d->msg - (size_t)n, fmt, ap);
  va_end(ap);
  one_line(d->msg);
  return -1;
}

int kg_error_raw(kg_diag_t *d, const char *msg) {
  snprintf(d->msg, sizeof d->msg, "%s", msg);
  one_line(d->msg);
  return -1;
}
