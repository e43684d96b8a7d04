/* sd_test.h - what the diffusion models' tests share: random weights for
 * every weight of a table (stored in its dtype, kept as stored in double),
 * lookup by name, the file names a diffusers safetensors file gives them, the
 * file itself (weights_writer), NMSE and its check, and the float64
 * references of the layers. Include once per test program (it includes
 * test.h). */
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
#include "test.h"
#include "weights_writer.h"

enum { SD_MAX_W = 1024 };

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

static inline double sd_uniform(double lo, double hi) {
  sd_rng ^= sd_rng << 13, sd_rng ^= sd_rng >> 7, sd_rng ^= sd_rng << 17;
  return lo + (hi - lo) * (double)(sd_rng >> 11) / 9007199254740992.0;
}

static inline size_t sd_dtype_size(kgrt_dtype_t dt) {
  return dt == KGRT_DTYPE_F32 ? 4 : 2;
}

/* v rounded to the dtype, its bytes at p. */
static inline double sd_store(kgrt_dtype_t dt, double v, unsigned char *p) {
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

static inline double sd_load(kgrt_dtype_t dt, const unsigned char *p) {
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
static inline int sd_make_weights(const kgrt_model_table_t *t) {
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

static inline void sd_free_weights(void) {
  for (int i = 0; i < sd_num_weights; ++i) {
    free(sd_weights[i].value);
    free(sd_weights[i].stored);
  }
  sd_num_weights = 0;
}

/* The values of the weight named by the format; exits when there is none. */
static inline __attribute__((format(printf, 1, 2))) const double *sd_wt(const char *fmt,
                                                                        ...) {
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

/* The names inside diffusers' weight names that hold a '_' (CLIP's, the
 * UNet's and the VAE's): sd_file_name keeps those. */
static const char *const sd_parts[] = {"text_model",
                                       "token_embedding",
                                       "position_embedding",
                                       "final_layer_norm",
                                       "layer_norm1",
                                       "layer_norm2",
                                       "self_attn",
                                       "q_proj",
                                       "k_proj",
                                       "v_proj",
                                       "out_proj",
                                       "post_quant_conv",
                                       "conv_in",
                                       "mid_block",
                                       "up_blocks",
                                       "down_blocks",
                                       "conv_shortcut",
                                       "group_norm",
                                       "to_q",
                                       "to_k",
                                       "to_v",
                                       "to_out",
                                       "conv_norm_out",
                                       "conv_out",
                                       "time_embedding",
                                       "linear_1",
                                       "linear_2",
                                       "time_emb_proj",
                                       "proj_in",
                                       "proj_out",
                                       "transformer_blocks"};
enum { SD_NUM_PARTS = (int)(sizeof sd_parts / sizeof sd_parts[0]) };

/* The file's name of a table weight: '_' read as '.' but inside `parts`,
 * the names that hold one (self_attn, up_blocks, ...). */
static inline void sd_file_name(const char *table, const char *const *parts,
                                size_t num_parts, char *out, size_t size) {
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
static inline int sd_write_file(const char *const *parts, size_t num_parts,
                                ww_buf_t *out) {
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
static inline kgrt_status_t sd_bind(kgrt_model_t *m, int file, const char *const *parts,
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
static inline double sd_nmse(kgrt_dtype_t dt, const unsigned char *got, const double *ref,
                             size_t n) {
  double num = 0, den = 0;
  for (size_t i = 0; i < n; ++i) {
    const double y = sd_load(dt, got + i * sd_dtype_size(dt));
    num += (y - ref[i]) * (y - ref[i]);
    den += ref[i] * ref[i];
  }
  return num / den;
}

/* A failed call fails the check and goes to `done` (spec and err in scope). */
#define SD_OK(call)                                                                      \
  do {                                                                                   \
    if ((call) != KGRT_STATUS_OK) {                                                      \
      TEST_FAIL_("%s: %s: %s", spec, #call, err.message);                                \
      goto done;                                                                         \
    }                                                                                    \
  } while (0)

/* One check: the NMSE within its bound (a NaN fails); said either way. */
static inline void sd_check(const char *what, double nmse, double bound) {
  test_checks++;
  if (!(nmse <= bound))
    TEST_FAIL_("%s: NMSE %.3g over %.0e", what, nmse, bound);
  printf("%s: NMSE %.3g (bound %.0e)\n", what, nmse, bound);
}

/* An input of a run: its name and bytes. */
typedef struct sd_input {
  const char *name;
  const void *raw;
  size_t bytes;
} sd_input_t;

/* The table loaded afresh on spec (outputs poisoned), its weights bound
 * (by name, or from the file), sym `dim` set to `value` (dim NULL: none),
 * the inputs set, one run; output `out` (n values) checked against ref. */
static inline void sd_run(const char *spec, const kgrt_model_table_t *t, int file,
                          const char *dim, int64_t value, const sd_input_t *ins,
                          int num_ins, const char *out, const double *ref, size_t n,
                          double bound, const char *what) {
  const kgrt_tensor_info_t *info = NULL;
  for (uint32_t i = 0; i < t->num_outputs; ++i)
    if (strcmp(t->outputs[i].name, out) == 0)
      info = &t->outputs[i];
  const size_t es = info != NULL ? sd_dtype_size(info->dtype) : 4;
  unsigned char *got = malloc(n * es);
  kgrt_error_t err;
  kgrt_device_t *dev = NULL;
  kgrt_model_t *m = NULL;
  if (info == NULL || got == NULL) {
    TEST_FAIL_("%s: no output %s, or no memory", spec, out);
    goto done;
  }
  SD_OK(kgrt_device_open(spec, NULL, &dev, &err));
  SD_OK(kgrt_model_load(dev, t, &m, &err));
  SD_OK(sd_bind(m, file, sd_parts, SD_NUM_PARTS, &err));
  if (dim != NULL)
    SD_OK(kgrt_model_set_dim(m, dim, value, &err));
  for (int i = 0; i < num_ins; ++i)
    SD_OK(kgrt_model_set_input(m, ins[i].name, ins[i].raw, ins[i].bytes, &err));
  SD_OK(kgrt_model_run(m, &err));
  SD_OK(kgrt_model_get_output(m, out, got, n * es, &err));
  sd_check(what, sd_nmse(info->dtype, got, ref, n), bound);
done:
  free(got);
  kgrt_model_unload(m);
  kgrt_device_close(dev);
}

/* ---- float64 references of the layers --------------------------------- */

static inline double *sd_alloc(size_t n) {
  double *p = calloc(n, sizeof *p);
  if (p == NULL) {
    fprintf(stderr, "out of host memory\n");
    exit(1);
  }
  return p;
}

/* y [cout, oh, ow] = x [cin, h, w] convolved k x k at stride s with padding
 * k / 2 by wt [cout, cin, k, k], plus b[co]. */
static inline void sd_conv(const double *x, int cin, int h, int w, const double *wt,
                           const double *b, int cout, int k, int s, double *y) {
  const int p = k / 2, oh = (h + 2 * p - k) / s + 1, ow = (w + 2 * p - k) / s + 1;
  for (int co = 0; co < cout; ++co)
    for (int oy = 0; oy < oh; ++oy)
      for (int ox = 0; ox < ow; ++ox) {
        double acc = b[co];
        for (int ci = 0; ci < cin; ++ci)
          for (int ky = 0; ky < k; ++ky)
            for (int kx = 0; kx < k; ++kx) {
              const int iy = oy * s + ky - p, ix = ox * s + kx - p;
              if (iy >= 0 && iy < h && ix >= 0 && ix < w)
                acc += x[((size_t)ci * h + iy) * w + ix] *
                       wt[((co * cin + ci) * k + ky) * k + kx];
            }
        y[((size_t)co * oh + oy) * ow + ox] = acc;
      }
}

/* y = GroupNorm of x [c, n] (groups of c / groups channels), then SiLU
 * where `act`. */
static inline void sd_group_norm(const double *x, int c, int n, int groups, double eps,
                                 const double *wt, const double *b, int act, double *y) {
  const int cg = c / groups;
  for (int g = 0; g < groups; ++g) {
    const double *xg = x + (size_t)g * cg * n;
    double mean = 0, var = 0;
    for (int i = 0; i < cg * n; ++i)
      mean += xg[i];
    mean /= cg * n;
    for (int i = 0; i < cg * n; ++i)
      var += (xg[i] - mean) * (xg[i] - mean);
    var /= cg * n;
    const double r = 1 / sqrt(var + eps);
    for (int ch = g * cg; ch < (g + 1) * cg; ++ch)
      for (int i = 0; i < n; ++i) {
        const double v = (x[(size_t)ch * n + i] - mean) * r * wt[ch] + b[ch];
        y[(size_t)ch * n + i] = act ? v / (1 + exp(-v)) : v;
      }
  }
}

/* y [rows, c] = LayerNorm of each row of x [rows, c]. */
static inline void sd_layer_norm(const double *x, int rows, int c, double eps,
                                 const double *wt, const double *b, double *y) {
  for (int t = 0; t < rows; ++t) {
    const double *xr = x + (size_t)t * c;
    double mean = 0, var = 0;
    for (int e = 0; e < c; ++e)
      mean += xr[e];
    mean /= c;
    for (int e = 0; e < c; ++e)
      var += (xr[e] - mean) * (xr[e] - mean);
    var /= c;
    const double r = 1 / sqrt(var + eps);
    for (int e = 0; e < c; ++e)
      y[(size_t)t * c + e] = (xr[e] - mean) * r * wt[e] + b[e];
  }
}

/* y [rows, n] = x [rows, k] . wt [n, k]^T (+ b: NULL for none). */
static inline void sd_linear(const double *x, int rows, int k, const double *wt,
                             const double *b, int n, double *y) {
  for (int t = 0; t < rows; ++t)
    for (int o = 0; o < n; ++o) {
      double acc = b != NULL ? b[o] : 0;
      for (int i = 0; i < k; ++i)
        acc += x[(size_t)t * k + i] * wt[(size_t)o * k + i];
      y[(size_t)t * n + o] = acc;
    }
}

/* o [n, heads d] = softmax(q k^T / sqrt(d)) v per head, q [n, heads d], k and
 * v [s, heads d]; query i sees keys up to i where `causal`. */
static inline void sd_attention(const double *q, const double *k, const double *v, int n,
                                int s, int heads, int d, int causal, double *o) {
  const int e = heads * d;
  double *p = sd_alloc((size_t)s);
  for (int hd = 0; hd < heads; ++hd)
    for (int i = 0; i < n; ++i) {
      const int last = causal ? i : s - 1;
      double m = -INFINITY, sum = 0;
      for (int j = 0; j <= last; ++j) {
        double acc = 0;
        for (int c = 0; c < d; ++c)
          acc += q[(size_t)i * e + hd * d + c] * k[(size_t)j * e + hd * d + c];
        p[j] = acc / sqrt((double)d);
        m = p[j] > m ? p[j] : m;
      }
      for (int j = 0; j <= last; ++j)
        sum += p[j] = exp(p[j] - m);
      for (int c = 0; c < d; ++c) {
        double acc = 0;
        for (int j = 0; j <= last; ++j)
          acc += p[j] * v[(size_t)j * e + hd * d + c];
        o[(size_t)i * e + hd * d + c] = acc / sum;
      }
    }
  free(p);
}

#endif /* KG_SD_TEST_H */
