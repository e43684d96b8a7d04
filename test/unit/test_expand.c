/* test_expand.c - the template expander: holes, #if, #each (nested, with
 * lookups falling back to the outer scope) and its errors. */
#include <stdio.h>
#include <string.h>

#include "expand.h"
#include "test.h"

static const char *run(const char *tmpl, kg_holes_t *h, kg_buf_t *out, kg_diag_t *d) {
  out->len = 0;
  d->msg[0] = '\0';
  if (kg_expand("t.hip", tmpl, h, out, d))
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

  /* a later set replaces the value */
  kg_holes_set(h, "N", "%d", 64);
  s = run("{{N}}", h, &out, &d);
  CHECK(s && strcmp(s, "64") == 0);

  kg_holes_free(h);
  kg_buf_free(&out);
  return TEST_DONE();
}
