/* expand.h - the template expander. Templates are HIP text with holes:
 *   {{NAME}}                       the value of NAME
 *   {{#if NAME}} A {{else}} B {{/if}}
 *                                  A when NAME has a non-empty value, else B
 *                                  (the {{else}} part is optional)
 *   {{#each LIST}} ... {{/each}}   repeated for each item of LIST; inside,
 *                                  names are looked up in the item first
 *   {{> PART}}                     the partial PART (a file the caller's
 *                                  resolver finds), expanded with the same holes
 *   {{! text }}                    a comment (text without "}}"): nothing
 * A hole with no value is an error naming the template file and line. */
#ifndef KG_EXPAND_H
#define KG_EXPAND_H

#include "buf.h"
#include "diag.h"

typedef struct kg_holes kg_holes_t;

kg_holes_t *kg_holes_new(void);
void kg_holes_free(kg_holes_t *h);
/* Sets NAME (replacing an earlier value). */
void kg_holes_set(kg_holes_t *h, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Declares LIST (with no items yet: {{#each LIST}} then expands to nothing). */
void kg_holes_set_list(kg_holes_t *h, const char *list);
/* Appends an item to LIST and returns it, for the caller to fill. */
kg_holes_t *kg_holes_add_item(kg_holes_t *h, const char *list);

/* Appends every hole of h to out, a line each, sorted by name:
 * `<indent>NAME = VALUE` (newlines and backslashes in a value escaped as \n
 * and \\, an empty value as ""), then each list `<indent>LIST[i]:` with its
 * items' holes indented further. What --emit=kernels prints. */
void kg_holes_dump(const kg_holes_t *h, int indent, kg_buf_t *out);

/* Finds partial `part` (len bytes): its text and its file name (for
 * messages), or NULL when there is none. */
typedef const char *(*kg_partial_fn)(const char *part, size_t len, const char **file,
                                     void *ud);

/* Expands `text` (from file `name`, for messages) into out; partials through
 * `partial` (NULL: a template with a partial is an error). */
int kg_expand(const char *name, const char *text, const kg_holes_t *h,
              kg_partial_fn partial, void *ud, kg_buf_t *out, kg_diag_t *d);

/* A hole a template names, wherever it stands (a branch not taken counts):
 * its name, the list whose {{#each}} body it is in ("" at the top), and
 * where it is first named. {{#each LIST}} names LIST with list "[]". */
typedef struct kg_hole_ref {
  char name[64];
  char list[64];
  const char *file; /* the template's or a partial's name, as given */
  int line;
} kg_hole_ref_t;

typedef struct kg_hole_refs {
  int count;
  kg_hole_ref_t *refs;
} kg_hole_refs_t;

/* Every hole `text` and its partials name, each (name, list) once, in order
 * of first appearance. A syntax error fails as kg_expand does. */
int kg_hole_refs(const char *name, const char *text, kg_partial_fn partial, void *ud,
                 kg_hole_refs_t *refs, kg_diag_t *d);
void kg_hole_refs_free(kg_hole_refs_t *refs);

#endif /* KG_EXPAND_H */
