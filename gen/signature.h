/* signature.h - the parameter names of an expanded kernel's signature.
 * Needs: diag.h, kgrt_table.h. Gives: kg_signature_names. */
#ifndef KG_SIGNATURE_H
#define KG_SIGNATURE_H

#include <stddef.h>

#include "diag.h"
#include "kgrt_table.h"

/* The longest parameter name a table carries, with its NUL. */
#define KG_ARG_NAME_MAX KGRT_ARG_NAME_MAX

/* The names of the parameters of the kernel that text (one expanded
 * template, n bytes) defines: the identifier that ends each parameter
 * between the parentheses after `name` (the kernel's name hole), at most
 * max of them into names[i]. *count gets how many there are (past max too).
 * -1 with a message naming `what` where no such signature is found or a
 * parameter ends in no identifier or one too long. */
int kg_signature_names(const char *text, size_t n, const char *name, const char *what,
                       char (*names)[KG_ARG_NAME_MAX], int max, int *count, kg_diag_t *d);

#endif /* KG_SIGNATURE_H */
