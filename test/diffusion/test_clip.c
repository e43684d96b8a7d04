/* test_clip.c - models/clip.lua (Stable Diffusion's CLIP text encoder) on a
 * device against a float64 forward pass written here from Hugging Face's
 * CLIPTextModel: token + position embeddings, pre-LayerNorm layers of causal
 * multi-head self-attention and a quick-GELU (or GELU) MLP, the final
 * LayerNorm; the last `skip` layers left out.
 *
 * Random weights, stored in the table's dtype and kept, as stored, in double;
 * random tokens at positions 0 .. T - 1 for T = 1, 13 and the table's max.
 * Each T loads the model afresh (outputs start poisoned) and wants the
 * hidden states within an NMSE bound of the dtype's; a NaN fails. The weights
 * are set by name, or (T = 13) bound from a safetensors file that names them
 * as a diffusers pipeline's text_encoder/model.safetensors does
 * ("text_model.encoder.layers.0.self_attn.q_proj.weight", written by
 * weights_writer) through kgrt_model_bind_weights.
 *   test_clip SPEC...          (sim:gfx1100 sim:gfx942)
 * Built per table: CLIP_HEADER, CLIP_TABLE, and the model's config
 * (CLIP_VOCAB, _HIDDEN, _LAYERS, _HEADS, _FFN, _POSITIONS, _GELU, _SKIP). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kgrt.h"
#include "kgrt_half.h"
#include "kgrt_weights.h"
#include "test.h"
#include "weights_writer.h"

#include CLIP_HEADER

enum {
  V = CLIP_VOCAB,
  E = CLIP_HIDDEN,
  L = CLIP_LAYERS,
  H = CLIP_HEADS,
  F = CLIP_FFN,
  P = CLIP_POSITIONS,
  D = E / H,
  MAX_W = 64
};

/* ---- weights ------------------------------------------------------------- */

typedef struct clip_weight {
  const char *name;
  size_t n;
  double *value;         /* as stored */
  unsigned char *stored; /* the table's dtype */
  size_t bytes;
} clip_weight_t;

static clip_weight_t weights[MAX_W];
static int num_weights;
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static double uniform(double lo, double hi) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return lo + (hi - lo) * (double)(rng >> 11) / 9007199254740992.0;
}

static size_t dtype_size(kgrt_dtype_t dt) {
  return dt == KGRT_DTYPE_F32 ? 4 : 2;
}

/* v rounded to the dtype, and its bytes at p. */
static double store(kgrt_dtype_t dt, double v, unsigned char *p) {
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

static double load_value(kgrt_dtype_t dt, const unsigned char *p) {
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
 * scales about 1, biases small, matrices of unit gain. */
static int make_weights(const kgrt_model_table_t *t) {
  if (t->num_weights > MAX_W)
    return -1;
  for (uint32_t i = 0; i < t->num_weights; ++i) {
    const kgrt_tensor_info_t *w = &t->weights[i];
    clip_weight_t *c = &weights[num_weights++];
    c->name = w->name;
    c->n = 1;
    for (uint32_t d = 0; d < w->rank; ++d)
      c->n *= (size_t)w->dims[d].value;
    c->bytes = c->n * dtype_size(w->dtype);
    c->value = malloc(c->n * sizeof *c->value);
    c->stored = malloc(c->bytes);
    if (c->value == NULL || c->stored == NULL)
      return -1;
    const int norm = strstr(w->name, "layer_norm") != NULL;
    const int bias = strstr(w->name, "_bias") != NULL;
    const int embd = strstr(w->name, "embedding") != NULL;
    const double a = w->rank == 2 ? sqrt(3.0 / (double)w->dims[1].value) : 0;
    for (size_t j = 0; j < c->n; ++j) {
      double v = embd   ? uniform(-1, 1)
                 : bias ? uniform(-0.2, 0.2)
                 : norm ? 1 + uniform(-0.2, 0.2)
                        : uniform(-a, a);
      c->value[j] = store(w->dtype, v, c->stored + j * dtype_size(w->dtype));
    }
  }
  return 0;
}

static const double *wt(const char *fmt, int layer) {
  char name[160];
  snprintf(name, sizeof name, fmt, layer);
  for (int i = 0; i < num_weights; ++i)
    if (strcmp(weights[i].name, name) == 0)
      return weights[i].value;
  fprintf(stderr, "test_clip: the table has no weight %s\n", name);
  exit(1);
}

/* ---- the float64 reference ---------------------------------------------- */

static void layer_norm(const double *x, const double *w, const double *b, double *y,
                       int T) {
  for (int t = 0; t < T; ++t) {
    double mean = 0, var = 0;
    for (int e = 0; e < E; ++e)
      mean += x[t * E + e];
    mean /= E;
    for (int e = 0; e < E; ++e)
      var += (x[t * E + e] - mean) * (x[t * E + e] - mean);
    var /= E;
    const double r = 1 / sqrt(var + 1e-5);
    for (int e = 0; e < E; ++e)
      y[t * E + e] = (x[t * E + e] - mean) * r * w[e] + b[e];
  }
}

/* y [T, n] = x [T, k] . W [n, k]^T + b */
static void linear(const double *x, const double *w, const double *b, double *y, int T,
                   int n, int k) {
  for (int t = 0; t < T; ++t)
    for (int o = 0; o < n; ++o) {
      double s = b[o];
      for (int i = 0; i < k; ++i)
        s += x[t * k + i] * w[o * k + i];
      y[t * n + o] = s;
    }
}

static double act(double x) {
  return CLIP_GELU ? 0.5 * x * (1 + erf(x / sqrt(2.0))) : x / (1 + exp(-1.702 * x));
}

static void reference(const int32_t *tokens, int T, double *out) {
  static double x[P * E], h[P * E], q[P * E], k[P * E], v[P * E], a[P * E], f[P * F];
  const double *te = wt("text_model_embeddings_token_embedding_weight", 0);
  const double *pe = wt("text_model_embeddings_position_embedding_weight", 0);
  for (int t = 0; t < T; ++t)
    for (int e = 0; e < E; ++e)
      x[t * E + e] = te[tokens[t] * E + e] + pe[t * E + e];
  for (int l = 0; l < L - CLIP_SKIP; ++l) {
#define W(s) wt("text_model_encoder_layers_%d_" s, l)
    layer_norm(x, W("layer_norm1_weight"), W("layer_norm1_bias"), h, T);
    linear(h, W("self_attn_q_proj_weight"), W("self_attn_q_proj_bias"), q, T, E, E);
    linear(h, W("self_attn_k_proj_weight"), W("self_attn_k_proj_bias"), k, T, E, E);
    linear(h, W("self_attn_v_proj_weight"), W("self_attn_v_proj_bias"), v, T, E, E);
    for (int hd = 0; hd < H; ++hd)
      for (int t = 0; t < T; ++t) {
        double s[P], m = -INFINITY, sum = 0;
        for (int j = 0; j <= t; ++j) {
          s[j] = 0;
          for (int d = 0; d < D; ++d)
            s[j] += q[t * E + hd * D + d] * k[j * E + hd * D + d];
          s[j] /= sqrt((double)D);
          m = s[j] > m ? s[j] : m;
        }
        for (int j = 0; j <= t; ++j)
          sum += s[j] = exp(s[j] - m);
        for (int d = 0; d < D; ++d) {
          double o = 0;
          for (int j = 0; j <= t; ++j)
            o += s[j] * v[j * E + hd * D + d];
          a[t * E + hd * D + d] = o / sum;
        }
      }
    linear(a, W("self_attn_out_proj_weight"), W("self_attn_out_proj_bias"), h, T, E, E);
    for (int i = 0; i < T * E; ++i)
      x[i] += h[i];
    layer_norm(x, W("layer_norm2_weight"), W("layer_norm2_bias"), h, T);
    linear(h, W("mlp_fc1_weight"), W("mlp_fc1_bias"), f, T, F, E);
    for (int i = 0; i < T * F; ++i)
      f[i] = act(f[i]);
    linear(f, W("mlp_fc2_weight"), W("mlp_fc2_bias"), h, T, E, F);
    for (int i = 0; i < T * E; ++i)
      x[i] += h[i];
#undef W
  }
  layer_norm(x, wt("text_model_final_layer_norm_weight", 0),
             wt("text_model_final_layer_norm_bias", 0), out, T);
}

/* ---- the safetensors file ------------------------------------------------ */

/* The file's name of a table weight: '_' read as '.' but inside the parts
 * whose own names hold one (self_attn, q_proj, layer_norm1, ...). */
static void file_name(const char *table, char *out, size_t size) {
  static const char *const parts[] = {
      "text_model",       "token_embedding", "position_embedding",
      "final_layer_norm", "layer_norm1",     "layer_norm2",
      "self_attn",        "q_proj",          "k_proj",
      "v_proj",           "out_proj"};
  size_t o = 0;
  for (const char *p = table; *p != '\0' && o + 1 < size;) {
    size_t n = 0;
    for (size_t i = 0; i < sizeof parts / sizeof parts[0] && n == 0; ++i) {
      const size_t len = strlen(parts[i]);
      if (strncmp(p, parts[i], len) == 0 && (p[len] == '_' || p[len] == '\0'))
        n = len;
    }
    if (n == 0)
      n = strcspn(p, "_");
    if (o + n + 1 >= size)
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

/* The weights as one safetensors file in memory (*out: free with ww_free). */
static int write_file(const kgrt_model_table_t *t, ww_buf_t *out) {
  static ww_st_tensor_t st[MAX_W];
  static char names[MAX_W][160];
  const kgrt_dtype_t dt = t->outputs[0].dtype;
  for (int i = 0; i < num_weights; ++i) {
    const kgrt_tensor_info_t *w = &t->weights[i];
    file_name(weights[i].name, names[i], sizeof names[i]);
    st[i] = (ww_st_tensor_t){.name = names[i],
                             .dtype = dt == KGRT_DTYPE_F32   ? "F32"
                                      : dt == KGRT_DTYPE_F16 ? "F16"
                                                             : "BF16",
                             .ndim = w->rank,
                             .data = weights[i].stored,
                             .bytes = weights[i].bytes};
    for (uint32_t d = 0; d < w->rank; ++d)
      st[i].shape[d] = w->dims[d].value;
  }
  memset(out, 0, sizeof *out);
  return ww_safetensors(out, st, num_weights, NULL, 0);
}

/* ---- the device ---------------------------------------------------------- */

#define OK(call)                                                                         \
  do {                                                                                   \
    if ((call) != KGRT_STATUS_OK) {                                                      \
      TEST_FAIL_("%s: %s: %s", spec, #call, err.message);                                \
      goto done;                                                                         \
    }                                                                                    \
  } while (0)

static void run(const char *spec, int T, double bound) {
  const kgrt_model_table_t *t = &CLIP_TABLE;
  static int32_t tokens[P], pos[P];
  static double ref[P * E];
  static unsigned char out[P * E * 4];
  kgrt_error_t err;
  kgrt_device_t *dev = NULL;
  kgrt_model_t *m = NULL;
  kgrt_weights_t *w = NULL;
  kgrt_status_t st;
  for (int i = 0; i < T; ++i) {
    tokens[i] = (int32_t)(uniform(0, V - 1e-9));
    pos[i] = i;
  }
  reference(tokens, T, ref);
  OK(kgrt_device_open(spec, NULL, &dev, &err));
  OK(kgrt_model_load(dev, t, &m, &err));
  if (T == 13) {
    ww_buf_t file;
    CHECK_EQ(write_file(t, &file), 0);
    st = kgrt_weights_open_memory(file.p, file.len, KGRT_WEIGHTS_FORMAT_SAFETENSORS,
                                  "text_encoder", NULL, &w, &err);
    if (st == KGRT_STATUS_OK)
      st = kgrt_model_bind_weights(m, w, KGRT_BIND_REFUSE_UNUSED, &err);
    kgrt_weights_close(w);
    ww_free(&file);
    OK(st);
  } else {
    for (int i = 0; i < num_weights; ++i)
      OK(kgrt_model_set_weight(m, weights[i].name, weights[i].stored, weights[i].bytes,
                               &err));
  }
  OK(kgrt_model_set_dim(m, "T", T, &err));
  OK(kgrt_model_set_input(m, "tokens", tokens, (size_t)T * 4, &err));
  OK(kgrt_model_set_input(m, "pos", pos, (size_t)T * 4, &err));
  OK(kgrt_model_run(m, &err));
  const kgrt_dtype_t dt = t->outputs[0].dtype;
  const size_t es = dtype_size(dt);
  OK(kgrt_model_get_output(m, "hidden", out, (size_t)T * E * es, &err));
  double num = 0, den = 0;
  for (int i = 0; i < T * E; ++i) {
    const double y = load_value(dt, out + (size_t)i * es);
    num += (y - ref[i]) * (y - ref[i]);
    den += ref[i] * ref[i];
  }
  const double nmse = num / den;
  test_checks++;
  if (!(nmse <= bound))
    TEST_FAIL_("%s T = %d: hidden NMSE %.3g over %.0e", spec, T, nmse, bound);
  printf("%s T = %d: NMSE %.3g (bound %.0e)\n", spec, T, nmse, bound);
done:
  kgrt_model_unload(m);
  kgrt_device_close(dev);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_clip SPEC...\n");
    return 2;
  }
  const kgrt_dtype_t dt = CLIP_TABLE.outputs[0].dtype;
  /* f32: rounding alone; f16 / bf16: each op's result rounded */
  const double bound = dt == KGRT_DTYPE_F32 ? 1e-10 : dt == KGRT_DTYPE_F16 ? 1e-5 : 1e-3;
  if (make_weights(&CLIP_TABLE) != 0) {
    fprintf(stderr, "test_clip: cannot make the weights\n");
    return 1;
  }
  const int ts[] = {1, 13, P};
  for (int a = 1; a < argc; ++a)
    for (int i = 0; i < 3; ++i)
      run(argv[a], ts[i], bound);
  for (int i = 0; i < num_weights; ++i) {
    free(weights[i].value);
    free(weights[i].stored);
  }
  return TEST_DONE();
}
