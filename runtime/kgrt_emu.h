/* kgrt_emu.h - the emu device's pieces (internal to kgrt): an AMD code
 * object loaded into device memory (kgrt_emu_load.c), device memory as one
 * region (kgrt_emu_mem.c), and the engines that run a launch: the
 * interpreter (kgrt_emu_run.c and the files it names) and a peer process
 * that runs it on another emulator (kgrt_emu_peer.c).
 *
 * A device address is a host address inside the region, as on the sim: the
 * code object's segments are mapped at region offsets (base + p_vaddr), so a
 * kernel reads its .rodata through s_getpc_b64 as on a GPU. */
#ifndef KGRT_EMU_H
#define KGRT_EMU_H

#include <stddef.h>
#include <stdint.h>

#include "kgrt_alloc.h"
#include "kgrt_device.h"

/* The device table's constructor (kgrt_emu_device.c):
 * "emu[:ARCH][,workers=N][,memory=BYTES]". */
KGRT_INTERNAL kgrt_status_t kgrt_device_emu_create(const char *part, const char *options,
                                                   const kgrt_allocator_t *alloc,
                                                   kgrt_device_t **out_device,
                                                   kgrt_error_t *err);

/* One kernel of a loaded code object: its descriptor, read. */
typedef struct kgrt_emu_kernel {
  char name[128];
  uint64_t entry;         /* the device address of its first instruction */
  uint64_t code_end;      /* one past its last instruction (its symbol's size) */
  uint32_t lds_bytes;     /* group_segment_fixed_size */
  uint32_t scratch_bytes; /* private_segment_fixed_size, per lane */
  uint32_t kernarg_size;
  uint32_t rsrc1, rsrc2, rsrc3;
  uint16_t properties;   /* kernel_code_properties */
  uint32_t wave_size;    /* 32 or 64 */
  uint32_t vgprs;        /* VGPRs a lane may use (granulated, as the descriptor grants) */
  uint32_t agprs;        /* gfx942: accumulation registers (VGPRs past accum_offset) */
  uint32_t accum_offset; /* gfx942: the first AGPR's index in the unified file */
  uint32_t sgprs;        /* SGPRs the descriptor grants */
  uint32_t user_sgprs;   /* USER_SGPR_COUNT */
  int kernarg_ptr;       /* the kernarg segment pointer is a user SGPR pair */
  int wg_id[3];          /* ENABLE_SGPR_WORKGROUP_ID_X/Y/Z */
  uint32_t vgpr_ids;     /* ENABLE_VGPR_WORKITEM_ID: 0 x, 1 xy, 2 xyz */
  uint32_t float_mode;   /* rsrc1 FLOAT_MODE: round and denorm modes */
  int ieee, dx10_clamp;
  void *code; /* the interpreter's decoded code (kgrt_emu_code_t), or NULL */
} kgrt_emu_kernel_t;

/* A code object mapped into device memory. */
typedef struct kgrt_emu_image {
  int gfx9;            /* 1: gfx9 family (gfx942, wave64, AGPRs); 0: gfx11 */
  char arch[32];       /* "gfx1100", "gfx942" */
  unsigned char *base; /* where vaddr 0 lies */
  uint64_t span;       /* bytes from base that the segments cover */
  uint64_t alloc_addr; /* the region block holding it (kgrt_emu_mem_free) */
  uint32_t num_kernels;
  kgrt_emu_kernel_t *kernels;
  void *decoder; /* the decoding session (kgrt_emu_decode.c), or NULL */
} kgrt_emu_image_t;

/* ---- device memory (kgrt_emu_mem.c) ---- */

/* One shared mapping (a memfd) that holds every buffer and the code, so that a
 * peer process can map it at the same address. Blocks of 256-byte alignment. */
typedef struct kgrt_emu_mem kgrt_emu_mem_t;

int kgrt_emu_mem_create(uint64_t bytes, const kgrt_allocator_t *alloc,
                        kgrt_emu_mem_t **out_mem, char *err, size_t err_size);
void kgrt_emu_mem_destroy(kgrt_emu_mem_t *mem);
/* A block of `bytes` (> 0), 256-aligned; 0 when the region has no room. */
uint64_t kgrt_emu_mem_alloc(kgrt_emu_mem_t *mem, uint64_t bytes);
void kgrt_emu_mem_free(kgrt_emu_mem_t *mem, uint64_t addr);
/* The region's start, size, and its memfd (for a peer). */
uint64_t kgrt_emu_mem_base(const kgrt_emu_mem_t *mem);
uint64_t kgrt_emu_mem_size(const kgrt_emu_mem_t *mem);
int kgrt_emu_mem_fd(const kgrt_emu_mem_t *mem);

/* ---- loading (kgrt_emu_load.c) ---- */

/* Maps `image` (an AMDGPU ELF, already validated by kgrt) into a block of
 * mem and reads the descriptor of each of `names`. 0, or -1 with a one-line
 * reason in err. */
int kgrt_emu_image_load(const void *image, size_t size, const char *const *names,
                        uint32_t num_names, kgrt_emu_mem_t *mem,
                        const kgrt_allocator_t *alloc, kgrt_emu_image_t *out, char *err,
                        size_t err_size);
void kgrt_emu_image_unload(kgrt_emu_image_t *img, kgrt_emu_mem_t *mem,
                           const kgrt_allocator_t *alloc);
/* Ends img's decoding session (kgrt_emu_decode.c; unloading ends it too). */
void kgrt_emu_decode_end(kgrt_emu_image_t *img, const kgrt_allocator_t *alloc);

/* ---- a launch ---- */

/* A range of device memory a launch may touch. */
typedef struct kgrt_emu_range {
  uint64_t lo, hi; /* [lo, hi) */
  int writable;
  int arg; /* the kernel argument it is, -1: kernarg segment, -2: code object */
} kgrt_emu_range_t;

typedef struct kgrt_emu_launch {
  const kgrt_emu_image_t *image;
  const kgrt_emu_kernel_t *kernel;
  uint32_t grid_x;                /* workgroups */
  uint32_t block_x;               /* lanes per workgroup */
  uint64_t kernarg;               /* device address of the kernarg segment */
  const kgrt_emu_range_t *ranges; /* sorted by lo, disjoint */
  uint32_t num_ranges;
  unsigned workers; /* host threads; 0: one per CPU */
} kgrt_emu_launch_t;

/* The initial user SGPRs of a wave of kernel k (kernel_code_properties'
 * order: private segment buffer, dispatch ptr, queue ptr, kernarg segment ptr;
 * only the kernarg pointer is given, the others read as 0) into out; returns
 * USER_SGPR_COUNT (kgrt_emu_device.c). */
uint32_t kgrt_emu_user_sgprs(const kgrt_emu_kernel_t *k, uint64_t kernarg,
                             uint32_t out[16]);

/* Runs the launch on the interpreter (kgrt_emu_run.c): workgroups on `workers`
 * host threads, each workgroup's waves interleaved between barriers. 0, or -1
 * with a one-line reason naming the workgroup, wave, program counter and
 * instruction. *out_insts: the wave-instructions executed; *out_cpu_s (when
 * not NULL): the CPU seconds its threads took. */
int kgrt_emu_run(const kgrt_emu_launch_t *launch, const kgrt_allocator_t *alloc,
                 uint64_t *out_insts, double *out_cpu_s, char *err, size_t err_size);

/* ---- the peer (kgrt_emu_peer.c) ---- */

/* A process started from the command in $KGRT_EMU_PEER that maps the region
 * and runs each launch on its own emulator (bench/emu_peer.py: tinygrad's). */
typedef struct kgrt_emu_peer kgrt_emu_peer_t;

int kgrt_emu_peer_open(const char *command, kgrt_emu_mem_t *mem, const char *arch,
                       const kgrt_allocator_t *alloc, kgrt_emu_peer_t **out_peer,
                       char *err, size_t err_size);
void kgrt_emu_peer_close(kgrt_emu_peer_t *peer);
/* Runs the launch; *out_insts: the wave-instructions it executed. */
int kgrt_emu_peer_run(kgrt_emu_peer_t *peer, const kgrt_emu_launch_t *launch,
                      uint64_t *out_insts, char *err, size_t err_size);

#endif /* KGRT_EMU_H */
