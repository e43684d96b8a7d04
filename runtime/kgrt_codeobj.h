/* kgrt_codeobj.h - reader for AMDGPU code objects (hsaco): the ELF header and
 * the AMDGPU metadata note (msgpack, code object v4+); and for NVIDIA cubins:
 * the ELF header, symbols and the .nv.info attributes ptxas writes. Shared by
 * kgen (summary table, --emit=meta, the kernel table's figures) and kgrt
 * (validation before a code object reaches a driver). No global state; memory
 * from the caller's allocator; never aborts.
 *
 * For a cubin (machine 190) the fields mean: has_symbol, a FUNC symbol of the
 * kernel's name; kernarg_size, the parameter bytes; args, each parameter's
 * offset and size (value_kind and name empty: a cubin does not say whether a
 * parameter is a pointer); vgprs, registers per thread; sgprs, agprs, spills
 * 0 (none on NVIDIA); lds_bytes, the kernel's static shared memory (as ptxas -v
 * and cuFuncGetAttribute count it: without the 1 KiB sm_90 reserves);
 * scratch_bytes, the local memory (stack) per thread: the larger of ptxas's
 * frame and its stack size with callees; wave_size 32; max_block_size from
 * __launch_bounds__ (0 when absent); symbol = name; target, meta_version and
 * code_object_version empty or 0. */
#ifndef KGRT_CODEOBJ_H
#define KGRT_CODEOBJ_H

#include <stddef.h>
#include <stdint.h>

#include "kgrt_alloc.h"

#define KGRT_CODEOBJ_NAME_MAX 128
#define KGRT_CODEOBJ_MAX_ARGS 64

typedef struct kgrt_codeobj_arg {
  char name[64];       /* .name, may be empty */
  char value_kind[32]; /* .value_kind: "global_buffer", "by_value", "hidden_..." */
  uint32_t offset;
  uint32_t size;
} kgrt_codeobj_arg_t;

typedef struct kgrt_codeobj_kernel {
  char name[KGRT_CODEOBJ_NAME_MAX];   /* .name */
  char symbol[KGRT_CODEOBJ_NAME_MAX]; /* .symbol, "<name>.kd" */
  int has_symbol;                     /* the ELF symbol table holds .symbol */
  uint32_t kernarg_size;              /* .kernarg_segment_size */
  uint32_t kernarg_align;             /* .kernarg_segment_align */
  uint32_t lds_bytes;                 /* .group_segment_fixed_size */
  uint32_t scratch_bytes;             /* .private_segment_fixed_size */
  uint32_t vgprs;                     /* .vgpr_count */
  uint32_t sgprs;                     /* .sgpr_count */
  uint32_t agprs;                     /* .agpr_count (0 when absent) */
  uint32_t vgpr_spills;               /* .vgpr_spill_count */
  uint32_t sgpr_spills;               /* .sgpr_spill_count */
  uint32_t wave_size;                 /* .wavefront_size */
  uint32_t max_block_size;            /* .max_flat_workgroup_size */
  uint64_t code_bytes;                /* size of the kernel's function symbol */
  uint32_t num_args;
  kgrt_codeobj_arg_t args[KGRT_CODEOBJ_MAX_ARGS];
} kgrt_codeobj_kernel_t;

typedef struct kgrt_codeobj {
  uint32_t machine;             /* e_machine (224 = EM_AMDGPU, 190 = EM_CUDA) */
  uint32_t abi_version;         /* EI_ABIVERSION: 2 = v4, 3 = v5, 4 = v6 */
  uint32_t code_object_version; /* 4, 5, 6 */
  char arch[32];                /* "gfx1100", from e_flags (and amdhsa.target); "sm_90" */
  char target[96];              /* amdhsa.target: "amdgcn-amd-amdhsa--gfx1100" */
  uint32_t meta_version[2];     /* amdhsa.version: {1, 2} for code object v5 */
  uint32_t num_kernels;
  kgrt_codeobj_kernel_t *kernels; /* sorted by name */
} kgrt_codeobj_t;

/* What kgrt_codeobj_parse returns, with err filled, when the allocator said
 * no (-1: any other failure). */
#define KGRT_CODEOBJ_NO_MEMORY (-2)

/* Parses `image`. On success fills *out and returns 0. On failure returns -1
 * (or KGRT_CODEOBJ_NO_MEMORY) and writes a one-line reason to err ("not an ELF file",
 * "ELF class is not 64-bit", "e_machine is 62, not AMDGPU (224)", "truncated: section
 * header table past end of file", "no AMDGPU metadata note", ...). Every offset and size
 * read from the file is checked against `size`. */
int kgrt_codeobj_parse(const void *image, size_t size, const kgrt_allocator_t *alloc,
                       kgrt_codeobj_t *out, char *err, size_t err_size);
void kgrt_codeobj_free(kgrt_codeobj_t *co, const kgrt_allocator_t *alloc);

/* Finds a kernel by name; NULL if absent. */
const kgrt_codeobj_kernel_t *kgrt_codeobj_find(const kgrt_codeobj_t *co,
                                               const char *name);

/* Writes the whole metadata note as YAML-like text ("amdhsa.kernels:" ... with
 * ".wavefront_size: 32" lines, as llvm-readelf --notes prints it) through
 * `write`. Returns 0, or -1 with err filled. kgen's (--emit=meta): defined in
 * gen/codeobj_dump.c, not in the kgrt library. */
typedef void (*kgrt_codeobj_write_fn)(void *user, const char *text, size_t len);
int kgrt_codeobj_dump_metadata(const void *image, size_t size,
                               kgrt_codeobj_write_fn write, void *user, char *err,
                               size_t err_size);

/* The gfx name for an AMDGPU e_flags mach value ("gfx942"), or NULL. */
const char *kgrt_codeobj_mach_name(uint32_t e_flags);

#endif /* KGRT_CODEOBJ_H */
