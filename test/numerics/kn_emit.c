/* kn_emit.c - writes the numerics model for one dtype:
 *   kn_emit DTYPE OUT.lua
 * Every case that supports DTYPE, at every size (ROWS cases: one instance per
 * C), with inputs "<instance>_i<k>" and outputs "<instance>_o<k>" (kn.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kn.h"

/* {N} / {R, 7} from "N" / "R,C" with C = c. */
static void put_shape(FILE *f, const char *shape, int64_t c) {
  fputc('{', f);
  for (const char *p = shape; *p; p++) {
    if (*p == ',')
      fputs(", ", f);
    else if (*p == 'C')
      fprintf(f, "%lld", (long long)c);
    else
      fputc(*p, f);
  }
  fputc('}', f);
}

static const char *dtype_of(const kn_tensor_spec_t *t, int dtype) {
  return kn_dtype_name(t->dtype == KN_SAME ? dtype : t->dtype);
}

static void put_instance(FILE *f, int fam, int idx, const kn_case_t *c, int s,
                         int dtype) {
  char inst[64];
  kn_instance_name(inst, sizeof inst, fam, idx, c, s);
  int64_t size = kn_case_size(c, s);
  fprintf(f, "do -- %s/%s", kn_families[fam]->name, c->name);
  if (c->layout == KN_ROWS)
    fprintf(f, ", C = %lld", (long long)size);
  fputc('\n', f);
  for (int k = 0; k < c->num_in; k++) {
    fprintf(f, "  local a%d = input(\"%s_i%d\", %s, ", k, inst, k,
            dtype_of(&c->in[k], dtype));
    put_shape(f, c->in[k].shape, size);
    fputs(")\n", f);
  }
  fputs("  local ", f);
  for (int k = 0; k < c->num_out; k++)
    fprintf(f, "%sr%d", k ? ", " : "", k);
  fputs(" = ", f);
  for (const char *p = c->call; *p; p++) {
    if (*p == '$' && p[1] >= '0' && p[1] <= '9')
      fprintf(f, "a%c", *++p);
    else if (*p == '$' && p[1] == 'T')
      fputs(kn_dtype_name(dtype), f), p++;
    else
      fputc(*p, f);
  }
  fputc('\n', f);
  for (int k = 0; k < c->num_out; k++)
    fprintf(f, "  output(\"%s_o%d\", r%d)\n", inst, k, k);
  fputs("end\n", f);
}

int main(int argc, char **argv) {
  if (argc != 3 || kn_dtype_parse(argv[1]) < 0) {
    fprintf(stderr, "usage: kn_emit f32|f16|bf16|i32 OUT.lua\n");
    return 1;
  }
  const int dtype = kn_dtype_parse(argv[1]);
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp", argv[2]);
  FILE *f = fopen(tmp, "w");
  if (!f) {
    perror(tmp);
    return 1;
  }
  int flat = 0, rows = 0;
  int64_t nmax = 0;
  for (int s = 0; s < KN_SIZES; s++)
    nmax = kn_default_sizes[s] > nmax ? kn_default_sizes[s] : nmax;
  for (int fam = 0; fam < kn_num_families; fam++)
    for (int i = 0; i < kn_families[fam]->num_cases; i++) {
      const kn_case_t *c = &kn_families[fam]->cases[i];
      if (c->dtypes & (1u << dtype)) {
        flat |= c->layout == KN_FLAT;
        rows |= c->layout == KN_ROWS;
      }
    }
  fprintf(f, "-- Written by kn_emit (test/numerics): every numerics case for %s.\n",
          argv[1]);
  if (flat)
    fprintf(f, "local N = sym(\"N\", %lld)\n", (long long)nmax);
  if (rows)
    fprintf(f, "local R = sym(\"R\", %d)\n", KN_ROWS_RUN);
  for (int fam = 0; fam < kn_num_families; fam++)
    for (int i = 0; i < kn_families[fam]->num_cases; i++) {
      const kn_case_t *c = &kn_families[fam]->cases[i];
      if (!(c->dtypes & (1u << dtype)))
        continue;
      for (int s = 0; s < (c->layout == KN_ROWS ? KN_SIZES : 1); s++)
        put_instance(f, fam, i, c, s, dtype);
    }
  if (fclose(f) != 0 || rename(tmp, argv[2]) != 0) {
    perror(argv[2]);
    remove(tmp);
    return 1;
  }
  return 0;
}
