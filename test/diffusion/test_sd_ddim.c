/* test_sd_ddim.c - examples/sd's DDIM schedule and timestep embedding
 * against diffusers' numbers: SD's scaled-linear alphas_cumprod (0.99915 at
 * 0, 0.0046601 at 999: DDIMScheduler.from_pretrained of SD 1.5), the
 * "leading" timesteps with steps_offset 1 (20 steps: 951, 901, ..., 1), a
 * step that recovers x0's trajectory exactly when given the true noise
 * (eta 0: x_prev = sqrt(a_prev) x0 + sqrt(1 - a_prev) eps), the last step
 * onto alphas_cumprod[0], and get_timestep_embedding's values. */
#include <math.h>

#include "sd_ddim.h"
#include "test.h"

static int near(double a, double b, double tol) {
  return fabs(a - b) <= tol * (fabs(b) > 1 ? fabs(b) : 1);
}

int main(void) {
  static sd_ddim_t s;
  CHECK_EQ(sd_ddim_init(&s, 0), -1);
  CHECK_EQ(sd_ddim_init(&s, 1001), -1);
  CHECK_EQ(sd_ddim_init(&s, 20), 0);
  CHECK(near(s.alphas_cumprod[0], 0.99915, 1e-12));
  CHECK(near(s.alphas_cumprod[999], 0.004660098513077234, 1e-9));
  CHECK(near(s.alphas_cumprod[500], 0.2763326838229746, 1e-9));
  CHECK_EQ(s.timesteps[0], 951);
  CHECK_EQ(s.timesteps[1], 901);
  CHECK_EQ(s.timesteps[19], 1);
  CHECK_EQ(sd_ddim_init(&s, 50), 0);
  CHECK_EQ(s.timesteps[0], 981);
  CHECK_EQ(s.timesteps[49], 1);

  /* x_t made from x0 and eps; a step with that eps lands on x_prev's */
  CHECK_EQ(sd_ddim_init(&s, 20), 0);
  const float x0[3] = {0.5f, -1.25f, 2.0f}, eps[3] = {0.3f, 0.9f, -1.1f};
  for (int i = 0; i < 20; ++i) {
    const int t = s.timesteps[i], prev = t - 50;
    const double a = s.alphas_cumprod[t];
    const double ap = prev >= 0 ? s.alphas_cumprod[prev] : s.alphas_cumprod[0];
    float x[3];
    for (int k = 0; k < 3; ++k)
      x[k] = (float)(sqrt(a) * x0[k] + sqrt(1 - a) * eps[k]);
    sd_ddim_step(&s, i, eps, x, 3);
    for (int k = 0; k < 3; ++k)
      CHECK(near(x[k], sqrt(ap) * x0[k] + sqrt(1 - ap) * eps[k], 1e-5));
  }

  float e[8];
  sd_timestep_embedding(0, 8, e);
  for (int k = 0; k < 4; ++k) {
    CHECK(e[k] == 1.0f);
    CHECK(e[4 + k] == 0.0f);
  }
  sd_timestep_embedding(951, 4, e); /* f = 1, 0.01 */
  CHECK(near(e[0], cos(951.0), 1e-6));
  CHECK(near(e[1], cos(9.51), 1e-6));
  CHECK(near(e[2], sin(951.0), 1e-6));
  CHECK(near(e[3], sin(9.51), 1e-6));
  return TEST_DONE();
}
