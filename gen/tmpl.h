/* tmpl.h - a template's declaration (kg_template_t, read by front.c from
 * kg.template in lua/ops/) checked against its text and against the holes a
 * kernel gives it. The holes C itself gives are fixed: KERNEL WAVE BLOCK VEC
 * UNROLL everywhere; ITERS CACHE on rows grids; chain templates EXPR OUT_T
 * and the list IN; epilogue templates EPI PAIR OUT_T and the list EPI_IN;
 * norm templates NORM NG_T NEPS. */
#ifndef KG_TMPL_H
#define KG_TMPL_H

#include "diag.h"
#include "expand.h"
#include "ir.h"

/* Is `name` a hole C gives templates with the roles `fuse` (a list's item
 * hole when list is not "")? */
int kg_tmpl_c_hole(unsigned fuse, const char *list, const char *name);

/* The declaration against its sources' text (`text[i]` of `t->sources[i]`,
 * named `files[i]` in messages): every hole a source names is declared or
 * given by C (else an error at the source's line), and every declared hole
 * is named by some source (else an error at the first source's line 1). */
int kg_tmpl_check_decl(const kg_template_t *t, const char *const *files,
                       const char *const *text, kg_partial_fn partial, void *ud,
                       kg_diag_t *d);

/* One kernel: the holes the op and the params rule gave (given[], names)
 * must be declared and named by the source it expands (file; refs: what
 * kg_hole_refs found in it); each declared hole the source names must be
 * given or have a default, which is set in h. Errors name file:line. */
int kg_tmpl_check_kernel(const kg_template_t *t, const char *file,
                         const kg_hole_refs_t *refs, const char *const *given,
                         int num_given, kg_holes_t *h, kg_diag_t *d);

#endif /* KG_TMPL_H */
