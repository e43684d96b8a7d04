/* kgrt_sim_abi.h - the contract between a sim image and the sim device.
 *
 * kgen compiles a target's expanded kernel source for the host with
 * templates/prelude_sim.hip in place of the device prelude; this header is
 * pasted in front of it. The image exports, with C linkage:
 *   int  kg_sim_bind(const kg_sim_api_t *api);   returns KG_SIM_ABI
 *   void <kernel>__sim(const unsigned char *kernarg, const unsigned long long
 * *arg_bytes); for every kernel. A thunk reads its arguments from the kernarg bytes laid
 * out as the kernel table says (buffers: 8-byte host pointers; i64: 8 bytes)
 * and wraps each buffer with its size (arg_bytes[i], 0 for non-buffers) so every
 * global access is bounds-checked. The sim device runs each thread of a
 * workgroup as a fiber and calls the thunk on it; the api functions below act
 * on the calling fiber. Kept C-compatible and free of includes. */
#ifndef KGRT_SIM_ABI_H
#define KGRT_SIM_ABI_H

#define KG_SIM_ABI 1

typedef struct kg_sim_api {
  unsigned abi;                 /* KG_SIM_ABI */
  unsigned (*thread_idx)(void); /* threadIdx.x */
  unsigned (*block_idx)(void);  /* blockIdx.x */
  unsigned (*block_dim)(void);  /* blockDim.x */
  unsigned (*grid_dim)(void);   /* gridDim.x */
  unsigned (*lane_id)(void);    /* threadIdx.x % wave size */
  unsigned (*wave_size)(void);
  /* Workgroup barrier. A thread that exits while others wait is an error. */
  void (*barrier)(void);
  /* Every active lane of the wave passes v and gets the v of lane
   * (src % wave size), as ds_bpermute does. All lanes of the wave must call it. */
  unsigned (*shuffle)(unsigned v, unsigned src);
  /* A global access of `size` bytes at `addr` through an argument whose buffer
   * is [base, base + bytes). Out of range: reports kernel, workgroup, thread and
   * address, and does not return. */
  void (*check)(const void *base, unsigned long long bytes, const void *addr,
                unsigned long long size, int is_store);
} kg_sim_api_t;

#endif /* KGRT_SIM_ABI_H */
