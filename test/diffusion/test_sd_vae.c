/* test_sd_vae.c - models/sd_vae.lua (Stable Diffusion's VAE decoder) on a
 * device against a float64 forward pass written here from diffusers'
 * AutoencoderKL.decode: the latents over the scaling factor,
 * post_quant_conv, conv_in, the mid block (ResNet, one-head attention,
 * ResNet), the up blocks (ResNet blocks, then a nearest 2x upsample and a
 * conv but in the last), GroupNorm, SiLU and conv_out.
 *
 * Random weights (sd_test.h) and latents; the image within an NMSE bound of
 * the dtype's (a NaN fails), from a fresh load (outputs start poisoned),
 * once with the weights set by name and once bound from a safetensors file
 * that names them as a diffusers vae/diffusion_pytorch_model.safetensors
 * does ("decoder.up_blocks.0.resnets.0.norm1.weight").
 *   test_sd_vae SPEC...          (sim:gfx1100 sim:gfx942)
 * Built per table: VAE_HEADER, VAE_TABLE and the model's config
 * (VAE_LATENT, VAE_BLOCKS (a list), VAE_LAYERS, VAE_GROUPS, VAE_H, VAE_W). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sd_test.h"

#include VAE_HEADER

static const int blocks[] = {VAE_BLOCKS};
enum {
  NB = (int)(sizeof blocks / sizeof blocks[0]),
  LC = VAE_LATENT,
  OUT_C = 3,
  GROUPS = VAE_GROUPS,
  SCALE_UP = 1 << (NB - 1),
  OUT_H = VAE_H * SCALE_UP,
  OUT_W = VAE_W * SCALE_UP
};
static const double eps = 1e-6, scaling_factor = 0.18215;

/* ---- the float64 reference ---------------------------------------------- */

/* y [cout, h, w] = the conv `name`, k x k, of x [cin, h, w]. */
static void conv(const double *x, int cin, int h, int w, const char *name, int cout,
                 int k, double *y) {
  sd_conv(x, cin, h, w, sd_wt("%s_weight", name), sd_wt("%s_bias", name), cout, k, 1, y);
}

/* y = the GroupNorm `name` of x [c, n], then SiLU where `act`. */
static void group_norm(const double *x, int c, int n, const char *name, int act,
                       double *y) {
  sd_group_norm(x, c, n, GROUPS, eps, sd_wt("%s_weight", name), sd_wt("%s_bias", name),
                act, y);
}

/* x [cout, h, w] = ResNet block of x [cin, h, w]. */
static void resnet(double *x, int cin, int cout, int h, int w, const char *name) {
  const int n = h * w;
  double *a = sd_alloc((size_t)(cin > cout ? cin : cout) * n),
         *b = sd_alloc((size_t)cout * n);
  char part[160];
  snprintf(part, sizeof part, "%s_norm1", name);
  group_norm(x, cin, n, part, 1, a);
  snprintf(part, sizeof part, "%s_conv1", name);
  conv(a, cin, h, w, part, cout, 3, b);
  snprintf(part, sizeof part, "%s_norm2", name);
  group_norm(b, cout, n, part, 1, a);
  snprintf(part, sizeof part, "%s_conv2", name);
  conv(a, cout, h, w, part, cout, 3, b);
  if (cin != cout) {
    snprintf(part, sizeof part, "%s_conv_shortcut", name);
    conv(x, cin, h, w, part, cout, 1, a);
    memcpy(x, a, (size_t)cout * n * sizeof *x);
  }
  for (int i = 0; i < cout * n; ++i)
    x[i] += b[i];
  free(a);
  free(b);
}

/* y [n, c] = t [n, c] through the linear layer `kind` of the block. */
static void linear(const double *t, int n, int c, const char *name, const char *kind,
                   double *y) {
  sd_linear(t, n, c, sd_wt("%s_%s_weight", name, kind), sd_wt("%s_%s_bias", name, kind),
            c, y);
}

/* x [c, h, w] += the one-head attention over its h w positions. */
static void attention(double *x, int c, int h, int w, const char *name) {
  const int n = h * w;
  double *g = sd_alloc((size_t)c * n), *t = sd_alloc((size_t)c * n),
         *q = sd_alloc((size_t)c * n), *k = sd_alloc((size_t)c * n),
         *v = sd_alloc((size_t)c * n), *o = sd_alloc((size_t)c * n);
  char part[160];
  snprintf(part, sizeof part, "%s_group_norm", name);
  group_norm(x, c, n, part, 0, g);
  for (int ch = 0; ch < c; ++ch)
    for (int i = 0; i < n; ++i)
      t[i * c + ch] = g[ch * n + i];
  linear(t, n, c, name, "to_q", q);
  linear(t, n, c, name, "to_k", k);
  linear(t, n, c, name, "to_v", v);
  sd_attention(q, k, v, n, n, 1, c, 0, t);
  linear(t, n, c, name, "to_out_0", o);
  for (int ch = 0; ch < c; ++ch)
    for (int i = 0; i < n; ++i)
      x[ch * n + i] += o[i * c + ch];
  free(g), free(t), free(q), free(k), free(v), free(o);
}

/* image [3, OUT_H, OUT_W] from latent [LC, VAE_H, VAE_W]. */
static void reference(const double *latent, double *image) {
  const int top = blocks[NB - 1];
  int cmax = LC;
  for (int i = 0; i < NB; ++i)
    cmax = blocks[i] > cmax ? blocks[i] : cmax;
  const size_t big = (size_t)cmax * OUT_H * OUT_W;
  double *x = sd_alloc(big), *y = sd_alloc(big);
  int h = VAE_H, w = VAE_W;
  for (int i = 0; i < LC * h * w; ++i)
    y[i] = latent[i] / scaling_factor;
  conv(y, LC, h, w, "post_quant_conv", LC, 1, x);
  conv(x, LC, h, w, "decoder_conv_in", top, 3, y);
  resnet(y, top, top, h, w, "decoder_mid_block_resnets_0");
  attention(y, top, h, w, "decoder_mid_block_attentions_0");
  resnet(y, top, top, h, w, "decoder_mid_block_resnets_1");
  int cin = top;
  char name[160];
  for (int i = 0; i < NB; ++i) {
    const int ch = blocks[NB - 1 - i];
    for (int j = 0; j <= VAE_LAYERS; ++j) {
      snprintf(name, sizeof name, "decoder_up_blocks_%d_resnets_%d", i, j);
      resnet(y, cin, ch, h, w, name);
      cin = ch;
    }
    if (i < NB - 1) {
      for (int c = 0; c < ch; ++c)
        for (int oy = 0; oy < 2 * h; ++oy)
          for (int ox = 0; ox < 2 * w; ++ox)
            x[(c * 2 * h + oy) * 2 * w + ox] = y[(c * h + oy / 2) * w + ox / 2];
      h *= 2, w *= 2;
      snprintf(name, sizeof name, "decoder_up_blocks_%d_upsamplers_0_conv", i);
      conv(x, ch, h, w, name, ch, 3, y);
    }
  }
  group_norm(y, blocks[0], h * w, "decoder_conv_norm_out", 1, x);
  conv(x, blocks[0], h, w, "decoder_conv_out", OUT_C, 3, image);
  free(x);
  free(y);
}

/* ---- the device ---------------------------------------------------------- */

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_sd_vae SPEC...\n");
    return 2;
  }
  const kgrt_dtype_t dt = VAE_TABLE.outputs[0].dtype;
  /* f32: rounding alone; f16: each op's result rounded */
  const double bound = dt == KGRT_DTYPE_F32 ? 1e-9 : 1e-4;
  if (sd_make_weights(&VAE_TABLE) != 0) {
    fprintf(stderr, "test_sd_vae: cannot make the weights\n");
    return 1;
  }
  enum { NL = LC * VAE_H * VAE_W };
  static unsigned char latent[NL * 4];
  static double lv[NL];
  static double ref[OUT_C * OUT_H * OUT_W];
  for (int i = 0; i < NL; ++i)
    lv[i] = sd_store(dt, sd_uniform(-0.2, 0.2), latent + (size_t)i * sd_dtype_size(dt));
  reference(lv, ref);
  const sd_input_t in = {"latent", latent, (size_t)NL * sd_dtype_size(dt)};
  for (int a = 1; a < argc; ++a)
    for (int file = 0; file < 2; ++file) {
      char what[160];
      snprintf(what, sizeof what, "%s%s: image [3, %d, %d]", argv[a],
               file ? ", weights from the file" : "", OUT_H, OUT_W);
      sd_run(argv[a], &VAE_TABLE, file, NULL, 0, &in, 1, "image", ref,
             (size_t)OUT_C * OUT_H * OUT_W, bound, what);
    }
  sd_free_weights();
  return TEST_DONE();
}
