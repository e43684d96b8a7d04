/* sd_ddim.c - see sd_ddim.h. */
#include "sd_ddim.h"

#include <math.h>

int sd_ddim_init(sd_ddim_t *s, int steps) {
  if (steps < 1 || steps > SD_TRAIN_STEPS)
    return -1;
  const double lo = sqrt(0.00085), hi = sqrt(0.012);
  double prod = 1;
  for (int i = 0; i < SD_TRAIN_STEPS; ++i) {
    const double b = lo + (hi - lo) * i / (SD_TRAIN_STEPS - 1);
    prod *= 1 - b * b;
    s->alphas_cumprod[i] = prod;
  }
  const int ratio = SD_TRAIN_STEPS / steps;
  s->steps = steps;
  for (int i = 0; i < steps; ++i)
    s->timesteps[i] = (steps - 1 - i) * ratio + 1;
  return 0;
}

void sd_ddim_step(const sd_ddim_t *s, int i, const float *eps, float *x, size_t n) {
  const int t = s->timesteps[i], prev = t - SD_TRAIN_STEPS / s->steps;
  const double a = s->alphas_cumprod[t];
  const double ap = prev >= 0 ? s->alphas_cumprod[prev] : s->alphas_cumprod[0];
  for (size_t k = 0; k < n; ++k) {
    const double x0 = (x[k] - sqrt(1 - a) * eps[k]) / sqrt(a);
    x[k] = (float)(sqrt(ap) * x0 + sqrt(1 - ap) * eps[k]);
  }
}

void sd_timestep_embedding(int t, int dim, float *emb) {
  const int half = dim / 2;
  for (int k = 0; k < half; ++k) {
    const double f = exp(-log(10000.0) * k / half);
    emb[k] = (float)cos(t * f);
    emb[half + k] = (float)sin(t * f);
  }
}
