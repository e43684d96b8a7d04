/* diag.c - one-line error messages (see diag.h). */
#include "diag.h"

#include <stdio.h>
#include <string.h>

/* Messages are one line: fold any newline a tool or Lua put in. */
static void one_line(char *s) {
  size_t n = strlen(s);
  while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
    s[--n] = '\0';
  for (char *p = s; *p; p++)
    if (*p == '\n' || *p == '\r' || *p == '\t')
      *p = ' ';
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
