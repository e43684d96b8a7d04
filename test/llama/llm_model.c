/* llm_model.c - see llm_model.h. */
#include "llm_model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kgrt_gguf.h"
#include "kgrt_half.h"
#include "weights_writer.h"

const uint32_t llm_tiny_q4_k_layers[2][LLM_KINDS] = {
    {[LLM_ATTN_V] = WW_GGML_Q6_K, [LLM_FFN_DOWN] = WW_GGML_Q6_K}};

/* Decodes n stored values of `type` into out. */
static int decode(uint32_t type, const void *bytes, size_t n, double *out) {
  const unsigned char *p = bytes;
  if (type == WW_GGML_F32 || type == WW_GGML_F16 || type == WW_GGML_BF16) {
    for (size_t i = 0; i < n; ++i) {
      if (type == WW_GGML_F32) {
        uint32_t u = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 |
                     (uint32_t)p[4 * i + 2] << 16 | (uint32_t)p[4 * i + 3] << 24;
        out[i] = kgrt_bits_f32(u);
      } else {
        uint16_t h = (uint16_t)(p[2 * i] | p[2 * i + 1] << 8);
        out[i] = type == WW_GGML_F16 ? kgrt_f16_to_f32(h) : kgrt_bf16_to_f32(h);
      }
    }
    return 0;
  }
  float *f = malloc(n * sizeof *f);
  if (f == NULL)
    return -1;
  int rc = kgrt_gguf_dequantize((kgrt_gguf_type_t)type, bytes, f, (int64_t)n);
  for (size_t i = 0; i < n; ++i)
    out[i] = f[i];
  free(f);
  return rc == 0 ? 0 : -1;
}

/* Adds tensor (gguf name, hf name) of rows x cols: values drawn from seed,
 * times scale, plus offset; returns its index or -1. */
static int add(llm_model_t *m, const char *gguf, const char *hf, uint32_t type,
               int64_t rows, int64_t cols, uint32_t seed, double scale, double offset) {
  llm_tensor_t *t = &m->t[m->n];
  size_t n = (size_t)(rows * cols);
  float *x = malloc(n * sizeof *x);
  t->value = malloc(n * sizeof *t->value);
  if (x == NULL || t->value == NULL) {
    free(x);
    return -1;
  }
  ww_fill(x, n, seed);
  for (size_t i = 0; i < n; ++i)
    x[i] = (float)(x[i] * scale + offset);
  snprintf(t->gguf, sizeof t->gguf, "%s", gguf);
  snprintf(t->hf, sizeof t->hf, "%s", hf);
  t->type = type;
  t->rows = rows;
  t->cols = cols;
  t->bytes = ww_encode(type, x, n, &t->nbytes);
  free(x);
  if (t->bytes == NULL || decode(type, t->bytes, n, t->value) != 0)
    return -1;
  return m->n++;
}

/* ww_fill draws from [-2, 2): std 2 / sqrt(3). */
static double std_scale(double std) {
  return std * sqrt(3.0) / 2.0;
}

int llm_model_init(llm_model_t *m, const llm_config_t *c, uint32_t seed) {
  memset(m, 0, sizeof *m);
  m->c = *c;
  const int L = c->layers, E = c->hidden, D = c->head_dim, F = c->ffn;
  const int QN = c->heads * D, KN = c->kv_heads * D;
  m->t = calloc((size_t)(12 * L + 3), sizeof *m->t);
  int *idx = malloc((size_t)12 * (size_t)L * sizeof *idx);
  if (m->t == NULL || idx == NULL) {
    free(idx);
    return -1;
  }
  int **lists[12] = {&m->attn_norm, &m->q, &m->k,        &m->v,    &m->qb, &m->kb,
                     &m->vb,        &m->o, &m->ffn_norm, &m->gate, &m->up, &m->down};
  for (int i = 0; i < 12; ++i)
    *lists[i] = idx + i * L;
  uint32_t s = seed * 7919u;
  char g[64], h[96];
  m->embd = add(m, "token_embd.weight", "model.embed_tokens.weight",
                c->fmt[LLM_TOKEN_EMBD], c->vocab, E, ++s, std_scale(1.0), 0);
  if (m->embd < 0)
    return -1;
  struct {
    int **list;
    int kind; /* -1: a norm or a bias (f32) */
    const char *gguf, *hf;
    int rows, cols;
  } per_layer[] = {
      {&m->attn_norm, -1, "attn_norm.weight", "input_layernorm.weight", 1, E},
      {&m->q, LLM_ATTN_Q, "attn_q.weight", "self_attn.q_proj.weight", QN, E},
      {&m->k, LLM_ATTN_K, "attn_k.weight", "self_attn.k_proj.weight", KN, E},
      {&m->v, LLM_ATTN_V, "attn_v.weight", "self_attn.v_proj.weight", KN, E},
      {&m->qb, -1, "attn_q.bias", "self_attn.q_proj.bias", 1, QN},
      {&m->kb, -1, "attn_k.bias", "self_attn.k_proj.bias", 1, KN},
      {&m->vb, -1, "attn_v.bias", "self_attn.v_proj.bias", 1, KN},
      {&m->o, LLM_ATTN_OUTPUT, "attn_output.weight", "self_attn.o_proj.weight", E, QN},
      {&m->ffn_norm, -1, "ffn_norm.weight", "post_attention_layernorm.weight", 1, E},
      {&m->gate, LLM_FFN_GATE, "ffn_gate.weight", "mlp.gate_proj.weight", F, E},
      {&m->up, LLM_FFN_UP, "ffn_up.weight", "mlp.up_proj.weight", F, E},
      {&m->down, LLM_FFN_DOWN, "ffn_down.weight", "mlp.down_proj.weight", E, F},
  };
  for (int l = 0; l < L; ++l) {
    for (size_t i = 0; i < sizeof per_layer / sizeof per_layer[0]; ++i) {
      int bias = per_layer[i].list == &m->qb || per_layer[i].list == &m->kb ||
                 per_layer[i].list == &m->vb;
      int *slot = &(*per_layer[i].list)[l];
      *slot = -1;
      if (bias && !c->qkv_bias)
        continue;
      snprintf(g, sizeof g, "blk.%d.%s", l, per_layer[i].gguf);
      snprintf(h, sizeof h, "model.layers.%d.%s", l, per_layer[i].hf);
      int kind = per_layer[i].kind;
      uint32_t type = kind < 0                                ? WW_GGML_F32
                      : c->layer_fmt && c->layer_fmt[l][kind] ? c->layer_fmt[l][kind]
                                                              : c->fmt[kind];
      double scale = kind < 0 ? (bias ? std_scale(0.5) : std_scale(0.1))
                              : std_scale(1.0 / sqrt((double)per_layer[i].cols));
      *slot = add(m, g, h, type, per_layer[i].rows, per_layer[i].cols, ++s, scale,
                  kind < 0 && !bias ? 1.0 : 0.0);
      if (*slot < 0)
        return -1;
    }
  }
  m->out_norm = add(m, "output_norm.weight", "model.norm.weight", WW_GGML_F32, 1, E, ++s,
                    std_scale(0.1), 1.0);
  m->out = m->embd;
  if (!c->tied_embeddings)
    m->out = add(m, "output.weight", "lm_head.weight", c->fmt[LLM_OUTPUT], c->vocab, E,
                 ++s, std_scale(1.0 / sqrt((double)E)), 0);
  return m->out_norm < 0 || m->out < 0 ? -1 : 0;
}

void llm_model_free(llm_model_t *m) {
  for (int i = 0; i < m->n; ++i) {
    free(m->t[i].bytes);
    free(m->t[i].value);
  }
  free(m->t);
  free(m->attn_norm);
  memset(m, 0, sizeof *m);
}

static double inv_freq(const llm_config_t *c, int i);

/* The tokenizer KVs: m's vocabulary, or (none) a SentencePiece one of
 * c->vocab pieces, <unk> <s> </s>, the 256 byte pieces, then "▁w<k>";
 * token types as SentencePiece gives them (unknown, control, byte, normal). */
static void write_vocab(ww_gguf_t *g, const llm_model_t *m) {
  const int nv = m->c.vocab;
  char **made = NULL;
  const char *const *pieces = m->vocab;
  float *scores = malloc(sizeof *scores * (size_t)nv);
  int32_t *types = malloc(sizeof *types * (size_t)nv);
  if (pieces == NULL && (made = calloc((size_t)nv, sizeof *made)) != NULL) {
    for (int i = 0; i < nv; ++i) {
      char buf[32];
      if (i < 3)
        snprintf(buf, sizeof buf, "%s", i == 0 ? "<unk>" : i == 1 ? "<s>" : "</s>");
      else if (i < 3 + 256)
        snprintf(buf, sizeof buf, "<0x%02X>", i - 3);
      else
        snprintf(buf, sizeof buf, "\xe2\x96\x81w%d", i - 3 - 256);
      made[i] = strdup(buf);
      g->kvs.oom |= made[i] == NULL;
    }
    pieces = (const char *const *)made;
  }
  if (pieces == NULL || scores == NULL || types == NULL || g->kvs.oom) {
    g->kvs.oom = 1;
  } else {
    for (int i = 0; i < nv; ++i) {
      const char *p = pieces[i];
      scores[i] = m->vocab != NULL ? m->scores[i] : i < 3 + 256 ? 0.0f : (float)-i;
      types[i] = i == 0 && strcmp(p, "<unk>") == 0 ? 2 /* unknown */
                 : i == 1 || i == 2                ? 3 /* control */
                 : strlen(p) == 6 && strncmp(p, "<0x", 3) == 0 && p[5] == '>'
                     ? 6 /* byte */
                     : 1;
    }
    ww_gguf_kv_str(g, "tokenizer.ggml.model", "llama");
    ww_gguf_kv_strs(g, "tokenizer.ggml.tokens", pieces, (uint64_t)nv);
    ww_buf_t v = {0};
    ww_u32(&v, WW_F32);
    ww_u64(&v, (uint64_t)nv);
    for (int i = 0; i < nv; ++i)
      ww_u32(&v, kgrt_f32_bits(scores[i]));
    ww_gguf_kv_raw(g, "tokenizer.ggml.scores", WW_ARRAY, v.p, v.len);
    g->kvs.oom |= v.oom;
    ww_free(&v);
    ww_gguf_kv_i32s(g, "tokenizer.ggml.token_type", types, (uint64_t)nv);
    ww_gguf_kv_u32(g, "tokenizer.ggml.bos_token_id", 1);
    ww_gguf_kv_u32(g, "tokenizer.ggml.eos_token_id", 2);
    ww_gguf_kv_u32(g, "tokenizer.ggml.unknown_token_id", 0);
    ww_gguf_kv_bool(g, "tokenizer.ggml.add_bos_token", 1);
  }
  for (int i = 0; made != NULL && i < nv; ++i)
    free(made[i]);
  free(made);
  free(scores);
  free(types);
}

int llm_model_gguf_meta(ww_gguf_t *g, const llm_model_t *m) {
  const llm_config_t *c = &m->c;
  /* llama.cpp's "llama" rotates interleaved pairs; its "qwen2" the halves
   * (and has q, k, v biases) */
  const char *arch = c->rope_half ? "qwen2" : "llama";
  char key[96];
#define ARCH_KEY(k) (snprintf(key, sizeof key, "%s.%s", arch, k), key)
  ww_gguf_kv_str(g, "general.architecture", arch);
  ww_gguf_kv_str(g, "general.name", "kgen random-init test model");
  ww_gguf_kv_u32(g, ARCH_KEY("context_length"), (uint32_t)c->context);
  ww_gguf_kv_u32(g, ARCH_KEY("embedding_length"), (uint32_t)c->hidden);
  ww_gguf_kv_u32(g, ARCH_KEY("block_count"), (uint32_t)c->layers);
  ww_gguf_kv_u32(g, ARCH_KEY("feed_forward_length"), (uint32_t)c->ffn);
  ww_gguf_kv_u32(g, ARCH_KEY("attention.head_count"), (uint32_t)c->heads);
  ww_gguf_kv_u32(g, ARCH_KEY("attention.head_count_kv"), (uint32_t)c->kv_heads);
  /* readers take hidden / heads for the head size unless these say */
  if (c->heads * c->head_dim != c->hidden) {
    ww_gguf_kv_u32(g, ARCH_KEY("attention.key_length"), (uint32_t)c->head_dim);
    ww_gguf_kv_u32(g, ARCH_KEY("attention.value_length"), (uint32_t)c->head_dim);
  }
  if (!m->no_rope_dim)
    ww_gguf_kv_u32(g, ARCH_KEY("rope.dimension_count"), (uint32_t)c->head_dim);
  ww_gguf_kv_f32(g, ARCH_KEY("rope.freq_base"),
                 (float)(c->rope_theta > 0 ? c->rope_theta : 1e4));
  ww_gguf_kv_f32(g, ARCH_KEY("attention.layer_norm_rms_epsilon"),
                 (float)(c->norm_eps > 0 ? c->norm_eps : 1e-5));
  if (c->sliding_window > 0)
    ww_gguf_kv_u32(g, ARCH_KEY("attention.sliding_window"), (uint32_t)c->sliding_window);
  ww_gguf_kv_u32(g, ARCH_KEY("vocab_size"), (uint32_t)c->vocab);
#undef ARCH_KEY
  write_vocab(g, m);
  return g->kvs.oom ? -1 : 0;
}

int llm_model_write_gguf(const llm_model_t *m, const char *path) {
  const llm_config_t *c = &m->c;
  ww_gguf_t g;
  ww_gguf_init(&g, 3, 32);
  if (llm_model_gguf_meta(&g, m) != 0) {
    ww_gguf_free(&g);
    return -1;
  }
  for (int i = 0; i < m->n; ++i) {
    const llm_tensor_t *t = &m->t[i];
    uint64_t ne[2] = {(uint64_t)t->cols, (uint64_t)t->rows};
    ww_gguf_tensor(&g, t->gguf, t->type, t->rows == 1 ? 1 : 2, ne, t->bytes, t->nbytes);
  }
  /* Llama 3.1's RoPE scaling as llama.cpp's converter stores it: each
   * frequency's divisor */
  float factors[256];
  if (m->rope_freqs && c->rope_factor > 0 && c->head_dim / 2 <= 256) {
    const double theta = c->rope_theta > 0 ? c->rope_theta : 1e4;
    for (int i = 0; i < c->head_dim / 2; ++i)
      factors[i] = (float)(pow(theta, -2.0 * i / c->head_dim) / inv_freq(c, i));
    uint64_t ne[1] = {(uint64_t)(c->head_dim / 2)};
    ww_gguf_tensor(&g, "rope_freqs.weight", WW_GGML_F32, 1, ne, factors,
                   sizeof(float) * (size_t)(c->head_dim / 2));
  }
  ww_buf_t out = {0};
  int rc = ww_gguf_finish(&g, &out, NULL);
  if (rc == 0)
    rc = ww_write_file(path, out.p, out.len);
  ww_free(&out);
  ww_gguf_free(&g);
  return rc;
}

int llm_model_write_safetensors(const llm_model_t *m, const char *path) {
  ww_st_tensor_t *st = calloc((size_t)m->n, sizeof *st);
  if (st == NULL)
    return -1;
  int rc = 0;
  for (int i = 0; i < m->n && rc == 0; ++i) {
    const llm_tensor_t *t = &m->t[i];
    st[i].name = t->hf;
    st[i].dtype = t->type == WW_GGML_F32    ? "F32"
                  : t->type == WW_GGML_F16  ? "F16"
                  : t->type == WW_GGML_BF16 ? "BF16"
                                            : NULL;
    if (st[i].dtype == NULL)
      rc = -1;
    st[i].ndim = t->rows == 1 ? 1 : 2;
    st[i].shape[0] = t->rows == 1 ? t->cols : t->rows;
    st[i].shape[1] = t->cols;
    st[i].data = t->bytes;
    st[i].bytes = t->nbytes;
  }
  ww_buf_t out = {0};
  if (rc == 0)
    rc = ww_safetensors(&out, st, m->n, NULL, 0);
  if (rc == 0)
    rc = ww_write_file(path, out.p, out.len);
  ww_free(&out);
  free(st);
  return rc;
}

/* ---- the reference ---- */

int llm_ref_init(llm_ref_t *r, const llm_model_t *m) {
  const llm_config_t *c = &m->c;
  size_t n =
      (size_t)c->layers * (size_t)c->kv_heads * (size_t)c->context * (size_t)c->head_dim;
  r->m = m;
  r->kc = calloc(n, sizeof *r->kc);
  r->vc = calloc(n, sizeof *r->vc);
  return r->kc && r->vc ? 0 : -1;
}

void llm_ref_free(llm_ref_t *r) {
  free(r->kc);
  free(r->vc);
}

static void rmsnorm(const double *x, const double *w, int n, double eps, double *y) {
  double ss = 0;
  for (int i = 0; i < n; ++i)
    ss += x[i] * x[i];
  double inv = 1.0 / sqrt(ss / n + eps);
  for (int i = 0; i < n; ++i)
    y[i] = x[i] * inv * w[i];
}

/* y[rows] = W x (+ bias) for t's rows x cols. */
static void matvec(const llm_tensor_t *t, const double *x, const llm_tensor_t *bias,
                   double *y) {
  for (int64_t n = 0; n < t->rows; ++n) {
    double s = 0;
    const double *w = t->value + n * t->cols;
    for (int64_t k = 0; k < t->cols; ++k)
      s += w[k] * x[k];
    y[n] = s + (bias ? bias->value[n] : 0.0);
  }
}

static double inv_freq(const llm_config_t *c, int i) {
  double theta = c->rope_theta > 0 ? c->rope_theta : 1e4;
  double f = pow(theta, -2.0 * i / c->head_dim);
  if (c->rope_factor <= 0)
    return f;
  double wavelen = 2 * M_PI / f;
  double low = c->rope_original / c->rope_low, high = c->rope_original / c->rope_high;
  if (wavelen < high)
    return f;
  if (wavelen > low)
    return f / c->rope_factor;
  double smooth =
      (c->rope_original / wavelen - c->rope_low) / (c->rope_high - c->rope_low);
  return (1 - smooth) * f / c->rope_factor + smooth * f;
}

static void rope(const llm_config_t *c, double *x, int heads, int pos) {
  const int D = c->head_dim, half = D / 2;
  for (int h = 0; h < heads; ++h) {
    double *v = x + h * D;
    for (int i = 0; i < half; ++i) {
      double a = pos * inv_freq(c, i), cs = cos(a), sn = sin(a);
      int i0 = c->rope_half ? i : 2 * i, i1 = c->rope_half ? i + half : 2 * i + 1;
      double p = v[i0], q = v[i1];
      v[i0] = p * cs - q * sn;
      v[i1] = q * cs + p * sn;
    }
  }
}

static const llm_tensor_t *opt(const llm_model_t *m, int i) {
  return i < 0 ? NULL : &m->t[i];
}

int llm_ref_forward(llm_ref_t *r, const int32_t *tokens, int T, int pos0,
                    double *logits) {
  const llm_model_t *m = r->m;
  const llm_config_t *c = &m->c;
  const int E = c->hidden, H = c->heads, KVH = c->kv_heads, D = c->head_dim, F = c->ffn;
  const int G = H / KVH, S = c->context;
  const double eps = c->norm_eps > 0 ? c->norm_eps : 1e-5;
  if (T < 1 || pos0 < 0 || pos0 + T > S)
    return -1;
  double *x = calloc((size_t)T * E, sizeof *x), *q = calloc((size_t)T * H * D, sizeof *q);
  double *h = malloc(sizeof(double) * (size_t)(E > F ? E : F) * 4);
  double *kv = malloc(sizeof(double) * (size_t)KVH * D * 2);
  double *sc = malloc(sizeof(double) * (size_t)S),
         *a = malloc(sizeof(double) * (size_t)H * D);
  if (!x || !q || !h || !kv || !sc || !a) {
    free(x), free(q), free(h), free(kv), free(sc), free(a);
    return -1;
  }
  const llm_tensor_t *embd = &m->t[m->embd];
  for (int t = 0; t < T; ++t)
    if (tokens[t] >= 0 && tokens[t] < c->vocab)
      memcpy(x + (size_t)t * E, embd->value + (size_t)tokens[t] * E, sizeof(double) * E);
  for (int l = 0; l < c->layers; ++l) {
    for (int t = 0; t < T; ++t) {
      const int p = pos0 + t;
      rmsnorm(x + (size_t)t * E, m->t[m->attn_norm[l]].value, E, eps, h);
      matvec(&m->t[m->q[l]], h, opt(m, m->qb[l]), q + (size_t)t * H * D);
      matvec(&m->t[m->k[l]], h, opt(m, m->kb[l]), kv);
      matvec(&m->t[m->v[l]], h, opt(m, m->vb[l]), kv + KVH * D);
      rope(c, q + (size_t)t * H * D, H, p);
      rope(c, kv, KVH, p);
      for (int g = 0; g < KVH; ++g) {
        size_t at = (((size_t)l * KVH + g) * S + p) * D;
        memcpy(r->kc + at, kv + g * D, sizeof(double) * D);
        memcpy(r->vc + at, kv + (KVH + g) * D, sizeof(double) * D);
      }
    }
    for (int t = 0; t < T; ++t) {
      const int p = pos0 + t;
      const int lo = c->sliding_window > 0 && p - c->sliding_window + 1 > 0
                         ? p - c->sliding_window + 1
                         : 0;
      for (int hh = 0; hh < H; ++hh) {
        const double *qv = q + ((size_t)t * H + hh) * D;
        const double *kc = r->kc + ((size_t)l * KVH + hh / G) * S * D;
        const double *vc = r->vc + ((size_t)l * KVH + hh / G) * S * D;
        double mx = -INFINITY, sum = 0;
        for (int j = lo; j <= p; ++j) {
          double s = 0;
          for (int d = 0; d < D; ++d)
            s += qv[d] * kc[(size_t)j * D + d];
          sc[j] = s / sqrt((double)D);
          mx = fmax(mx, sc[j]);
        }
        for (int j = lo; j <= p; ++j) {
          sc[j] = exp(sc[j] - mx);
          sum += sc[j];
        }
        double *av = a + hh * D;
        for (int d = 0; d < D; ++d)
          av[d] = 0;
        for (int j = lo; j <= p; ++j)
          for (int d = 0; d < D; ++d)
            av[d] += sc[j] / sum * vc[(size_t)j * D + d];
      }
      double *xt = x + (size_t)t * E;
      matvec(&m->t[m->o[l]], a, NULL, h);
      for (int i = 0; i < E; ++i)
        xt[i] += h[i];
      rmsnorm(xt, m->t[m->ffn_norm[l]].value, E, eps, h);
      double *g = h + E, *u = g + F;
      matvec(&m->t[m->gate[l]], h, NULL, g);
      matvec(&m->t[m->up[l]], h, NULL, u);
      for (int i = 0; i < F; ++i)
        g[i] = g[i] / (1 + exp(-g[i])) * u[i];
      matvec(&m->t[m->down[l]], g, NULL, h);
      for (int i = 0; i < E; ++i)
        xt[i] += h[i];
    }
  }
  rmsnorm(x + (size_t)(T - 1) * E, m->t[m->out_norm].value, E, eps, h);
  matvec(&m->t[m->out], h, NULL, logits);
  free(x), free(q), free(h), free(kv), free(sc), free(a);
  return 0;
}

double llm_nmse(const float *a, const double *ref, int n) {
  double num = 0, den = 0;
  for (int i = 0; i < n; ++i) {
    if (a[i] != a[i])
      return NAN;
    num += (a[i] - ref[i]) * (a[i] - ref[i]);
    den += ref[i] * ref[i];
  }
  return num / den;
}

kgrt_status_t llm_run(kgrt_model_t *m, const int32_t *tokens, int T, int pos0,
                      kgrt_error_t *err) {
  int32_t pos[LLM_RUN_MAX_T], last = T - 1, seed = 0;
  const float greedy[4] = {0.0f, 0.0f, 1.0f, 0.0f}; /* temperature 0: the argmax */
  if (T < 1 || T > LLM_RUN_MAX_T) {
    if (err != NULL) {
      err->status = KGRT_STATUS_OUT_OF_RANGE;
      snprintf(err->message, sizeof err->message, "llm_run: T %d is not in 1 .. %d", T,
               LLM_RUN_MAX_T);
    }
    return KGRT_STATUS_OUT_OF_RANGE;
  }
  for (int t = 0; t < T; ++t)
    pos[t] = pos0 + t;
  kgrt_status_t st;
  if ((st = kgrt_model_set_dim(m, "T", T, err)) ||
      (st = kgrt_model_set_dim(m, "S", pos0 + T, err)) ||
      (st =
           kgrt_model_set_input(m, "tokens", tokens, sizeof(int32_t) * (size_t)T, err)) ||
      (st = kgrt_model_set_input(m, "pos", pos, sizeof(int32_t) * (size_t)T, err)) ||
      (st = kgrt_model_set_input(m, "last", &last, sizeof last, err)) ||
      (st = kgrt_model_set_input(m, "seed", &seed, sizeof seed, err)) ||
      (st = kgrt_model_set_input(m, "params", greedy, sizeof greedy, err)))
    return st;
  return kgrt_model_run(m, err);
}

int llm_token_clear(const double *ref, int n, double nmse_bound, int *out_best,
                    double *out_gap) {
  int best = 0, second = -1;
  double rms = 0;
  for (int v = 0; v < n; ++v) {
    rms += ref[v] * ref[v];
    if (ref[v] > ref[best]) {
      second = best;
      best = v;
    } else if (v != best && (second < 0 || ref[v] > ref[second])) {
      second = v;
    }
  }
  rms = sqrt(rms / n);
  *out_best = best;
  *out_gap = second >= 0 ? ref[best] - ref[second] : INFINITY;
  return *out_gap > 4 * sqrt(nmse_bound) * rms;
}
