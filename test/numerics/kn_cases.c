/* kn_cases.c - the families of the numerics harness and the helpers kn_emit
 * and kn_run share. */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "kgrt_half.h"
#include "kn.h"

extern const kn_family_t kn_family_elementwise, kn_family_reduce, kn_family_norm,
    kn_family_softmax, kn_family_rope, kn_family_kv, kn_family_index, kn_family_sort,
    kn_family_sample, kn_family_sketch, kn_family_resample, kn_family_transpose,
    kn_family_concat, kn_family_matmul;

const kn_family_t *const kn_families[] = {
    &kn_family_elementwise, &kn_family_reduce, &kn_family_norm,     &kn_family_softmax,
    &kn_family_rope,        &kn_family_kv,     &kn_family_index,    &kn_family_sort,
    &kn_family_sample,      &kn_family_sketch, &kn_family_resample, &kn_family_transpose,
    &kn_family_concat,      &kn_family_matmul,
};
const int kn_num_families = (int)(sizeof kn_families / sizeof kn_families[0]);

const int64_t kn_default_sizes[KN_SIZES] = {1, 7, 64, 4097, 1000};

static const char *const kn_dtype_names[] = {"f32", "f16", "bf16", "i32"};

const char *kn_dtype_name(int dtype) {
  return dtype >= 0 && dtype < 4 ? kn_dtype_names[dtype] : "?";
}

int kn_dtype_parse(const char *name) {
  for (int i = 0; i < 4; i++)
    if (strcmp(name, kn_dtype_names[i]) == 0)
      return i;
  return -1;
}

int64_t kn_case_size(const kn_case_t *c, int s) {
  return c->layout == KN_ROWS && c->sizes[s] != 0 ? c->sizes[s] : kn_default_sizes[s];
}

int64_t kn_shape_numel(const char *shape, const kn_dims_t *d) {
  int64_t n = 1;
  const char *p = shape;
  while (*p) {
    if (*p == 'N' || *p == 'R' || *p == 'C') {
      n *= *p == 'N' ? d->n : *p == 'R' ? d->r : d->c;
      p++;
    } else if (*p >= '0' && *p <= '9') {
      int64_t v = 0;
      while (*p >= '0' && *p <= '9')
        v = v * 10 + (*p++ - '0');
      n *= v;
    } else {
      return -1;
    }
    if (*p == ',')
      p++;
    else if (*p)
      return -1;
  }
  return n;
}

void kn_instance_name(char *buf, size_t cap, int family, int index, const kn_case_t *c,
                      int s) {
  if (c->layout == KN_ROWS)
    snprintf(buf, cap, "c%d_%d_s%d", family, index, s);
  else
    snprintf(buf, cap, "c%d_%d", family, index);
}

size_t kn_dtype_size(int dtype) {
  return dtype == KGRT_DTYPE_F16 || dtype == KGRT_DTYPE_BF16 ? 2 : 4;
}

double kn_uniform(uint64_t *state, double lo, double hi) {
  *state ^= *state << 13;
  *state ^= *state >> 7;
  *state ^= *state << 17;
  return lo + (hi - lo) * (double)(*state >> 11) * 0x1p-53;
}

kn_host_t kn_host_random(int dtype, int64_t n, double lo, double hi, uint64_t *state) {
  kn_host_t h = {malloc((size_t)n * kn_dtype_size(dtype)),
                 malloc((size_t)n * sizeof(double)), n};
  for (int64_t i = 0; i < n; i++)
    h.v[i] = kn_store(h.raw, i, dtype, kn_uniform(state, lo, hi));
  return h;
}

void kn_host_free(kn_host_t *h) {
  free(h->raw);
  free(h->v);
}

/* Stores v in `dtype` at host[i]; returns the value as stored. */
double kn_store(void *host, int64_t i, int dtype, double v) {
  switch (dtype) {
  case KGRT_DTYPE_F32:
    ((float *)host)[i] = (float)v;
    return ((float *)host)[i];
  case KGRT_DTYPE_F16:
    ((uint16_t *)host)[i] = kgrt_f32_to_f16((float)v);
    return kgrt_f16_to_f32(((uint16_t *)host)[i]);
  case KGRT_DTYPE_BF16:
    ((uint16_t *)host)[i] = kgrt_f32_to_bf16((float)v);
    return kgrt_bf16_to_f32(((uint16_t *)host)[i]);
  default:
    ((int32_t *)host)[i] = (int32_t)v;
    return ((int32_t *)host)[i];
  }
}

double kn_load(const void *host, int64_t i, int dtype) {
  switch (dtype) {
  case KGRT_DTYPE_F32:
    return ((const float *)host)[i];
  case KGRT_DTYPE_F16:
    return kgrt_f16_to_f32(((const uint16_t *)host)[i]);
  case KGRT_DTYPE_BF16:
    return kgrt_bf16_to_f32(((const uint16_t *)host)[i]);
  default:
    return ((const int32_t *)host)[i];
  }
}
