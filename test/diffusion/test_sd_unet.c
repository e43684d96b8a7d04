/* test_sd_unet.c - models/sd_unet.lua (Stable Diffusion's UNet) on a device
 * against a float64 forward pass written here from diffusers'
 * UNet2DConditionModel: the time embedding's MLP; conv_in; down levels of
 * ResNet blocks (the projected time embedding added after their first conv)
 * with transformers where the level has attention, and a stride-2 conv; the
 * mid block; up levels whose ResNet blocks take the feature map and a skip
 * of the down path joined along the channels; GroupNorm, SiLU, conv_out. A
 * transformer: GroupNorm, proj_in (1x1 conv or linear), self-attention,
 * cross-attention to the text, a GEGLU feed-forward, proj_out, residual.
 *
 * Random weights (sd_test.h), latents, time embedding and text states; the
 * noise within an NMSE bound of the dtype's (a NaN fails), from a fresh load
 * (outputs start poisoned), once with the weights set by name and once bound
 * from a safetensors file that names them as a diffusers
 * unet/diffusion_pytorch_model.safetensors does
 * ("down_blocks.0.attentions.0.transformer_blocks.0.attn2.to_k.weight").
 *   test_sd_unet SPEC...          (sim:gfx1100 sim:gfx942)
 * Built per table: UNET_HEADER, UNET_TABLE and the model's config
 * (UNET_BLOCKS and UNET_ATTENTION (lists), UNET_LAYERS, UNET_GROUPS,
 * UNET_HEADS (0: UNET_HEAD_DIM gives the heads' width), UNET_LINEAR,
 * UNET_CONTEXT, UNET_TOKENS, UNET_H, UNET_W; UNET_BLOCKS_0 the first block's
 * channels). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sd_test.h"

#include UNET_HEADER

static const int blocks[] = {UNET_BLOCKS}, attn[] = {UNET_ATTENTION};
enum {
  NB = (int)(sizeof blocks / sizeof blocks[0]),
  LC = 4,
  LAYERS = UNET_LAYERS,
  GROUPS = UNET_GROUPS,
  CTX = UNET_CONTEXT,
  TOK = UNET_TOKENS,
  H0 = UNET_H,
  W0 = UNET_W,
  MAX_SKIPS = 64
};
static const double eps = 1e-5;

/* ---- the float64 reference ---------------------------------------------- */

static int temb_dim(void) {
  return 4 * blocks[0];
}

static void conv(const double *x, int cin, int h, int w, const char *name, int cout,
                 int k, int s, const double *bias, double *y) {
  sd_conv(x, cin, h, w, sd_wt("%s_weight", name), bias ? bias : sd_wt("%s_bias", name),
          cout, k, s, y);
}

static void group_norm(const double *x, int c, int n, const char *name, double e, int act,
                       double *y) {
  sd_group_norm(x, c, n, GROUPS, e, sd_wt("%s_weight", name), sd_wt("%s_bias", name), act,
                y);
}

/* x [cout, h, w] = ResNet block of x [cin, h, w]; t: silu(time embedding). */
static void resnet(double *x, const double *t, int cin, int cout, int h, int w,
                   const char *name) {
  const int n = h * w;
  const int cm = cin > cout ? cin : cout;
  double *a = sd_alloc((size_t)cm * n), *b = sd_alloc((size_t)cout * n),
         *tp = sd_alloc((size_t)cout);
  char part[200];
  snprintf(part, sizeof part, "%s_time_emb_proj", name);
  sd_linear(t, 1, temb_dim(), sd_wt("%s_weight", part), sd_wt("%s_bias", part), cout, tp);
  const double *b1 = sd_wt("%s_conv1_bias", name);
  for (int c = 0; c < cout; ++c)
    tp[c] += b1[c];
  snprintf(part, sizeof part, "%s_norm1", name);
  group_norm(x, cin, n, part, eps, 1, a);
  snprintf(part, sizeof part, "%s_conv1", name);
  conv(a, cin, h, w, part, cout, 3, 1, tp, b);
  snprintf(part, sizeof part, "%s_norm2", name);
  group_norm(b, cout, n, part, eps, 1, a);
  snprintf(part, sizeof part, "%s_conv2", name);
  conv(a, cout, h, w, part, cout, 3, 1, NULL, b);
  if (cin != cout) {
    snprintf(part, sizeof part, "%s_conv_shortcut", name);
    conv(x, cin, h, w, part, cout, 1, 1, NULL, a);
    memcpy(x, a, (size_t)cout * n * sizeof *x);
  }
  for (int i = 0; i < cout * n; ++i)
    x[i] += b[i];
  free(a), free(b), free(tp);
}

/* o [n, c] = attention `name` of x [n, c] over kv [s, kd] (biasless q, k, v;
 * to_out with bias). */
static void attend(const double *x, int n, int c, const double *kv, int s, int kd,
                   const char *name, double *o) {
  const int heads = UNET_HEADS ? UNET_HEADS : c / UNET_HEAD_DIM;
  double *q = sd_alloc((size_t)n * c), *k = sd_alloc((size_t)s * c),
         *v = sd_alloc((size_t)s * c), *a = sd_alloc((size_t)n * c);
  sd_linear(x, n, c, sd_wt("%s_to_q_weight", name), NULL, c, q);
  sd_linear(kv, s, kd, sd_wt("%s_to_k_weight", name), NULL, c, k);
  sd_linear(kv, s, kd, sd_wt("%s_to_v_weight", name), NULL, c, v);
  sd_attention(q, k, v, n, s, heads, c / heads, 0, a);
  sd_linear(a, n, c, sd_wt("%s_to_out_0_weight", name), sd_wt("%s_to_out_0_bias", name),
            c, o);
  free(q), free(k), free(v), free(a);
}

/* x [c, h, w] += the transformer `name` over it, conditioned on text. */
static void transformer(double *x, const double *text, int c, int h, int w,
                        const char *name) {
  const int n = h * w;
  double *g = sd_alloc((size_t)c * n), *t = sd_alloc((size_t)c * n),
         *u = sd_alloc((size_t)c * n), *o = sd_alloc((size_t)c * n),
         *f = sd_alloc((size_t)8 * c * n), *gg = sd_alloc((size_t)4 * c * n);
  char part[256], b[200];
  snprintf(part, sizeof part, "%s_norm", name);
  group_norm(x, c, n, part, 1e-6, 0, g);
  snprintf(part, sizeof part, "%s_proj_in", name);
  if (UNET_LINEAR) {
    for (int ch = 0; ch < c; ++ch)
      for (int i = 0; i < n; ++i)
        u[i * c + ch] = g[ch * n + i];
    sd_linear(u, n, c, sd_wt("%s_weight", part), sd_wt("%s_bias", part), c, t);
  } else {
    conv(g, c, h, w, part, c, 1, 1, NULL, u);
    for (int ch = 0; ch < c; ++ch)
      for (int i = 0; i < n; ++i)
        t[i * c + ch] = u[ch * n + i];
  }
  snprintf(b, sizeof b, "%s_transformer_blocks_0", name);
  static const char *const norms[] = {"norm1", "norm2", "norm3"};
  for (int l = 0; l < 3; ++l) {
    snprintf(part, sizeof part, "%s_%s", b, norms[l]);
    sd_layer_norm(t, n, c, 1e-5, sd_wt("%s_weight", part), sd_wt("%s_bias", part), u);
    if (l < 2) {
      snprintf(part, sizeof part, "%s_attn%d", b, l + 1);
      attend(u, n, c, l == 0 ? u : text, l == 0 ? n : TOK, l == 0 ? c : CTX, part, o);
    } else {
      snprintf(part, sizeof part, "%s_ff_net_0_proj", b);
      sd_linear(u, n, c, sd_wt("%s_weight", part), sd_wt("%s_bias", part), 8 * c, f);
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < 4 * c; ++j) {
          const double gate = f[(size_t)i * 8 * c + 4 * c + j];
          gg[(size_t)i * 4 * c + j] =
              f[(size_t)i * 8 * c + j] * 0.5 * gate * (1 + erf(gate / sqrt(2.0)));
        }
      snprintf(part, sizeof part, "%s_ff_net_2", b);
      sd_linear(gg, n, 4 * c, sd_wt("%s_weight", part), sd_wt("%s_bias", part), c, o);
    }
    for (int i = 0; i < n * c; ++i)
      t[i] += o[i];
  }
  snprintf(part, sizeof part, "%s_proj_out", name);
  if (UNET_LINEAR) {
    sd_linear(t, n, c, sd_wt("%s_weight", part), sd_wt("%s_bias", part), c, u);
    for (int ch = 0; ch < c; ++ch)
      for (int i = 0; i < n; ++i)
        x[ch * n + i] += u[i * c + ch];
  } else {
    for (int ch = 0; ch < c; ++ch)
      for (int i = 0; i < n; ++i)
        u[ch * n + i] = t[i * c + ch];
    conv(u, c, h, w, part, c, 1, 1, NULL, o);
    for (int i = 0; i < n * c; ++i)
      x[i] += o[i];
  }
  free(g), free(t), free(u), free(o), free(f), free(gg);
}

typedef struct skip {
  double *v;
  int c;
} skip_t;

/* noise [LC, H0, W0] from latent [LC, H0, W0], temb [blocks[0]], text [TOK, CTX]. */
static void reference(const double *latent, const double *temb, const double *text,
                      double *noise) {
  int cmax = LC;
  for (int i = 0; i < NB; ++i)
    cmax = 2 * blocks[i] > cmax ? 2 * blocks[i] : cmax;
  const size_t big = (size_t)cmax * H0 * W0;
  double *x = sd_alloc(big), *y = sd_alloc(big), *t1 = sd_alloc((size_t)temb_dim()),
         *t = sd_alloc((size_t)temb_dim());
  skip_t skips[MAX_SKIPS];
  int ns = 0;
  sd_linear(temb, 1, blocks[0], sd_wt("time_embedding_linear_1_weight"),
            sd_wt("time_embedding_linear_1_bias"), temb_dim(), t1);
  for (int i = 0; i < temb_dim(); ++i)
    t1[i] = t1[i] / (1 + exp(-t1[i]));
  sd_linear(t1, 1, temb_dim(), sd_wt("time_embedding_linear_2_weight"),
            sd_wt("time_embedding_linear_2_bias"), temb_dim(), t);
  for (int i = 0; i < temb_dim(); ++i)
    t[i] = t[i] / (1 + exp(-t[i]));
  int h = H0, w = W0, cin = blocks[0];
  conv(latent, LC, h, w, "conv_in", blocks[0], 3, 1, NULL, x);
#define PUSH(nc)                                                                         \
  do {                                                                                   \
    skips[ns].v = sd_alloc((size_t)(nc)*h * w);                                          \
    memcpy(skips[ns].v, x, (size_t)(nc)*h *w * sizeof *x);                               \
    skips[ns++].c = (nc);                                                                \
  } while (0)
  PUSH(blocks[0]);
  char name[200];
  for (int i = 0; i < NB; ++i) {
    const int ch = blocks[i];
    for (int j = 0; j < LAYERS; ++j) {
      snprintf(name, sizeof name, "down_blocks_%d_resnets_%d", i, j);
      resnet(x, t, cin, ch, h, w, name);
      cin = ch;
      if (attn[i]) {
        snprintf(name, sizeof name, "down_blocks_%d_attentions_%d", i, j);
        transformer(x, text, ch, h, w, name);
      }
      PUSH(ch);
    }
    if (i < NB - 1) {
      snprintf(name, sizeof name, "down_blocks_%d_downsamplers_0_conv", i);
      conv(x, ch, h, w, name, ch, 3, 2, NULL, y);
      h /= 2, w /= 2;
      memcpy(x, y, (size_t)ch * h * w * sizeof *x);
      PUSH(ch);
    }
  }
  const int top = blocks[NB - 1];
  resnet(x, t, top, top, h, w, "mid_block_resnets_0");
  transformer(x, text, top, h, w, "mid_block_attentions_0");
  resnet(x, t, top, top, h, w, "mid_block_resnets_1");
  for (int i = 0; i < NB; ++i) {
    const int level = NB - 1 - i, ch = blocks[level];
    for (int j = 0; j <= LAYERS; ++j) {
      const skip_t s = skips[--ns];
      memcpy(x + (size_t)cin * h * w, s.v, (size_t)s.c * h * w * sizeof *x);
      free(s.v);
      snprintf(name, sizeof name, "up_blocks_%d_resnets_%d", i, j);
      resnet(x, t, cin + s.c, ch, h, w, name);
      cin = ch;
      if (attn[level]) {
        snprintf(name, sizeof name, "up_blocks_%d_attentions_%d", i, j);
        transformer(x, text, ch, h, w, name);
      }
    }
    if (i < NB - 1) {
      for (int c = 0; c < ch; ++c)
        for (int oy = 0; oy < 2 * h; ++oy)
          for (int ox = 0; ox < 2 * w; ++ox)
            y[((size_t)c * 2 * h + oy) * 2 * w + ox] =
                x[((size_t)c * h + oy / 2) * w + ox / 2];
      h *= 2, w *= 2;
      snprintf(name, sizeof name, "up_blocks_%d_upsamplers_0_conv", i);
      conv(y, ch, h, w, name, ch, 3, 1, NULL, x);
    }
  }
#undef PUSH
  group_norm(x, blocks[0], h * w, "conv_norm_out", eps, 1, y);
  conv(y, blocks[0], h, w, "conv_out", LC, 3, 1, NULL, noise);
  free(x), free(y), free(t1), free(t);
}

/* ---- the device ---------------------------------------------------------- */

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_sd_unet SPEC...\n");
    return 2;
  }
  const kgrt_dtype_t dt = UNET_TABLE.outputs[0].dtype;
  const size_t es = sd_dtype_size(dt);
  /* f32: rounding alone; f16: each op's result rounded */
  const double bound = dt == KGRT_DTYPE_F32 ? 1e-9 : 1e-4;
  if (sd_make_weights(&UNET_TABLE) != 0) {
    fprintf(stderr, "test_sd_unet: cannot make the weights\n");
    return 1;
  }
  static double latent[LC * H0 * W0], temb[UNET_BLOCKS_0], text[TOK * CTX],
      ref[LC * H0 * W0];
  static unsigned char raw[3][LC * H0 * W0 * 4 + TOK * CTX * 4];
  const struct {
    const char *name;
    double *v;
    size_t n;
    double lo, hi;
  } spec[] = {{"latent", latent, LC * H0 * W0, -1, 1},
              {"temb", temb, UNET_BLOCKS_0, -1, 1},
              {"text", text, TOK * CTX, -1, 1}};
  sd_input_t ins[3];
  for (int k = 0; k < 3; ++k) {
    for (size_t i = 0; i < spec[k].n; ++i)
      spec[k].v[i] = sd_store(dt, sd_uniform(spec[k].lo, spec[k].hi), raw[k] + i * es);
    ins[k] = (sd_input_t){spec[k].name, raw[k], spec[k].n * es};
  }
  reference(latent, temb, text, ref);
  for (int a = 1; a < argc; ++a)
    for (int file = 0; file < 2; ++file) {
      char what[160];
      snprintf(what, sizeof what, "%s%s: noise [4, %d, %d]", argv[a],
               file ? ", weights from the file" : "", H0, W0);
      sd_run(argv[a], &UNET_TABLE, file, NULL, 0, ins, 3, "noise", ref,
             (size_t)LC * H0 * W0, bound, what);
    }
  sd_free_weights();
  return TEST_DONE();
}
