/* diag.c - one-line error messages (see diag.h). */
#include "diag.h"

#include <stdio.h>
#include <string.h>

/* Messages are one line: fold any newline a tool or Lua put in, and write
 * other control bytes (a model's strings, a tool's output) as \xNN so that
 * printing a message cannot drive the terminal. Bytes >= 0x80 stay (UTF-8
 * paths). Truncates to KG_DIAG_MAX. */
static void one_line(char *s) {
  static const char hex[] = "0123456789abcdef";
  char out[KG_DIAG_MAX];
  size_t n = strlen(s), j = 0;
  while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
    s[--n] = '\0';
  for (const char *p = s; *p; p++) {
    unsigned char c = (unsigned char)*p;
    if (c == '\n' || c == '\r' || c == '\t')
      c = ' ';
    const int plain = c >= 0x20 && c != 0x7f;
    if (j + (plain ? 1 : 4) >= sizeof out)
      break;
    if (plain) {
      out[j++] = (char)c;
    } else {
      out[j++] = '\\';
      out[j++] = 'x';
      out[j++] = hex[c >> 4];
      out[j++] = hex[c & 15];
    }
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
