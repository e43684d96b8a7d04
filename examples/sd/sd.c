/* sd.c - Stable Diffusion text to image on kgen's tables (models.clip,
 * models.sd_unet, models.sd_vae, built in with kgrt): the prompt and the
 * unconditional (negative) prompt through CLIP's tokenizer and the text
 * encoder, DDIM over the UNet with classifier-free guidance from seeded
 * Gaussian latents, the VAE decoder, and a PNG file.
 *   sd --device sim:gfx1100 --clip text_encoder.safetensors \
 *      --unet unet.safetensors --vae vae.safetensors --tokenizer tokenizer/ \
 *      --prompt "a photo of a cat" [--negative "blurry"] [--pad 49407] \
 *      [--steps 20] [--seed 0] [--guidance 7.5] -o image.png
 * The weight files are a diffusers pipeline's (text_encoder/model.safetensors,
 * unet/ and vae/diffusion_pytorch_model.safetensors), bound by name; the
 * tokenizer is its tokenizer/ folder (vocab.json, merges.txt) or a
 * tokenizer.json (sd_clip_tok.h). Each prompt is BOS, its tokens and EOS,
 * cut to the text encoder's length and padded with --pad (default: the
 * tokenizer's padding or its folder's pad_token, as SD 2.x's "!" (0), else
 * EOS, as SD 1.x). Token
 * ids instead of text: --tokens 49406,320,49407 [--uncond-tokens
 * 49406,49407] (padded with --pad, default the last id). A bad argument or
 * file is one line naming it and exit code 1; nothing is written unless the
 * image is whole. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kgrt.h"
#include "kgrt_half.h"
#include "kgrt_weights.h"
#include "sd_clip_tok.h"
#include "sd_ddim.h"
#include "sd_png.h"

#include SD_CLIP_HEADER
#include SD_UNET_HEADER
#include SD_VAE_HEADER

enum { MAX_TOKENS = 1024 };

typedef struct opts {
  const char *device, *clip, *unet, *vae, *out;
  const char *tokenizer, *prompt, *negative; /* --prompt: ids made in main */
  int32_t tokens[MAX_TOKENS], uncond[MAX_TOKENS];
  int num_tokens, num_uncond, pad, steps;
  long long seed;
  double guidance;
} opts_t;

static int usage(const char *why, const char *arg) {
  fprintf(stderr, "sd: %s%s%s\n", arg ? arg : "", arg ? ": " : "", why);
  return 1;
}

/* Comma-separated ids in 0 .. 2^31 - 1; the count, or -1. */
static int parse_ids(const char *s, int32_t *ids) {
  int n = 0;
  while (*s != '\0') {
    char *end;
    long long v = strtoll(s, &end, 10);
    if (end == s || v < 0 || v > INT32_MAX || n == MAX_TOKENS ||
        (*end != ',' && *end != '\0'))
      return -1;
    ids[n++] = (int32_t)v;
    s = *end == ',' ? end + 1 : end;
  }
  return n > 0 ? n : -1;
}

static int parse_int(const char *s, long long lo, long long hi, long long *out) {
  char *end;
  long long v = strtoll(s, &end, 10);
  if (end == s || *end != '\0' || v < lo || v > hi)
    return -1;
  *out = v;
  return 0;
}

static int parse_args(int argc, char **argv, opts_t *o) {
  memset(o, 0, sizeof *o);
  o->device = "sim:gfx1100";
  o->steps = 20;
  o->guidance = 7.5;
  o->pad = -1;
  for (int a = 1; a < argc; ++a) {
    const char *k = argv[a], *v = a + 1 < argc ? argv[a + 1] : NULL;
    long long n;
    if (v == NULL)
      return usage("needs a value", k);
    ++a;
    if (strcmp(k, "--device") == 0)
      o->device = v;
    else if (strcmp(k, "--clip") == 0)
      o->clip = v;
    else if (strcmp(k, "--unet") == 0)
      o->unet = v;
    else if (strcmp(k, "--vae") == 0)
      o->vae = v;
    else if (strcmp(k, "-o") == 0 || strcmp(k, "--out") == 0)
      o->out = v;
    else if (strcmp(k, "--tokenizer") == 0)
      o->tokenizer = v;
    else if (strcmp(k, "--prompt") == 0)
      o->prompt = v;
    else if (strcmp(k, "--negative") == 0)
      o->negative = v;
    else if (strcmp(k, "--tokens") == 0) {
      if ((o->num_tokens = parse_ids(v, o->tokens)) < 0)
        return usage("must be comma-separated token ids", k);
    } else if (strcmp(k, "--uncond-tokens") == 0) {
      if ((o->num_uncond = parse_ids(v, o->uncond)) < 0)
        return usage("must be comma-separated token ids", k);
    } else if (strcmp(k, "--pad") == 0) {
      if (parse_int(v, 0, INT32_MAX, &n) != 0)
        return usage("must be a token id", k);
      o->pad = (int)n;
    } else if (strcmp(k, "--steps") == 0) {
      if (parse_int(v, 1, SD_TRAIN_STEPS, &n) != 0)
        return usage("must be an integer from 1 to 1000", k);
      o->steps = (int)n;
    } else if (strcmp(k, "--seed") == 0) {
      if (parse_int(v, 0, INT64_MAX, &n) != 0)
        return usage("must be a non-negative integer", k);
      o->seed = n;
    } else if (strcmp(k, "--guidance") == 0) {
      char *end;
      o->guidance = strtod(v, &end);
      if (end == v || *end != '\0' || !(o->guidance >= 0 && o->guidance <= 100))
        return usage("must be a number from 0 to 100", k);
    } else {
      return usage("unknown option", k);
    }
  }
  if (o->clip == NULL || o->unet == NULL || o->vae == NULL || o->out == NULL ||
      (o->num_tokens == 0) == (o->prompt == NULL))
    return usage(
        "--clip, --unet, --vae, -o and one of --prompt and --tokens are required", NULL);
  if (o->prompt != NULL && o->tokenizer == NULL)
    return usage("needs --tokenizer (a tokenizer.json or SD's tokenizer/ folder)",
                 "--prompt");
  if ((o->tokenizer != NULL || o->negative != NULL) && o->prompt == NULL)
    return usage("needs --prompt", o->tokenizer != NULL ? "--tokenizer" : "--negative");
  if (o->num_uncond > 0 && o->prompt != NULL)
    return usage("goes with --tokens; --negative goes with --prompt", "--uncond-tokens");
  if (o->prompt != NULL)
    return 0;
  if (o->pad < 0)
    o->pad = o->tokens[o->num_tokens - 1];
  if (o->num_uncond == 0) { /* the empty prompt: the first id (BOS), then padding */
    o->uncond[0] = o->tokens[0];
    o->num_uncond = 1;
  }
  return 0;
}

/* The prompt's and the negative prompt's T ids (each padded: num_tokens =
 * num_uncond = T) by the tokenizer, whose vocabulary must fit the text
 * encoder's; the pad its padding or EOS unless --pad named one. */
static int tokenize(opts_t *o, int T, int64_t vocab) {
  sd_clip_tok_t tok;
  char why[512];
  if (sd_clip_tok_load(&tok, o->tokenizer, why, sizeof why) != 0) {
    fprintf(stderr, "sd: --tokenizer: %s\n", why);
    return -1;
  }
  if (tok.bpe.n > vocab) {
    fprintf(stderr, "sd: --tokenizer: %s has %d tokens, past the text encoder's %lld\n",
            o->tokenizer, (int)tok.bpe.n, (long long)vocab);
    sd_clip_tok_free(&tok);
    return -1;
  }
  if (o->pad < 0)
    o->pad = tok.pad >= 0 ? tok.pad : tok.bpe.eos;
  const char *flag[2] = {"--prompt", "--negative"};
  const char *text[2] = {o->prompt, o->negative != NULL ? o->negative : ""};
  int32_t *ids[2] = {o->tokens, o->uncond};
  int rc = 0;
  for (int k = 0; k < 2 && rc == 0; ++k) {
    /* once at full length, to tell when CLIP's length cuts the text */
    const int whole = sd_clip_tok_encode(&tok, text[k], strlen(text[k]), o->pad, ids[k],
                                         MAX_TOKENS, why, sizeof why);
    if (whole < 0 || sd_clip_tok_encode(&tok, text[k], strlen(text[k]), o->pad, ids[k], T,
                                        why, sizeof why) < 0) {
      fprintf(stderr, "sd: %s: %s\n", flag[k], why);
      rc = -1;
    } else if (whole > T) {
      fprintf(stderr, "sd: %s: longer than the text encoder's %d tokens: cut\n", flag[k],
              T);
    }
  }
  o->num_tokens = o->num_uncond = T;
  sd_clip_tok_free(&tok);
  return rc;
}

/* ---- models ---------------------------------------------------------------- */

static const kgrt_tensor_info_t *find(const kgrt_tensor_info_t *list, uint32_t n,
                                      const char *name) {
  for (uint32_t i = 0; i < n; ++i)
    if (strcmp(list[i].name, name) == 0)
      return &list[i];
  return NULL;
}

/* The constant elements of an input or output (0: not found). */
static size_t numel(const kgrt_tensor_info_t *t) {
  size_t n = 1;
  for (uint32_t d = 0; d < t->rank; ++d)
    n *= t->dims[d].sym < 0 ? (size_t)t->dims[d].value : 0;
  return n;
}

/* The model of `table` with the weights of the file `flag` names. */
static int load(kgrt_device_t *dev, const kgrt_model_table_t *table, const char *flag,
                const char *path, kgrt_model_t **out, kgrt_error_t *err) {
  kgrt_weights_t *w = NULL;
  if (kgrt_model_load(dev, table, out, err) != KGRT_STATUS_OK) {
    fprintf(stderr, "sd: %s\n", err->message);
    return -1;
  }
  kgrt_status_t st = kgrt_weights_open(path, NULL, &w, err);
  if (st == KGRT_STATUS_OK)
    st = kgrt_model_bind_weights(*out, w, 0, err);
  kgrt_weights_close(w);
  if (st != KGRT_STATUS_OK) {
    fprintf(stderr, "sd: %s: %s\n", flag, err->message);
    return -1;
  }
  return 0;
}

/* n floats into a float input of the model (converted to its dtype). */
static int set_floats(kgrt_model_t *m, const kgrt_model_table_t *t, const char *name,
                      const float *v, size_t n, kgrt_error_t *err) {
  const kgrt_tensor_info_t *info = find(t->inputs, t->num_inputs, name);
  if (info == NULL || info->dtype == KGRT_DTYPE_F32)
    return kgrt_model_set_input(m, name, v, n * 4, err) == KGRT_STATUS_OK ? 0 : -1;
  uint16_t *h = malloc(n * 2);
  if (h == NULL)
    return -1;
  for (size_t i = 0; i < n; ++i)
    h[i] = info->dtype == KGRT_DTYPE_F16 ? kgrt_f32_to_f16(v[i]) : kgrt_f32_to_bf16(v[i]);
  int rc = kgrt_model_set_input(m, name, h, n * 2, err) == KGRT_STATUS_OK ? 0 : -1;
  free(h);
  return rc;
}

/* n floats out of a float output. */
static int get_floats(kgrt_model_t *m, const kgrt_model_table_t *t, const char *name,
                      float *v, size_t n, kgrt_error_t *err) {
  const kgrt_tensor_info_t *info = find(t->outputs, t->num_outputs, name);
  if (info == NULL || info->dtype == KGRT_DTYPE_F32)
    return kgrt_model_get_output(m, name, v, n * 4, err) == KGRT_STATUS_OK ? 0 : -1;
  uint16_t *h = malloc(n * 2);
  if (h == NULL || kgrt_model_get_output(m, name, h, n * 2, err) != KGRT_STATUS_OK) {
    free(h);
    return -1;
  }
  for (size_t i = 0; i < n; ++i)
    v[i] = info->dtype == KGRT_DTYPE_F16 ? kgrt_f16_to_f32(h[i]) : kgrt_bf16_to_f32(h[i]);
  free(h);
  return 0;
}

/* The text states [T, E] of ids padded to T. */
static int encode(kgrt_model_t *m, const int32_t *ids, int n, int pad, int T,
                  float *states, size_t count, kgrt_error_t *err) {
  int32_t tok[MAX_TOKENS], pos[MAX_TOKENS];
  for (int i = 0; i < T; ++i) {
    tok[i] = i < n ? ids[i] : pad;
    pos[i] = i;
  }
  if (kgrt_model_set_dim(m, "T", T, err) != KGRT_STATUS_OK ||
      kgrt_model_set_input(m, "tokens", tok, (size_t)T * 4, err) != KGRT_STATUS_OK ||
      kgrt_model_set_input(m, "pos", pos, (size_t)T * 4, err) != KGRT_STATUS_OK ||
      kgrt_model_run(m, err) != KGRT_STATUS_OK)
    return -1;
  return get_floats(m, &SD_CLIP_TABLE, "hidden", states, count, err);
}

/* Standard normal draws from a seeded xorshift64* (Box-Muller). */
static void gaussian(uint64_t seed, float *x, size_t n) {
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
  for (size_t i = 0; i < n; i += 2) {
    double u[2];
    for (int k = 0; k < 2; ++k) {
      s ^= s >> 12, s ^= s << 25, s ^= s >> 27;
      u[k] = ((double)((s * 0x2545F4914F6CDD1Dull) >> 11) + 0.5) / 9007199254740992.0;
    }
    const double r = sqrt(-2 * log(u[0]));
    x[i] = (float)(r * cos(2 * M_PI * u[1]));
    if (i + 1 < n)
      x[i + 1] = (float)(r * sin(2 * M_PI * u[1]));
  }
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  opts_t o;
  if (parse_args(argc, argv, &o) != 0)
    return 1;
  const kgrt_tensor_info_t *text_in =
      find(SD_UNET_TABLE.inputs, SD_UNET_TABLE.num_inputs, "text");
  const kgrt_tensor_info_t *latent_in =
      find(SD_UNET_TABLE.inputs, SD_UNET_TABLE.num_inputs, "latent");
  const kgrt_tensor_info_t *temb_in =
      find(SD_UNET_TABLE.inputs, SD_UNET_TABLE.num_inputs, "temb");
  const kgrt_tensor_info_t *image_out =
      find(SD_VAE_TABLE.outputs, SD_VAE_TABLE.num_outputs, "image");
  const kgrt_tensor_info_t *vae_in =
      find(SD_VAE_TABLE.inputs, SD_VAE_TABLE.num_inputs, "latent");
  if (text_in == NULL || latent_in == NULL || temb_in == NULL || image_out == NULL ||
      vae_in == NULL || numel(vae_in) != numel(latent_in))
    return usage("the built-in tables are not a text encoder, UNet and VAE of one size",
                 NULL);
  const int T = (int)text_in->dims[0].value;
  const kgrt_tensor_info_t *hidden_out =
      find(SD_CLIP_TABLE.outputs, SD_CLIP_TABLE.num_outputs, "hidden");
  if (hidden_out == NULL || hidden_out->dims[1].value != text_in->dims[1].value ||
      SD_CLIP_TABLE.syms[0].max != T)
    return usage("the built-in text encoder does not fit the UNet's text input", NULL);
  if (o.num_tokens > T || o.num_uncond > T) {
    fprintf(stderr, "sd: --tokens: at most %d ids (the text encoder's length)\n", T);
    return 1;
  }
  /* ids past the vocabulary would embed as zeros: refused instead */
  const kgrt_tensor_info_t *vocab_w =
      find(SD_CLIP_TABLE.weights, SD_CLIP_TABLE.num_weights,
           "text_model_embeddings_token_embedding_weight");
  const int64_t vocab = vocab_w != NULL ? vocab_w->dims[0].value : INT32_MAX;
  if (o.prompt != NULL && tokenize(&o, T, vocab) != 0)
    return 1;
  const struct {
    const char *flag;
    const int32_t *ids;
    int n;
  } lists[] = {{"--tokens", o.tokens, o.num_tokens},
               {"--uncond-tokens", o.uncond, o.num_uncond},
               {"--pad", &o.pad, 1}};
  for (int l = 0; l < 3; ++l)
    for (int i = 0; i < lists[l].n; ++i)
      if (lists[l].ids[i] >= vocab) {
        fprintf(stderr, "sd: %s: id %d is past the text encoder's vocabulary of %lld\n",
                lists[l].flag, (int)lists[l].ids[i], (long long)vocab);
        return 1;
      }
  const size_t ntext = numel(text_in), nlat = numel(latent_in), ntemb = numel(temb_in),
               nimg = numel(image_out);
  const int H = (int)image_out->dims[2].value, W = (int)image_out->dims[3].value;
  float *cond = malloc(ntext * 4), *uncond = malloc(ntext * 4), *lat = malloc(nlat * 4),
        *eu = malloc(nlat * 4), *ec = malloc(nlat * 4), *temb = malloc(ntemb * 4),
        *img = malloc(nimg * 4);
  unsigned char *rgb = malloc((size_t)H * W * 3);
  kgrt_error_t err = {0};
  kgrt_device_t *dev = NULL;
  kgrt_model_t *clip = NULL, *unet = NULL, *vae = NULL;
  int rc = 1;
  sd_ddim_t sched;
  char why[512];
  if (!cond || !uncond || !lat || !eu || !ec || !temb || !img || !rgb) {
    fprintf(stderr, "sd: out of host memory\n");
    goto done;
  }
  if (kgrt_device_open(o.device, NULL, &dev, &err) != KGRT_STATUS_OK) {
    fprintf(stderr, "sd: --device: %s\n", err.message);
    goto done;
  }
  if (load(dev, &SD_CLIP_TABLE, "--clip", o.clip, &clip, &err) != 0 ||
      load(dev, &SD_UNET_TABLE, "--unet", o.unet, &unet, &err) != 0 ||
      load(dev, &SD_VAE_TABLE, "--vae", o.vae, &vae, &err) != 0)
    goto done;
  const double t0 = now_s();
  if (encode(clip, o.tokens, o.num_tokens, o.pad, T, cond, ntext, &err) != 0 ||
      encode(clip, o.uncond, o.num_uncond, o.pad, T, uncond, ntext, &err) != 0) {
    fprintf(stderr, "sd: the text encoder: %s\n", err.message);
    goto done;
  }
  sd_ddim_init(&sched, o.steps);
  gaussian((uint64_t)o.seed, lat, nlat);
  const double t1 = now_s();
  for (int i = 0; i < o.steps; ++i) {
    sd_timestep_embedding(sched.timesteps[i], (int)ntemb, temb);
    for (int pass = 0; pass < 2; ++pass)
      if (set_floats(unet, &SD_UNET_TABLE, "latent", lat, nlat, &err) != 0 ||
          set_floats(unet, &SD_UNET_TABLE, "temb", temb, ntemb, &err) != 0 ||
          set_floats(unet, &SD_UNET_TABLE, "text", pass ? cond : uncond, ntext, &err) !=
              0 ||
          kgrt_model_run(unet, &err) != KGRT_STATUS_OK ||
          get_floats(unet, &SD_UNET_TABLE, "noise", pass ? ec : eu, nlat, &err) != 0) {
        fprintf(stderr, "sd: the UNet, step %d: %s\n", i + 1, err.message);
        goto done;
      }
    for (size_t k = 0; k < nlat; ++k)
      ec[k] = (float)(eu[k] + o.guidance * (ec[k] - eu[k]));
    sd_ddim_step(&sched, i, ec, lat, nlat);
    fprintf(stderr, "\rsd: step %d/%d (t = %d)", i + 1, o.steps, sched.timesteps[i]);
  }
  fputc('\n', stderr);
  const double t2 = now_s();
  if (set_floats(vae, &SD_VAE_TABLE, "latent", lat, nlat, &err) != 0 ||
      kgrt_model_run(vae, &err) != KGRT_STATUS_OK ||
      get_floats(vae, &SD_VAE_TABLE, "image", img, nimg, &err) != 0) {
    fprintf(stderr, "sd: the VAE decoder: %s\n", err.message);
    goto done;
  }
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x)
      for (int c = 0; c < 3; ++c) {
        double v = img[((size_t)c * H + y) * W + x] * 0.5 + 0.5;
        v = v < 0 ? 0 : v > 1 ? 1 : v;
        rgb[((size_t)y * W + x) * 3 + c] = (unsigned char)lrint(v * 255);
      }
  if (sd_png_write(o.out, rgb, W, H, why, sizeof why) != 0) {
    fprintf(stderr, "sd: %s\n", why);
    goto done;
  }
  const double t3 = now_s();
  printf("sd: %s: %d x %d, %d steps (%.3f s a step, 2 UNet runs each), text %.3f s, "
         "decode %.3f s, seed %lld, guidance %g\n",
         o.out, W, H, o.steps, (t2 - t1) / o.steps, t1 - t0, t3 - t2, o.seed, o.guidance);
  rc = 0;
done:
  kgrt_model_unload(clip);
  kgrt_model_unload(unet);
  kgrt_model_unload(vae);
  kgrt_device_close(dev);
  free(cond), free(uncond), free(lat), free(eu), free(ec), free(temb), free(img),
      free(rgb);
  return rc;
}
