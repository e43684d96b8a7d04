/* test_tmpl.c - a template's declaration against its text and against the
 * holes a kernel gives it (gen/tmpl.c): a misspelled hole, in the text or
 * given by an op, and a declared hole the text never names, each fail with
 * the template's file:line; a default fills an optional hole. */
#include <string.h>

#include "test.h"
#include "tmpl.h"

static kg_hole_t holes[] = {{"COLS", NULL}, {"W_T", ""}, {"X_T", NULL}};
static char *sources[] = {"norm"};

static kg_template_t decl(void) {
  kg_template_t t;
  memset(&t, 0, sizeof t);
  t.name = "norm";
  t.num_holes = 3;
  t.holes = holes;
  t.num_sources = 1;
  t.sources = sources;
  return t;
}

static const char good[] = "x {{X_T}} {{COLS}} {{BLOCK}}\n{{#if W_T}}w{{/if}}\n";

int main(void) {
  kg_diag_t d;
  kg_template_t t = decl();
  const char *files[] = {"templates/norm.hip"};

  const char *text[] = {good};
  CHECK_EQ(kg_tmpl_check_decl(&t, files, text, NULL, NULL, &d), 0);

  /* a misspelled hole in the text: its line */
  const char *typo[] = {"x {{X_T}}\n{{COLS}}\n{{#if W_TT}}w{{/if}}"};
  CHECK(kg_tmpl_check_decl(&t, files, typo, NULL, NULL, &d) != 0);
  CHECK_STR(d.msg, "templates/norm.hip:3: error: hole {{W_TT}} is not declared by "
                   "template norm (kg.template's holes)");

  /* a declared hole the text never names */
  const char *unused[] = {"x {{X_T}} {{COLS}}\n"};
  CHECK(kg_tmpl_check_decl(&t, files, unused, NULL, NULL, &d) != 0);
  CHECK_STR(d.msg, "templates/norm.hip:1: error: template norm declares hole W_T, which "
                   "its text never names");

  /* C's own holes need no declaration; a role's do only with that role */
  const char *epi[] = {"{{X_T}} {{COLS}} {{W_T}} {{EPI}}{{#each EPI_IN}}{{I}}{{/each}}"};
  CHECK(kg_tmpl_check_decl(&t, files, epi, NULL, NULL, &d) != 0);
  CHECK(strstr(d.msg, "hole {{EPI}} is not declared") != NULL);
  t.fuse = KG_FUSE_EPILOGUE;
  CHECK_EQ(kg_tmpl_check_decl(&t, files, epi, NULL, NULL, &d), 0);
  t.fuse = 0;

  /* a kernel: a given hole must be declared; a missing optional one takes
   * its default; a missing required one fails where the text names it */
  kg_holes_t *h = kg_holes_new();
  kg_hole_refs_t refs = {0};
  CHECK_EQ(kg_hole_refs(files[0], good, NULL, NULL, &refs, &d), 0);
  const char *given[] = {"COLS", "X_T"};
  CHECK_EQ(kg_tmpl_check_kernel(&t, files[0], &refs, given, 2, h, &d), 0);
  kg_holes_set(h, "COLS", "8");
  kg_holes_set(h, "X_T", "float");
  kg_holes_set(h, "BLOCK", "64");
  kg_buf_t out;
  kg_buf_init(&out);
  CHECK_EQ(kg_expand(files[0], good, h, NULL, NULL, &out, &d), 0);
  CHECK_STR(kg_buf_cstr(&out), "x float 8 64\n\n");
  const char *typo_given[] = {"COLS", "X_T", "COLZ"};
  CHECK(kg_tmpl_check_kernel(&t, files[0], &refs, typo_given, 3, h, &d) != 0);
  CHECK_STR(d.msg, "templates/norm.hip:1: error: hole COLZ is given to template norm, "
                   "which does not declare it");
  const char *short_given[] = {"X_T"};
  CHECK(kg_tmpl_check_kernel(&t, files[0], &refs, short_given, 1, h, &d) != 0);
  CHECK_STR(d.msg,
            "templates/norm.hip:1: error: hole {{COLS}} has no value (template norm)");

  kg_buf_free(&out);
  kg_hole_refs_free(&refs);
  kg_holes_free(h);
  return TEST_DONE();
}
