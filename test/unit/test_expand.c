/* test_expand.c - the template expander: holes, #if with else, #each
 * (nested, with lookups falling back to the outer scope), partials, the list
 * of the holes a template names, and their errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expand.h"
#include "test.h"

/* partials: "p" -> "<{{N}}>", "deep" includes itself, "two" -> "{{> p}}{{ZZ}}" */
static const char *partial(const char *name, size_t len, const char **file, void *ud) {
  (void)ud;
  if (len == 1 && name[0] == 'p') {
    *file = "part_p.hip";
    return "<{{N}}>";
  }
  if (len == 4 && strncmp(name, "deep", 4) == 0) {
    *file = "part_deep.hip";
    return "d{{> deep}}";
  }
  if (len == 3 && strncmp(name, "two", 3) == 0) {
    *file = "part_two.hip";
    return "{{> p}}\n{{ZZ}}";
  }
  return NULL;
}

static const char *run(const char *tmpl, kg_holes_t *h, kg_buf_t *out, kg_diag_t *d) {
  out->len = 0;
  d->msg[0] = '\0';
  if (kg_expand("t.hip", tmpl, h, partial, NULL, out, d))
    return NULL;
  return kg_buf_cstr(out);
}

int main(void) {
  kg_buf_t out;
  kg_buf_init(&out);
  kg_diag_t d;
  kg_holes_t *h = kg_holes_new();
  kg_holes_set(h, "N", "%d", 256);
  kg_holes_set(h, "T", "kg_f16");
  kg_holes_set(h, "EMPTY", "%s", "");
  for (int i = 0; i < 3; i++) {
    kg_holes_t *it = kg_holes_add_item(h, "IN");
    kg_holes_set(it, "I", "%d", i);
    kg_holes_set(it, "T", i == 1 ? "float" : "kg_bf16");
  }

  const char *s = run("a {{N}} b {{T}}", h, &out, &d);
  CHECK(s && strcmp(s, "a 256 b kg_f16") == 0);
  s = run("{{#if N}}yes{{/if}}{{#if EMPTY}}no{{/if}}{{#if MISSING}}no{{/if}}.", h, &out,
          &d);
  CHECK(s && strcmp(s, "yes.") == 0);
  /* items shadow outer names; outer names stay visible */
  s = run("{{#each IN}}[{{I}}:{{T}}:{{N}}]{{/each}}", h, &out, &d);
  CHECK(s && strcmp(s, "[0:kg_bf16:256][1:float:256][2:kg_bf16:256]") == 0);
  s = run("{{#each IN}}{{#if I}}+{{/if}}{{I}}{{/each}}", h, &out, &d);
  CHECK(s && strcmp(s, "+0+1+2") == 0); /* "0" is a non-empty value */
  s = run("{{#if N}}{{#if T}}x{{/if}}{{/if}}y", h, &out, &d);
  CHECK(s && strcmp(s, "xy") == 0);
  s = run("no holes at all\n{ { } }", h, &out, &d);
  CHECK(s && strcmp(s, "no holes at all\n{ { } }") == 0);

  /* errors name the template file and line */
  CHECK(run("line1\nline2 {{NOPE}}", h, &out, &d) == NULL);
  CHECK(strcmp(d.msg, "t.hip:2: error: hole {{NOPE}} has no value") == 0);
  CHECK(run("x\n\n{{N", h, &out, &d) == NULL);
  CHECK(strcmp(d.msg, "t.hip:3: error: unterminated {{") == 0);
  CHECK(run("{{#if N}}open", h, &out, &d) == NULL);
  CHECK(strstr(d.msg, "has no {{/if}}") != NULL);
  CHECK(run("{{#each NOLIST}}x{{/each}}", h, &out, &d) == NULL);
  CHECK(strstr(d.msg, "list {{#each NOLIST}} has no value") != NULL);
  CHECK(run("{{a b}}", h, &out, &d) == NULL);
  CHECK(strstr(d.msg, "bad hole") != NULL);

  /* else */
  s = run("{{#if N}}a{{else}}b{{/if}}{{#if EMPTY}}c{{else}}d{{/if}}", h, &out, &d);
  CHECK(s && strcmp(s, "ad") == 0);
  s = run(
      "{{#if EMPTY}}{{#if N}}x{{else}}y{{/if}}{{else}}{{#if N}}z{{else}}w{{/if}}{{/if}}",
      h, &out, &d);
  CHECK(s && strcmp(s, "z") == 0); /* the inner else belongs to the inner if */
  s = run("{{#each IN}}{{#if EMPTY}}-{{else}}{{T}};{{/if}}{{/each}}", h, &out, &d);
  CHECK(s && strcmp(s, "kg_bf16;float;kg_bf16;") == 0);
  CHECK(run("{{#if N}}a{{else}}b{{else}}c{{/if}}", h, &out, &d) == NULL);
  CHECK(strstr(d.msg, "t.hip:1: error:") && strstr(d.msg, "two {{else}}"));
  CHECK(run("a\n{{else}}", h, &out, &d) == NULL);
  CHECK(strcmp(d.msg, "t.hip:2: error: {{else}} without its section") == 0);

  s = run("a{{! a comment: N, T }}b", h, &out, &d);
  CHECK(s && strcmp(s, "ab") == 0);

  /* partials see the caller's holes; errors name the partial's file */
  s = run("[{{> p}}]{{#each IN}}{{> p}}{{/each}}", h, &out, &d);
  CHECK(s && strcmp(s, "[<256>]<256><256><256>") == 0);
  CHECK(run("x\n{{> two}}", h, &out, &d) == NULL);
  CHECK(strcmp(d.msg, "part_two.hip:2: error: hole {{ZZ}} has no value") == 0);
  CHECK(run("{{> nope}}", h, &out, &d) == NULL);
  CHECK(strcmp(d.msg, "t.hip:1: error: no partial {{> nope}}") == 0);
  CHECK(run("{{> deep}}", h, &out, &d) == NULL);
  CHECK(strstr(d.msg, "nested more than 8 deep") != NULL);

  /* the names a template holds, every branch, with their first line */
  kg_hole_refs_t refs = {0};
  CHECK(kg_hole_refs("r.hip",
                     "{{A}}\n{{#if B}}{{C}}{{else}}{{D}}{{/if}}\n"
                     "{{#each L}}{{I}}{{A}}{{/each}}{{> p}}{{A}}",
                     partial, NULL, &refs, &d) == 0);
  const char *want[][3] = {{"A", "", "1"},  {"B", "", "2"},   {"C", "", "2"},
                           {"D", "", "2"},  {"L", "[]", "3"}, {"I", "L", "3"},
                           {"A", "L", "3"}, {"N", "", "1"}};
  CHECK_EQ(refs.count, 8);
  for (int i = 0; i < refs.count && i < 8; i++) {
    CHECK(strcmp(refs.refs[i].name, want[i][0]) == 0);
    CHECK(strcmp(refs.refs[i].list, want[i][1]) == 0);
    CHECK_EQ(refs.refs[i].line, atoi(want[i][2]));
  }
  CHECK(refs.count == 8 && strcmp(refs.refs[7].file, "part_p.hip") == 0);
  kg_hole_refs_free(&refs);
  CHECK(kg_hole_refs("r.hip", "ok\n{{#if X}}", partial, NULL, &refs, &d) != 0);
  CHECK(strstr(d.msg, "r.hip:2: error:") != NULL);
  kg_hole_refs_free(&refs);

  /* a later set replaces the value */
  kg_holes_set(h, "N", "%d", 64);
  s = run("{{N}}", h, &out, &d);
  CHECK(s && strcmp(s, "64") == 0);

  kg_holes_free(h);
  kg_buf_free(&out);
  return TEST_DONE();
}
