/* expand.c - the template expander (see expand.h). A small recursive
 * expander: sections are matched by scanning for their end tag, counting
 * nested sections of the same kind. */
#include "expand.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct kg_list {
  char *name;
  int count;
  kg_holes_t **items;
} kg_list_t;

struct kg_holes {
  int count;
  char **names;
  char **values;
  int num_lists;
  kg_list_t *lists;
  const kg_holes_t *parent; /* set while expanding an item */
};

kg_holes_t *kg_holes_new(void) {
  return kg_xcalloc(1, sizeof(kg_holes_t));
}

void kg_holes_free(kg_holes_t *h) {
  if (!h)
    return;
  for (int i = 0; i < h->count; i++) {
    free(h->names[i]);
    free(h->values[i]);
  }
  for (int i = 0; i < h->num_lists; i++) {
    for (int k = 0; k < h->lists[i].count; k++)
      kg_holes_free(h->lists[i].items[k]);
    free(h->lists[i].items);
    free(h->lists[i].name);
  }
  free(h->names);
  free(h->values);
  free(h->lists);
  free(h);
}

void kg_holes_set(kg_holes_t *h, const char *name, const char *fmt, ...) {
  kg_buf_t b;
  kg_buf_init(&b);
  va_list ap;
  va_start(ap, fmt);
  kg_buf_vprintf(&b, fmt, ap);
  va_end(ap);
  char *value = kg_buf_take(&b, NULL);
  for (int i = 0; i < h->count; i++)
    if (strcmp(h->names[i], name) == 0) {
      free(h->values[i]);
      h->values[i] = value;
      return;
    }
  h->names = kg_xrealloc(h->names, (size_t)(h->count + 1) * sizeof *h->names);
  h->values = kg_xrealloc(h->values, (size_t)(h->count + 1) * sizeof *h->values);
  h->names[h->count] = kg_xstrdup(name);
  h->values[h->count] = value;
  h->count++;
}

static kg_list_t *find_list(const kg_holes_t *h, const char *name, size_t len) {
  for (; h; h = h->parent)
    for (int i = 0; i < h->num_lists; i++)
      if (strlen(h->lists[i].name) == len && strncmp(h->lists[i].name, name, len) == 0)
        return &h->lists[i];
  return NULL;
}

static kg_list_t *list_get(kg_holes_t *h, const char *list) {
  kg_list_t *l = NULL;
  for (int i = 0; i < h->num_lists; i++)
    if (strcmp(h->lists[i].name, list) == 0)
      l = &h->lists[i];
  if (!l) {
    h->lists = kg_xrealloc(h->lists, (size_t)(h->num_lists + 1) * sizeof *h->lists);
    l = &h->lists[h->num_lists++];
    l->name = kg_xstrdup(list);
    l->count = 0;
    l->items = NULL;
  }
  return l;
}

void kg_holes_set_list(kg_holes_t *h, const char *list) {
  list_get(h, list);
}

kg_holes_t *kg_holes_add_item(kg_holes_t *h, const char *list) {
  kg_list_t *l = list_get(h, list);
  l->items = kg_xrealloc(l->items, (size_t)(l->count + 1) * sizeof *l->items);
  return l->items[l->count++] = kg_holes_new();
}

static const char *find_value(const kg_holes_t *h, const char *name, size_t len) {
  for (; h; h = h->parent)
    for (int i = 0; i < h->count; i++)
      if (strlen(h->names[i]) == len && strncmp(h->names[i], name, len) == 0)
        return h->values[i];
  return NULL;
}

typedef struct ctx {
  const char *file;
  const char *text; /* the whole template, for line numbers */
  kg_diag_t *d;
} ctx_t;

static int line_of(const ctx_t *c, const char *p) {
  int line = 1;
  for (const char *q = c->text; q < p; q++)
    line += *q == '\n';
  return line;
}

static int is_name_char(char ch) {
  return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
         (ch >= '0' && ch <= '9') || ch == '_';
}

/* Finds the {{/kind}} closing the section whose body starts at p. */
static const char *section_end(const ctx_t *c, const char *p, const char *end,
                               const char *kind, const char **out_after) {
  char open[16], close[16];
  snprintf(open, sizeof open, "{{#%s ", kind);
  snprintf(close, sizeof close, "{{/%s}}", kind);
  int depth = 1;
  (void)c;
  for (const char *q = p; q < end; q++) {
    if (strncmp(q, open, strlen(open)) == 0)
      depth++;
    else if (strncmp(q, close, strlen(close)) == 0 && --depth == 0) {
      *out_after = q + strlen(close);
      return q;
    }
  }
  return NULL;
}

static int expand_range(const ctx_t *c, const char *p, const char *end,
                        const kg_holes_t *h, kg_buf_t *out) {
  while (p < end) {
    const char *open = strstr(p, "{{");
    if (!open || open >= end) {
      kg_buf_put(out, p, (size_t)(end - p));
      return 0;
    }
    kg_buf_put(out, p, (size_t)(open - p));
    const char *tag = open + 2;
    const char *close = strstr(tag, "}}");
    if (!close || close > end)
      return kg_error_at(c->d, c->file, line_of(c, open), "unterminated {{");
    int is_each = strncmp(tag, "#each ", 6) == 0;
    int is_if = strncmp(tag, "#if ", 4) == 0;
    if (is_each || is_if) {
      const char *name = tag + (is_each ? 6 : 4);
      size_t len = (size_t)(close - name);
      const char *after;
      const char *body_end =
          section_end(c, close + 2, end, is_each ? "each" : "if", &after);
      if (!body_end)
        return kg_error_at(c->d, c->file, line_of(c, open), "{{#%s %.*s}} has no {{/%s}}",
                           is_each ? "each" : "if", (int)len, name,
                           is_each ? "each" : "if");
      if (is_each) {
        kg_list_t *l = find_list(h, name, len);
        if (!l)
          return kg_error_at(c->d, c->file, line_of(c, open),
                             "list {{#each %.*s}} has no value", (int)len, name);
        for (int i = 0; i < l->count; i++) {
          l->items[i]->parent = h;
          int rc = expand_range(c, close + 2, body_end, l->items[i], out);
          l->items[i]->parent = NULL;
          KG_TRY(rc);
        }
      } else {
        const char *v = find_value(h, name, len);
        if (v && *v)
          KG_TRY(expand_range(c, close + 2, body_end, h, out));
      }
      p = after;
      continue;
    }
    size_t len = (size_t)(close - tag);
    for (size_t i = 0; i < len; i++)
      if (!is_name_char(tag[i]))
        return kg_error_at(c->d, c->file, line_of(c, open), "bad hole {{%.*s}}", (int)len,
                           tag);
    const char *v = find_value(h, tag, len);
    if (!v)
      return kg_error_at(c->d, c->file, line_of(c, open), "hole {{%.*s}} has no value",
                         (int)len, tag);
    kg_buf_puts(out, v);
    p = close + 2;
  }
  return 0;
}

int kg_expand(const char *name, const char *text, const kg_holes_t *h, kg_buf_t *out,
              kg_diag_t *d) {
  ctx_t c = {name, text, d};
  return expand_range(&c, text, text + strlen(text), h, out);
}
