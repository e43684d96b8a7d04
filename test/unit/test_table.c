/* test_table.c - the kernel table escapes every name it writes into C: a
 * string literal gets \ooo for quotes, backslashes and bytes outside
 * printable ASCII; a comment never closes early. (front.c lets only C
 * identifiers through; this is the second line.) */
#include <string.h>

#include "table.h"
#include "test.h"

int main(void) {
  kg_graph_t g;
  memset(&g, 0, sizeof g);
  g.model = "m";
  kg_sym_t sym = {"T*/ int pwned; /*\"", 8, 0, 0};
  g.syms = &sym;
  g.num_syms = 1;
  kg_tensor_t t;
  memset(&t, 0, sizeof t);
  t.name = "x\", 0}}; int pwned = 1; /*\n\\";
  t.kind = KG_TENSOR_INPUT;
  t.dtype = (kg_dtype_info_t){KGRT_DTYPE_F32, "f32", "float", 4, 0, 0};
  t.rank = 1;
  t.dims[0].sym = 0;
  t.producer = t.alias = t.output_index = -1;
  g.tensors = &t;
  g.num_tensors = 1;
  int input = 0;
  g.inputs = &input;
  g.num_inputs = 1;

  kg_buf_t h, c;
  kg_buf_init(&h);
  kg_buf_init(&c);
  kg_table_header(&g, NULL, 0, &h);
  kg_table_index(&g, NULL, 0, &c);
  const char *hs = kg_buf_cstr(&h), *cs = kg_buf_cstr(&c);
  CHECK(strstr(hs, "pwned") != NULL); /* the names are there, in comments */
  CHECK(strstr(hs, "/* dim T_/ int pwned; _*\": 1 .. 8 */") != NULL);
  CHECK(strstr(hs,
               "/* input  x\", 0}}; int pwned = 1; _*_\\: f32[T_/ int pwned; _*\"] */"));
  int opens = 0, closes = 0;
  for (const char *p = hs; *p; p++) {
    opens += p[0] == '/' && p[1] == '*';
    closes += p[0] == '*' && p[1] == '/';
  }
  CHECK_EQ(opens, closes);
  CHECK(strstr(cs, "{\"T*/ int pwned; /*\\042\", 8, 0}") != NULL);
  CHECK(strstr(cs, "{\"x\\042, 0}}; int pwned = 1; /*\\012\\134\", ") != NULL);
  CHECK(strstr(cs, "\"x\", 0}}") == NULL);
  kg_buf_free(&h);
  kg_buf_free(&c);
  return TEST_DONE();
}
