/* expand.c - the template expander (see expand.h). A small recursive
 * expander: sections are matched by scanning for their end tag, counting
 * nested sections of the same kind. One walker both expands and, for
 * kg_hole_refs, lists the names a template holds (every branch). */
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

static int cmp_name(const void *a, const void *b) {
  return strcmp(**(char *const *const *)a, **(char *const *const *)b);
}

void kg_holes_dump(const kg_holes_t *h, int indent, kg_buf_t *out) {
  char ***order = kg_xcalloc((size_t)h->count + 1, sizeof *order);
  for (int i = 0; i < h->count; i++)
    order[i] = &h->names[i];
  qsort(order, (size_t)h->count, sizeof order[0], cmp_name);
  for (int i = 0; i < h->count; i++) {
    const char *v = h->values[order[i] - h->names];
    kg_buf_printf(out, "%*s%s = ", indent, "", *order[i]);
    if (!*v)
      kg_buf_puts(out, "\"\"");
    for (; *v; v++)
      if (*v == '\n')
        kg_buf_puts(out, "\\n");
      else if (*v == '\\')
        kg_buf_puts(out, "\\\\");
      else
        kg_buf_putc(out, *v);
    kg_buf_putc(out, '\n');
  }
  free(order);
  for (int i = 0; i < h->num_lists; i++)
    for (int k = 0; k < h->lists[i].count; k++) {
      kg_buf_printf(out, "%*s%s[%d]:\n", indent, "", h->lists[i].name, k);
      kg_holes_dump(h->lists[i].items[k], indent + 2, out);
    }
}

static const char *find_value(const kg_holes_t *h, const char *name, size_t len) {
  for (; h; h = h->parent)
    for (int i = 0; i < h->count; i++)
      if (strlen(h->names[i]) == len && strncmp(h->names[i], name, len) == 0)
        return h->values[i];
  return NULL;
}

#define KG_PARTIAL_DEPTH 8

/* The last line number asked for: most asks go forward through the text. */
typedef struct line_cache {
  const char *pos;
  int line;
} line_cache_t;

typedef struct ctx {
  const char *file;
  const char *text; /* the whole template, for line numbers */
  line_cache_t *lines;
  kg_partial_fn partial;
  void *ud;
  int depth;            /* partials being expanded */
  kg_hole_refs_t *refs; /* scanning: where names go (no output) */
  kg_diag_t *d;
} ctx_t;

static int line_of(const ctx_t *c, const char *p) {
  const int from_cache = c->lines->pos && c->lines->pos <= p;
  const char *q = from_cache ? c->lines->pos : c->text;
  int line = from_cache ? c->lines->line : 1;
  for (; q < p; q++)
    line += *q == '\n';
  c->lines->pos = p;
  c->lines->line = line;
  return line;
}

static int is_name_char(char ch) {
  return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
         (ch >= '0' && ch <= '9') || ch == '_';
}

/* Finds the {{/kind}} closing the section whose body starts at p, and for
 * an if, its own {{else}} (*out_else, or NULL). */
static const char *section_end(const char *p, const char *end, const char *kind,
                               const char **out_else, const char **out_after) {
  char open[16], close[16];
  snprintf(open, sizeof open, "{{#%s ", kind);
  snprintf(close, sizeof close, "{{/%s}}", kind);
  const size_t lo = strlen(open), lc = strlen(close);
  int depth = 1;
  if (out_else)
    *out_else = NULL;
  for (const char *q = p; q < end; q++) {
    q = memchr(q, '{', (size_t)(end - q)); /* every tag starts with one */
    if (q == NULL)
      break;
    if ((size_t)(end - q) >= lo && strncmp(q, open, lo) == 0)
      depth++;
    else if ((size_t)(end - q) >= lc && strncmp(q, close, lc) == 0 && --depth == 0) {
      *out_after = q + lc;
      return q;
    } else if (out_else && depth == 1 && (size_t)(end - q) >= 8 &&
               strncmp(q, "{{else}}", 8) == 0) {
      if (*out_else)
        return NULL; /* two {{else}}: reported as unclosed by the caller */
      *out_else = q;
    }
  }
  return NULL;
}

static int check_name(const ctx_t *c, const char *open, const char *name, size_t len,
                      const char *what) {
  if (len == 0 || len >= sizeof(((kg_hole_ref_t *)0)->name))
    return kg_error_at(c->d, c->file, line_of(c, open), "bad %s {{%.*s}}", what, (int)len,
                       name);
  for (size_t i = 0; i < len; i++)
    if (!is_name_char(name[i]))
      return kg_error_at(c->d, c->file, line_of(c, open), "bad %s {{%.*s}}", what,
                         (int)len, name);
  return 0;
}

/* Scanning: records (name, list) once. */
static void add_ref(const ctx_t *c, const char *at, const char *name, size_t len,
                    const char *list) {
  kg_hole_refs_t *r = c->refs;
  for (int i = 0; i < r->count; i++)
    if (strlen(r->refs[i].name) == len && strncmp(r->refs[i].name, name, len) == 0 &&
        strcmp(r->refs[i].list, list) == 0)
      return;
  r->refs = kg_xrealloc(r->refs, (size_t)(r->count + 1) * sizeof *r->refs);
  kg_hole_ref_t *f = &r->refs[r->count++];
  snprintf(f->name, sizeof f->name, "%.*s", (int)len, name);
  snprintf(f->list, sizeof f->list, "%s", list);
  f->file = c->file;
  f->line = line_of(c, at);
}

static int walk(const ctx_t *c, const char *p, const char *end, const kg_holes_t *h,
                const char *list, kg_buf_t *out);

/* {{> PART}}: the partial's text, walked as its own file. */
static int walk_partial(const ctx_t *c, const char *open, const char *name, size_t len,
                        const kg_holes_t *h, const char *list, kg_buf_t *out) {
  KG_TRY(check_name(c, open, name, len, "partial"));
  const char *file = NULL;
  const char *text = c->partial ? c->partial(name, len, &file, c->ud) : NULL;
  if (!text)
    return kg_error_at(c->d, c->file, line_of(c, open), "no partial {{> %.*s}}", (int)len,
                       name);
  if (c->depth >= KG_PARTIAL_DEPTH)
    return kg_error_at(c->d, c->file, line_of(c, open),
                       "partials nested more than %d deep at {{> %.*s}}",
                       KG_PARTIAL_DEPTH, (int)len, name);
  ctx_t sub = *c;
  line_cache_t lines = {NULL, 0};
  sub.file = file ? file : "partial";
  sub.text = text;
  sub.lines = &lines;
  sub.depth = c->depth + 1;
  return walk(&sub, text, text + strlen(text), h, list, out);
}

/* Expands [p, end) into out with holes h, or (c->refs) records the names it
 * holds, inside the {{#each}} of `list` ("" at the top). */
static int walk(const ctx_t *c, const char *p, const char *end, const kg_holes_t *h,
                const char *list, kg_buf_t *out) {
  while (p < end) {
    const char *open = strstr(p, "{{");
    if (!open || open >= end) {
      if (out)
        kg_buf_put(out, p, (size_t)(end - p));
      return 0;
    }
    if (out)
      kg_buf_put(out, p, (size_t)(open - p));
    const char *tag = open + 2;
    const char *close = strstr(tag, "}}");
    if (!close || close > end)
      return kg_error_at(c->d, c->file, line_of(c, open), "unterminated {{");
    if (strncmp(tag, "else}}", 6) == 0 || strncmp(tag, "/if}}", 5) == 0 ||
        strncmp(tag, "/each}}", 7) == 0)
      return kg_error_at(c->d, c->file, line_of(c, open), "{{%.*s}} without its section",
                         (int)(close - tag), tag);
    if (tag[0] == '!') { /* {{! a comment }} */
      p = close + 2;
      continue;
    }
    if (strncmp(tag, "> ", 2) == 0) {
      KG_TRY(walk_partial(c, open, tag + 2, (size_t)(close - tag - 2), h, list, out));
      p = close + 2;
      continue;
    }
    const int is_each = strncmp(tag, "#each ", 6) == 0;
    const int is_if = strncmp(tag, "#if ", 4) == 0;
    if (is_each || is_if) {
      const char *kind = is_each ? "each" : "if";
      const char *name = tag + (is_each ? 6 : 4);
      size_t len = (size_t)(close - name);
      KG_TRY(check_name(c, open, name, len, kind));
      const char *after, *els;
      const char *body_end =
          section_end(close + 2, end, kind, is_if ? &els : NULL, &after);
      if (!body_end)
        return kg_error_at(c->d, c->file, line_of(c, open),
                           "{{#%s %.*s}} has no {{/%s}}%s", kind, (int)len, name, kind,
                           is_if ? " (or two {{else}})" : "");
      if (is_each) {
        if (c->refs) {
          add_ref(c, open, name, len, "[]");
          char inner[64];
          snprintf(inner, sizeof inner, "%.*s", (int)len, name);
          KG_TRY(walk(c, close + 2, body_end, NULL, inner, NULL));
        } else {
          kg_list_t *l = find_list(h, name, len);
          if (!l)
            return kg_error_at(c->d, c->file, line_of(c, open),
                               "list {{#each %.*s}} has no value", (int)len, name);
          for (int i = 0; i < l->count; i++) {
            l->items[i]->parent = h;
            int rc = walk(c, close + 2, body_end, l->items[i], list, out);
            l->items[i]->parent = NULL;
            KG_TRY(rc);
          }
        }
      } else if (c->refs) {
        add_ref(c, open, name, len, list);
        KG_TRY(walk(c, close + 2, els ? els : body_end, NULL, list, NULL));
        if (els)
          KG_TRY(walk(c, els + 8, body_end, NULL, list, NULL));
      } else {
        const char *v = find_value(h, name, len);
        if (v && *v)
          KG_TRY(walk(c, close + 2, els ? els : body_end, h, list, out));
        else if (els)
          KG_TRY(walk(c, els + 8, body_end, h, list, out));
      }
      p = after;
      continue;
    }
    size_t len = (size_t)(close - tag);
    KG_TRY(check_name(c, open, tag, len, "hole"));
    if (c->refs) {
      add_ref(c, open, tag, len, list);
    } else {
      const char *v = find_value(h, tag, len);
      if (!v)
        return kg_error_at(c->d, c->file, line_of(c, open), "hole {{%.*s}} has no value",
                           (int)len, tag);
      kg_buf_puts(out, v);
    }
    p = close + 2;
  }
  return 0;
}

int kg_expand(const char *name, const char *text, const kg_holes_t *h,
              kg_partial_fn partial, void *ud, kg_buf_t *out, kg_diag_t *d) {
  line_cache_t lines = {NULL, 0};
  ctx_t c = {name, text, &lines, partial, ud, 0, NULL, d};
  return walk(&c, text, text + strlen(text), h, "", out);
}

int kg_hole_refs(const char *name, const char *text, kg_partial_fn partial, void *ud,
                 kg_hole_refs_t *refs, kg_diag_t *d) {
  line_cache_t lines = {NULL, 0};
  ctx_t c = {name, text, &lines, partial, ud, 0, refs, d};
  return walk(&c, text, text + strlen(text), NULL, "", NULL);
}

void kg_hole_refs_free(kg_hole_refs_t *refs) {
  free(refs->refs);
  refs->refs = NULL;
  refs->count = 0;
}
