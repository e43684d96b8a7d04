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

#include "sd_test.h"

#include CLIP_HEADER

enum {
  V = CLIP_VOCAB,
  E = CLIP_HIDDEN,
  L = CLIP_LAYERS,
  H = CLIP_HEADS,
  F = CLIP_FFN,
  P = CLIP_POSITIONS,
  D = E / H
};

/* ---- the float64 reference ---------------------------------------------- */

static void layer_norm(const double *x, const double *w, const double *b, double *y,
                       int T) {
  sd_layer_norm(x, T, E, 1e-5, w, b, y);
}

static void linear(const double *x, const double *w, const double *b, double *y, int T,
                   int n, int k) {
  sd_linear(x, T, k, w, b, n, y);
}

static double act(double x) {
  return CLIP_GELU ? 0.5 * x * (1 + erf(x / sqrt(2.0))) : x / (1 + exp(-1.702 * x));
}

static void reference(const int32_t *tokens, int T, double *out) {
  static double x[P * E], h[P * E], q[P * E], k[P * E], v[P * E], a[P * E], f[P * F];
  const double *te = sd_wt("text_model_embeddings_token_embedding_weight");
  const double *pe = sd_wt("text_model_embeddings_position_embedding_weight");
  for (int t = 0; t < T; ++t)
    for (int e = 0; e < E; ++e)
      x[t * E + e] = te[tokens[t] * E + e] + pe[t * E + e];
  for (int l = 0; l < L - CLIP_SKIP; ++l) {
#define W(s) sd_wt("text_model_encoder_layers_%d_" s, l)
    layer_norm(x, W("layer_norm1_weight"), W("layer_norm1_bias"), h, T);
    linear(h, W("self_attn_q_proj_weight"), W("self_attn_q_proj_bias"), q, T, E, E);
    linear(h, W("self_attn_k_proj_weight"), W("self_attn_k_proj_bias"), k, T, E, E);
    linear(h, W("self_attn_v_proj_weight"), W("self_attn_v_proj_bias"), v, T, E, E);
    sd_attention(q, k, v, T, T, H, D, 1, a);
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
  layer_norm(x, sd_wt("text_model_final_layer_norm_weight"),
             sd_wt("text_model_final_layer_norm_bias"), out, T);
}

/* ---- the device ---------------------------------------------------------- */

static void run(const char *spec, int T, double bound) {
  static int32_t tokens[P], pos[P];
  static double ref[P * E];
  for (int i = 0; i < T; ++i) {
    tokens[i] = (int32_t)(sd_uniform(0, V - 1e-9));
    pos[i] = i;
  }
  reference(tokens, T, ref);
  const sd_input_t ins[] = {{"tokens", tokens, (size_t)T * 4},
                            {"pos", pos, (size_t)T * 4}};
  char what[160];
  snprintf(what, sizeof what, "%s T = %d: hidden", spec, T);
  sd_run(spec, &CLIP_TABLE, T == 13, "T", T, ins, 2, "hidden", ref, (size_t)T * E, bound,
         what);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_clip SPEC...\n");
    return 2;
  }
  const kgrt_dtype_t dt = CLIP_TABLE.outputs[0].dtype;
  /* f32: rounding alone; f16 / bf16: each op's result rounded */
  const double bound = dt == KGRT_DTYPE_F32 ? 1e-10 : dt == KGRT_DTYPE_F16 ? 1e-5 : 1e-3;
  if (sd_make_weights(&CLIP_TABLE) != 0) {
    fprintf(stderr, "test_clip: cannot make the weights\n");
    return 1;
  }
  const int ts[] = {1, 13, P};
  for (int a = 1; a < argc; ++a)
    for (int i = 0; i < 3; ++i)
      run(argv[a], ts[i], bound);
  sd_free_weights();
  return TEST_DONE();
}
