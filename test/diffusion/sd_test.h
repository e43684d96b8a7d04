/* sd_test.h - what the diffusion models' tests share: random weights for
 * every weight of a table (stored in its dtype, kept as stored in double),
 * lookup by name, the file names a diffusers safetensors file gives them, the
 * file itself (weights_writer), and NMSE. Include once per test program,
 * after test.h. */
#ifndef KG_SD_TEST_H
#define KG_SD_TEST_H

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kgrt.h"
#include "kgrt_half.h"
#include "kgrt_weights.h"
#include "weights_writer.h"

enum { SD_MAX_W = 256 };

typedef struct sd_weight {
  const kgrt_tensor_info_t *info;
  size_t n;
  double *value;         /* as stored */
  unsigned char *stored; /* the table's dtype */
  size_t bytes;
} sd_weight_t;

static sd_weight_t sd_weights[SD_MAX_W];
static int sd_num_weights;
static uint64_t sd_rng = 0x9e3779b97f4a7c15ull;

static double sd_uniform(double lo, double hi) {
  sd_rng ^= sd_rng << 13, sd_rng ^= sd_rng >> 7, sd_rng ^= sd_rng << 17;
  return lo + (hi - lo) * (double)(sd_rng >> 11) / 9007199254740992.0;
}

static size_t sd_dtype_size(kgrt_dtype_t dt) {
  return dt == KGRT_DTYPE_F32 ? 4 : 2;
}

/* v rounded to the dtype, its bytes at p. */
static double sd_store(kgrt_dtype_t dt, double v, unsigned char *p) {
  if (dt == KGRT_DTYPE_F32) {
    float f = (float)v;
    memcpy(p, &f, 4);
    return f;
  }
  uint16_t h =
      dt == KGRT_DTYPE_F16 ? kgrt_f32_to_f16((float)v) : kgrt_f32_to_bf16((float)v);
  memcpy(p, &h, 2);
  return dt == KGRT_DTYPE_F16 ? kgrt_f16_to_f32(h) : kgrt_bf16_to_f32(h);
}

static double sd_load(kgrt_dtype_t dt, const unsigned char *p) {
  if (dt == KGRT_DTYPE_F32) {
    float f;
    memcpy(&f, p, 4);
    return f;
  }
  uint16_t h;
  memcpy(&h, p, 2);
  return dt == KGRT_DTYPE_F16 ? kgrt_f16_to_f32(h) : kgrt_bf16_to_f32(h);
}

/* Every weight the table lists, random in a range its role suits: norm
 * scales about 1, biases small, embeddings in -1 .. 1, matrices and
 * convolutions of unit gain (fan-in: the dims after the first). */
static int sd_make_weights(const kgrt_model_table_t *t) {
  if (t->num_weights > SD_MAX_W)
    return -1;
  for (uint32_t i = 0; i < t->num_weights; ++i) {
    const kgrt_tensor_info_t *w = &t->weights[i];
    sd_weight_t *c = &sd_weights[sd_num_weights++];
    c->info = w;
    c->n = 1;
    for (uint32_t d = 0; d < w->rank; ++d)
      c->n *= (size_t)w->dims[d].value;
    c->bytes = c->n * sd_dtype_size(w->dtype);
    c->value = malloc(c->n * sizeof *c->value);
    c->stored = malloc(c->bytes);
    if (c->value == NULL || c->stored == NULL)
      return -1;
    const int norm = strstr(w->name, "norm") != NULL;
    const int bias = strstr(w->name, "_bias") != NULL;
    const int embd = strstr(w->name, "embedding") != NULL;
    const double fan_in = w->rank > 1 ? (double)(c->n / (size_t)w->dims[0].value) : 1;
    const double a = sqrt(3.0 / fan_in);
    for (size_t j = 0; j < c->n; ++j) {
      double v = embd   ? sd_uniform(-1, 1)
                 : bias ? sd_uniform(-0.2, 0.2)
                 : norm ? 1 + sd_uniform(-0.2, 0.2)
                        : sd_uniform(-a, a);
      c->value[j] = sd_store(w->dtype, v, c->stored + j * sd_dtype_size(w->dtype));
    }
  }
  return 0;
}

static void sd_free_weights(void) {
  for (int i = 0; i < sd_num_weights; ++i) {
    free(sd_weights[i].value);
    free(sd_weights[i].stored);
  }
  sd_num_weights = 0;
}

/* The values of the weight named by the format; exits when there is none. */
static __attribute__((format(printf, 1, 2))) const double *sd_wt(const char *fmt, ...) {
  char name[200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(name, sizeof name, fmt, ap);
  va_end(ap);
  for (int i = 0; i < sd_num_weights; ++i)
    if (strcmp(sd_weights[i].info->name, name) == 0)
      return sd_weights[i].value;
  fprintf(stderr, "the table has no weight %s\n", name);
  exit(1);
}

/* The file's name of a table weight: '_' read as '.' but inside `parts`,
 * the names that hold one (self_attn, up_blocks, ...). */
static void sd_file_name(const char *table, const char *const *parts, size_t num_parts,
                         char *out, size_t size) {
  size_t o = 0;
  for (const char *p = table; *p != '\0';) {
    size_t n = 0;
    for (size_t i = 0; i < num_parts && n == 0; ++i) {
      const size_t len = strlen(parts[i]);
      if (strncmp(p, parts[i], len) == 0 && (p[len] == '_' || p[len] == '\0'))
        n = len;
    }
    if (n == 0)
      n = strcspn(p, "_");
    if (o + n + 2 > size)
      break;
    memcpy(out + o, p, n);
    o += n;
    p += n;
    if (*p == '_') {
      out[o++] = '.';
      p++;
    }
  }
  out[o] = '\0';
}

/* The weights as one safetensors file in memory under their file names
 * (*out: free with ww_free); 0 on success. */
static int sd_write_file(const char *const *parts, size_t num_parts, ww_buf_t *out) {
  static ww_st_tensor_t st[SD_MAX_W];
  static char names[SD_MAX_W][200];
  for (int i = 0; i < sd_num_weights; ++i) {
    const kgrt_tensor_info_t *w = sd_weights[i].info;
    sd_file_name(w->name, parts, num_parts, names[i], sizeof names[i]);
    st[i] = (ww_st_tensor_t){.name = names[i],
                             .dtype = w->dtype == KGRT_DTYPE_F32   ? "F32"
                                      : w->dtype == KGRT_DTYPE_F16 ? "F16"
                                                                   : "BF16",
                             .ndim = w->rank,
                             .data = sd_weights[i].stored,
                             .bytes = sd_weights[i].bytes};
    for (uint32_t d = 0; d < w->rank; ++d)
      st[i].shape[d] = w->dims[d].value;
  }
  memset(out, 0, sizeof *out);
  return ww_safetensors(out, st, sd_num_weights, NULL, 0);
}

/* Binds the weights: by name (file 0), or from the safetensors file of
 * their file names through kgrt_model_bind_weights, every file tensor used. */
static kgrt_status_t sd_bind(kgrt_model_t *m, int file, const char *const *parts,
                             size_t num_parts, kgrt_error_t *err) {
  if (!file) {
    for (int i = 0; i < sd_num_weights; ++i) {
      kgrt_status_t st = kgrt_model_set_weight(
          m, sd_weights[i].info->name, sd_weights[i].stored, sd_weights[i].bytes, err);
      if (st != KGRT_STATUS_OK)
        return st;
    }
    return KGRT_STATUS_OK;
  }
  ww_buf_t buf;
  kgrt_weights_t *w = NULL;
  if (sd_write_file(parts, num_parts, &buf) != 0) {
    ww_free(&buf);
    err->status = KGRT_STATUS_OUT_OF_MEMORY;
    snprintf(err->message, sizeof err->message, "cannot write the weights file");
    return err->status;
  }
  kgrt_status_t st = kgrt_weights_open_memory(
      buf.p, buf.len, KGRT_WEIGHTS_FORMAT_SAFETENSORS, "weights", NULL, &w, err);
  if (st == KGRT_STATUS_OK)
    st = kgrt_model_bind_weights(m, w, KGRT_BIND_REFUSE_UNUSED, err);
  kgrt_weights_close(w);
  ww_free(&buf);
  return st;
}

/* sum (got - ref)^2 / sum ref^2 over n values of dtype dt; NaN stays NaN. */
static double sd_nmse(kgrt_dtype_t dt, const unsigned char *got, const double *ref,
                      size_t n) {
  double num = 0, den = 0;
  for (size_t i = 0; i < n; ++i) {
    const double y = sd_load(dt, got + i * sd_dtype_size(dt));
    num += (y - ref[i]) * (y - ref[i]);
    den += ref[i] * ref[i];
  }
  return num / den;
}

#endif /* KG_SD_TEST_H */
