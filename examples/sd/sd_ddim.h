/* sd_ddim.h - the DDIM sampler as Stable Diffusion's pipelines configure it
 * (diffusers' DDIMScheduler: 1000 training steps, "scaled_linear" betas
 * from 0.00085 to 0.012, timestep spacing "leading" with steps_offset 1,
 * set_alpha_to_one false, eta 0), and the timestep's sinusoidal embedding
 * the UNet takes (get_timestep_embedding with flip_sin_to_cos, shift 0). */
#ifndef SD_DDIM_H
#define SD_DDIM_H

#include <stddef.h>

enum { SD_TRAIN_STEPS = 1000 };

typedef struct sd_ddim {
  double alphas_cumprod[SD_TRAIN_STEPS];
  int steps;
  int timesteps[SD_TRAIN_STEPS]; /* the steps' timesteps, first (noisiest) first */
} sd_ddim_t;

/* The schedule for `steps` steps (1 .. 1000); -1 otherwise. */
int sd_ddim_init(sd_ddim_t *s, int steps);

/* One step at step index i: x (n latents) from the noise prediction eps. */
void sd_ddim_step(const sd_ddim_t *s, int i, const float *eps, float *x, size_t n);

/* emb [dim] (dim even) for timestep t: cos(t f_k) for k < dim / 2, then
 * sin(t f_k), f_k = 10000^(-k / (dim / 2)). */
void sd_timestep_embedding(int t, int dim, float *emb);

#endif /* SD_DDIM_H */
