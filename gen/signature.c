/* signature.c - the parameter names of an expanded kernel's signature: a
 * template's signature is the one place its parameters are named, and the
 * table carries those names, so that kgrt can refuse an argument bound to
 * the wrong parameter and say which. */
#include "signature.h"

#include <string.h>

static int ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '_';
}

/* The identifier that ends text[from, to), into out: its length, 0 where
 * there is none, -1 where it is too long. */
static int last_ident(const char *text, size_t from, size_t to, char *out) {
  while (to > from &&
         (text[to - 1] == ' ' || text[to - 1] == '\n' || text[to - 1] == '\t'))
    to--;
  size_t b = to;
  while (b > from && ident_char(text[b - 1]))
    b--;
  if (b == to || (text[b] >= '0' && text[b] <= '9'))
    return 0;
  if (to - b >= KG_ARG_NAME_MAX)
    return -1;
  memcpy(out, text + b, to - b);
  out[to - b] = '\0';
  return (int)(to - b);
}

int kg_signature_names(const char *text, size_t n, const char *name, const char *what,
                       char (*names)[KG_ARG_NAME_MAX], int max, int *count,
                       kg_diag_t *d) {
  const size_t len = strlen(name);
  size_t at = n;
  for (size_t i = 0; i + len < n; i++)
    if (memcmp(text + i, name, len) == 0 && text[i + len] == '(') {
      at = i + len + 1;
      break;
    }
  *count = 0;
  if (at == n)
    return kg_error(d, "internal: %s: no kernel signature found", what);
  int depth = 1;
  size_t from = at;
  for (size_t i = at; i < n && depth > 0; i++) {
    const char c = text[i];
    if (c == '(')
      depth++;
    else if (c == ')')
      depth--;
    if ((c == ',' && depth == 1) || depth == 0) {
      char tmp[KG_ARG_NAME_MAX];
      const int got = last_ident(text, from, i, tmp);
      if (got == 0 && depth == 0 && *count == 0)
        return 0; /* no parameters */
      if (got <= 0)
        return kg_error(d, "internal: %s: parameter %d of its signature %s", what, *count,
                        got == 0 ? "ends in no name" : "has a name too long");
      if (*count < max)
        memcpy(names[*count], tmp, (size_t)got + 1);
      (*count)++;
      from = i + 1;
    }
  }
  if (depth != 0)
    return kg_error(d, "internal: %s: its signature does not end", what);
  return 0;
}
