/* kn_run.c - runs the numerics model of one dtype (linked in as KN_TABLE) on
 * each device named on the command line and checks every case against its
 * float64 reference:
 *   numerics_f16 sim:gfx1100 sim:gfx942
 * Per device and size index s: a fresh model load (sim outputs start as 0xff
 * bytes, NaN), N = kn_default_sizes[s], R = KN_ROWS_RUN, every input bound
 * with fixed-seed random values, one run; then every FLAT case and every ROWS
 * instance s is compared. Prints one line per case and dtype with its worst
 * NMSE, a line per failure, and exits 1 when anything failed.
 *   numerics_f16 --agree sim:sm_90 cuda
 * checks the first device against float64 as above, then the second against
 * the first device's outputs (same inputs, same bounds; i32 exactly): the two
 * must agree on every op, dtype and size, not only both pass. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kgrt.h"
#include "kgrt_half.h"
#include "kn.h"

#include KN_HEADER

#define KN_STR2(x) #x
#define KN_STR(x) KN_STR2(x)

static const double kn_default_bound[4] = {1e-9, 1e-6, 1e-4, 0};

/* ---- deterministic inputs: splitmix64 from a seed per (instance, input, N) */
static uint64_t kn_mix(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* --agree: the first device's outputs, by (size index, output name), which
 * the second device's are compared with instead of the float64 reference. */
typedef struct kn_saved {
  int s;
  char name[80];
  int64_t n;
  double *v;
} kn_saved_t;
static kn_saved_t *kn_saved;
static int kn_num_saved, kn_cap_saved;
static int kn_agree_phase; /* 0: no --agree; 1: saving; 2: comparing */
static int kn_cur_size;

static void kn_save(const char *name, const void *host, int64_t n, int dtype);
static const kn_saved_t *kn_find_saved(const char *name);

typedef struct kn_result {
  double worst; /* worst NMSE (floats) or mismatch count (i32) */
  int failures;
  int checked;
} kn_result_t;

static int kn_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int kn_fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("FAIL ", stdout);
  vprintf(fmt, ap);
  fputc('\n', stdout);
  va_end(ap);
  return 1;
}

/* Compares output `name` (n values of `dtype` in host) with ref; 0 when ok. */
static int kn_compare(const char *what, int dtype, const void *host, const double *ref,
                      int64_t n, double bound, kn_result_t *res) {
  if (dtype == KGRT_DTYPE_I32) {
    int64_t bad = 0, first = -1;
    for (int64_t i = 0; i < n; i++)
      if (kn_load(host, i, dtype) != ref[i] && bad++ == 0)
        first = i;
    res->worst = fmax(res->worst, (double)bad);
    if (bad)
      return kn_fail("%s: %lld of %lld values differ (first at %lld: %g, want %g)", what,
                     (long long)bad, (long long)n, (long long)first,
                     kn_load(host, first, dtype), ref[first]);
    return 0;
  }
  double err = 0, norm = 0;
  for (int64_t i = 0; i < n; i++) {
    const double y = kn_load(host, i, dtype);
    if (isinf(ref[i]) && y == ref[i])
      continue; /* an infinite reference (log 0, say) must be matched exactly */
    if (!isfinite(ref[i]))
      return kn_fail("%s: the reference is not finite at %lld", what, (long long)i);
    if (!isfinite(y))
      return kn_fail("%s: value %lld is %g (reference %g)", what, (long long)i, y,
                     ref[i]);
    err += (y - ref[i]) * (y - ref[i]);
    norm += ref[i] * ref[i];
  }
  const double nmse = err / (norm > 0 ? norm : 1.0);
  res->worst = fmax(res->worst, nmse);
  if (!(nmse <= bound))
    return kn_fail("%s: nmse %.3e over the bound %.0e", what, nmse, bound);
  return 0;
}

typedef struct kn_instance {
  const kn_case_t *c;
  int fam, idx, s;
  char name[64];
  kn_dims_t dims;
  double *ref_in[KN_MAX_IN];
} kn_instance_t;

/* Binds every input of instance `it` (values from its seed) and keeps their
 * stored values in it->ref_in. */
static int kn_bind(kgrt_model_t *m, kn_instance_t *it, int dtype, kgrt_error_t *err) {
  for (int k = 0; k < it->c->num_in; k++) {
    const kn_tensor_spec_t *t = &it->c->in[k];
    const int dt = t->dtype == KN_SAME ? dtype : t->dtype;
    const int64_t n = kn_shape_numel(t->shape, &it->dims);
    void *host = malloc((size_t)n * kn_dtype_size(dt) + 1);
    it->ref_in[k] = malloc((size_t)n * sizeof(double) + 1);
    uint64_t seed = ((uint64_t)it->fam << 48) ^ ((uint64_t)it->idx << 32) ^
                    ((uint64_t)it->s << 24) ^ ((uint64_t)k << 16) ^ (uint64_t)it->dims.n;
    for (int64_t i = 0; i < n; i++) {
      const double u = (double)(kn_mix(&seed) >> 11) / 9007199254740992.0;
      double v = dt == KGRT_DTYPE_I32 ? floor(t->lo + u * (t->hi - t->lo + 1))
                                      : t->lo + u * (t->hi - t->lo);
      it->ref_in[k][i] = kn_store(host, i, dt, v);
    }
    char name[80];
    snprintf(name, sizeof name, "%s_i%d", it->name, k);
    kgrt_status_t st =
        kgrt_model_set_input(m, name, host, (size_t)n * kn_dtype_size(dt), err);
    free(host);
    if (st != KGRT_STATUS_OK)
      return kn_fail("%s: %s", name, err->message);
  }
  return 0;
}

/* Reads the outputs of `it`, runs the reference, compares. */
static int kn_check(kgrt_model_t *m, kn_instance_t *it, int dtype, const char *dev,
                    kn_result_t *res, kgrt_error_t *err) {
  const kn_case_t *c = it->c;
  double *ref_out[KN_MAX_OUT] = {0};
  int64_t n_out[KN_MAX_OUT];
  for (int k = 0; k < c->num_out; k++) {
    n_out[k] = kn_shape_numel(c->out[k].shape, &it->dims);
    ref_out[k] = malloc((size_t)n_out[k] * sizeof(double) + 1);
    for (int64_t i = 0; i < n_out[k]; i++)
      ref_out[k][i] = NAN;
  }
  c->ref(&it->dims, (const double *const *)it->ref_in, ref_out);
  int failed = 0;
  for (int k = 0; k < c->num_out; k++) {
    const int dt = c->out[k].dtype == KN_SAME ? dtype : c->out[k].dtype;
    char name[80], what[256];
    snprintf(name, sizeof name, "%s_o%d", it->name, k);
    snprintf(what, sizeof what, "%s %s %s size %lld output %d (%s)", c->name,
             kn_dtype_name(dtype), dev, (long long)kn_case_size(c, it->s), k, name);
    void *host = malloc((size_t)n_out[k] * kn_dtype_size(dt) + 1);
    const kn_saved_t *sv = kn_agree_phase == 2 ? kn_find_saved(name) : NULL;
    if (kgrt_model_get_output(m, name, host, (size_t)n_out[k] * kn_dtype_size(dt), err) !=
        KGRT_STATUS_OK)
      failed |= kn_fail("%s: %s", what, err->message);
    else if (kn_agree_phase == 2 && (sv == NULL || sv->n != n_out[k]))
      failed |= kn_fail("%s: the first device has no such output", what);
    else
      failed |= kn_compare(what, dt, host, sv ? sv->v : ref_out[k], n_out[k],
                           c->bound > 0 ? c->bound : kn_default_bound[dt], res);
    if (kn_agree_phase == 1)
      kn_save(name, host, n_out[k], dt);
    free(host);
    free(ref_out[k]);
  }
  res->checked++;
  res->failures += failed;
  return failed;
}

static void kn_save(const char *name, const void *host, int64_t n, int dtype) {
  if (kn_num_saved == kn_cap_saved) {
    kn_cap_saved = kn_cap_saved ? 2 * kn_cap_saved : 256;
    kn_saved = realloc(kn_saved, (size_t)kn_cap_saved * sizeof *kn_saved);
  }
  kn_saved_t *sv = &kn_saved[kn_num_saved++];
  sv->s = kn_cur_size;
  snprintf(sv->name, sizeof sv->name, "%s", name);
  sv->n = n;
  sv->v = malloc((size_t)n * sizeof(double) + 1);
  for (int64_t i = 0; i < n; i++)
    sv->v[i] = kn_load(host, i, dtype);
}

static const kn_saved_t *kn_find_saved(const char *name) {
  for (int i = 0; i < kn_num_saved; i++)
    if (kn_saved[i].s == kn_cur_size && strcmp(kn_saved[i].name, name) == 0)
      return &kn_saved[i];
  return NULL;
}

static int kn_run_device(const char *spec, int dtype, kn_result_t *results) {
  kgrt_error_t err;
  kgrt_device_t *dev = NULL;
  if (kgrt_device_open(spec, NULL, &dev, &err) != KGRT_STATUS_OK)
    return kn_fail("%s: %s", spec, err.message);
  int failed = 0, fatal = 0;
  int total = 0;
  for (int fam = 0; fam < kn_num_families; fam++)
    total += kn_families[fam]->num_cases;
  for (int s = 0; s < KN_SIZES && !fatal; s++) {
    kgrt_model_t *m = NULL;
    if (kgrt_model_load(dev, &KN_TABLE, &m, &err) != KGRT_STATUS_OK) {
      failed = fatal = kn_fail("%s: load: %s", spec, err.message);
      break;
    }
    const kn_dims_t flat = {kn_default_sizes[s], KN_ROWS_RUN, 0, dtype};
    for (uint32_t i = 0; i < KN_TABLE.num_syms; i++) {
      const int64_t v = KN_TABLE.syms[i].name[0] == 'N' ? flat.n : flat.r;
      if (kgrt_model_set_dim(m, KN_TABLE.syms[i].name, v, &err) != KGRT_STATUS_OK)
        fatal = kn_fail("%s: set_dim: %s", spec, err.message);
    }
    /* every instance in the model, in emission order */
    kn_cur_size = s;
    kn_instance_t *its = calloc((size_t)total * KN_SIZES, sizeof *its);
    int num = 0;
    for (int fam = 0; fam < kn_num_families; fam++)
      for (int i = 0; i < kn_families[fam]->num_cases; i++) {
        const kn_case_t *c = &kn_families[fam]->cases[i];
        if (!(c->dtypes & (1u << dtype)))
          continue;
        for (int is = 0; is < (c->layout == KN_ROWS ? KN_SIZES : 1); is++) {
          kn_instance_t *it = &its[num++];
          it->c = c, it->fam = fam, it->idx = i, it->s = c->layout == KN_ROWS ? is : s;
          kn_instance_name(it->name, sizeof it->name, fam, i, c, is);
          it->dims = flat;
          if (c->layout == KN_ROWS) {
            it->dims.c = kn_case_size(c, is);
            it->dims.n = it->dims.r * it->dims.c;
          } else {
            it->dims.c = it->dims.n;
          }
          fatal |= kn_bind(m, it, dtype, &err);
        }
      }
    if (!fatal && kgrt_model_run(m, &err) != KGRT_STATUS_OK)
      fatal = kn_fail("%s: run: %s", spec, err.message);
    int rc = 0;
    for (int j = 0; j < num && !fatal; j++) {
      kn_instance_t *it = &its[j];
      if (it->s != s)
        continue;
      int ci = 0;
      for (int f = 0; f < it->fam; f++)
        ci += kn_families[f]->num_cases;
      rc |= kn_check(m, it, dtype, spec, &results[ci + it->idx], &err);
    }
    failed |= rc | fatal;
    for (int j = 0; j < num; j++)
      for (int k = 0; k < KN_MAX_IN; k++)
        free(its[j].ref_in[k]);
    free(its);
    kgrt_model_unload(m);
  }
  kgrt_device_close(dev);
  return failed;
}

int main(int argc, char **argv) {
  const int dtype = kn_dtype_parse(KN_STR(KN_DTYPE));
  if (argc < 2) {
    fprintf(stderr, "usage: %s DEVICE...   (e.g. sim:gfx1100 sim:gfx942)\n", argv[0]);
    return 2;
  }
  int total = 0;
  for (int fam = 0; fam < kn_num_families; fam++)
    total += kn_families[fam]->num_cases;
  int failed = 0, first = 1;
  if (strcmp(argv[1], "--agree") == 0) {
    if (argc != 4) {
      fprintf(stderr, "usage: %s --agree DEVICE_A DEVICE_B\n", argv[0]);
      return 2;
    }
    first = 2;
  }
  for (int a = first; a < argc; a++) {
    kn_result_t *res = calloc((size_t)total, sizeof *res);
    if (first == 2)
      kn_agree_phase = a == 2 ? 1 : 2;
    if (kn_agree_phase == 2)
      printf("-- %s against %s's outputs\n", argv[a], argv[2]);
    failed |= kn_run_device(argv[a], dtype, res);
    int ci = 0;
    for (int fam = 0; fam < kn_num_families; fam++)
      for (int i = 0; i < kn_families[fam]->num_cases; i++, ci++) {
        const kn_case_t *c = &kn_families[fam]->cases[i];
        if (!(c->dtypes & (1u << dtype)))
          continue;
        printf("%-4s %-10s %-22s %-5s %d sizes  worst %s %.3e\n",
               res[ci].failures || res[ci].checked < KN_SIZES ? "FAIL" : "ok",
               kn_families[fam]->name, c->name, kn_dtype_name(dtype), res[ci].checked,
               c->out[0].dtype == KGRT_DTYPE_I32 ? "mismatches" : "nmse", res[ci].worst);
        failed |= res[ci].failures != 0 || res[ci].checked < KN_SIZES;
      }
    free(res);
  }
  for (int i = 0; i < kn_num_saved; i++)
    free(kn_saved[i].v);
  free(kn_saved);
  printf("numerics %s: %s\n", kn_dtype_name(dtype),
         failed       ? "FAILED"
         : first == 2 ? "all cases pass, and the devices agree"
                      : "all cases pass");
  return failed;
}
