/* kgrt_sim.h - the sim engine (internal to kgrt): loads a sim image (a host
 * shared object kgen built from a target's kernel source, see kgrt_sim_abi.h)
 * and runs grids of it on the CPU at a chosen wave size: workgroups in
 * parallel on host threads, each workgroup's threads as fibers; barriers and
 * wave operations emulated exactly; global accesses bounds-checked. */
#ifndef KGRT_SIM_H
#define KGRT_SIM_H

#include <stddef.h>

#include "kgrt_alloc.h"

typedef struct kgrt_sim_image kgrt_sim_image_t;

/* What kgrt_sim_image_load and kgrt_sim_run return, with err filled, when
 * the host allocator said no (-1: any other failure). */
#define KGRT_SIM_NO_MEMORY (-2)

typedef void (*kgrt_sim_entry_t)(const unsigned char *kernarg,
                                 const unsigned long long *arg_bytes);

/* Loads a sim image from memory (memfd + dlopen, no file left behind) and binds
 * it to the engine (kg_sim_bind). Returns 0, or -1 (KGRT_SIM_NO_MEMORY) with
 * err filled. */
int kgrt_sim_image_load(const void *image, size_t size, const kgrt_allocator_t *alloc,
                        kgrt_sim_image_t **out_image, char *err, size_t err_size);
/* The thunk "<kernel>__sim", or NULL when the image lacks it. */
kgrt_sim_entry_t kgrt_sim_image_entry(kgrt_sim_image_t *image, const char *kernel);
void kgrt_sim_image_unload(kgrt_sim_image_t *image);

typedef struct kgrt_sim_launch {
  const char *kernel; /* for messages */
  kgrt_sim_entry_t entry;
  const unsigned char *kernarg;
  const unsigned long long *arg_bytes; /* per kernel argument */
  unsigned grid_x;
  unsigned block_x;
  unsigned wave_size; /* 32 or 64 (any power of two up to 64) */
  unsigned workers;   /* host threads; 0: one per CPU */
} kgrt_sim_launch_t;

/* Runs the grid to completion. Returns 0, or -1 (KGRT_SIM_NO_MEMORY: a worker
 * got no host memory to run on) with a one-line err such as
 * "kernel k_rms: workgroup 3 thread 17: out-of-bounds store of 4 bytes at
 * 0x7f... (buffer 0x7f..., 1024 bytes)" or "kernel k: workgroup 0: barrier
 * reached by 32 of 64 threads (threads 32..63 exited)". Of several failing
 * workgroups the lowest is reported, whatever the workers. Never hangs (unless
 * the kernel loops forever), never aborts. block_x must be 1..1024, wave_size a
 * power of two up to 64. */
int kgrt_sim_run(const kgrt_sim_launch_t *launch, const kgrt_allocator_t *alloc,
                 char *err, size_t err_size);

#endif /* KGRT_SIM_H */
