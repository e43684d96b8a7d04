/* expand.h - the template expander. Templates are HIP text with holes:
 *   {{NAME}}                       the value of NAME
 *   {{#if NAME}} ... {{/if}}       kept when NAME has a non-empty value
 *   {{#each LIST}} ... {{/each}}   repeated for each item of LIST; inside,
 *                                  names are looked up in the item first
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

/* Expands `text` (from file `name`, for messages) into out. */
int kg_expand(const char *name, const char *text, const kg_holes_t *h, kg_buf_t *out,
              kg_diag_t *d);

#endif /* KG_EXPAND_H */
