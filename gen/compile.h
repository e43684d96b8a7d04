/* compile.h - compile backends: expanded HIP source in, code object (or its
 * LLVM IR / assembly) out.
 *   comgr       compile_comgr.c  libamd_comgr via dlopen, in process (amdgcn)
 *   clang+lld   compile_clang.c  clang -x hip --offload-device-only, ld.lld (amdgcn)
 *   nvrtc       compile_nvrtc.c  libnvrtc via dlopen, in process (cuda: cubin, PTX)
 *   host cc     compile_host.c   the sim image: a host shared object
 * kg_compile_device dispatches on the target's platform: cuda targets go to
 * nvrtc; for amdgcn --compiler=auto picks comgr or clang (comgr when its ISA
 * list holds the target). It reports which one it used. */
#ifndef KG_COMPILE_H
#define KG_COMPILE_H

#include <stddef.h>

#include "buf.h"
#include "diag.h"

/* The optimisation level of amdgcn code objects (comgr and clang; a
 * target's own flags come after it and may override it). -O2, not -O3:
 * measured with clang 19 on the 32-layer Llama-3-8B models, -O3 took 29%
 * longer for gfx1100 Q4_0 (11.1 s against 8.6 s), 9% for gfx942 Q4_0 and
 * 8-24% for bf16, and gave the same code: the same vector and memory
 * instructions in 27 of 29 kernels (gfx1100 Q4_0), 21 of 29 (gfx942 Q4_0)
 * and 11-12 of 21 (bf16), the others within 2%; what else differs is s_nop
 * padding and duplicated exit paths. */
#define KG_AMDGCN_OPT "-O2"

typedef enum kg_compiler {
  KG_COMPILER_AUTO = 0,
  KG_COMPILER_COMGR,
  KG_COMPILER_CLANG,
  KG_COMPILER_NVRTC,
} kg_compiler_t;

typedef enum kg_artifact {
  KG_ARTIFACT_CODE_OBJECT = 0, /* linked executable ELF (hsaco, cubin) */
  KG_ARTIFACT_LLVM,            /* textual LLVM IR of the device code (.ll); amdgcn */
  KG_ARTIFACT_ASM,             /* AMDGPU assembly text, or PTX for cuda */
} kg_artifact_t;

typedef struct kg_compile_opts {
  const char *arch;         /* processor: "gfx1100", "sm_90" */
  const char *triple;       /* "amdgcn-amd-amdhsa", "nvptx64-nvidia-cuda" */
  const char *platform;     /* "amdgcn" (NULL means it too) or "cuda" */
  const char *const *flags; /* extra compiler flags from the target file */
  int num_flags;
  int code_object_version; /* 4, 5 (default) or 6 */
  kg_compiler_t compiler;
  const char *clang_path; /* NULL: search (see compile_clang.c) */
  int verbose;            /* -v: print the commands / comgr actions to stderr */
} kg_compile_opts_t;

/* Compiles `source` for a device target. On success fills `out` with the
 * artifact and *out_used with a description of the compiler that ran
 * ("comgr 2.4", "clang 19.1.7 (/usr/lib/llvm-19/bin/clang)" or
 * "nvrtc 13.0 (/usr/local/cuda/lib64/libnvrtc.so)"), valid until
 * the next call in the same thread; returns 0. On error *out_used is NULL and
 * `out` is left as it was. */
int kg_compile_device(const kg_compile_opts_t *opts, const char *source, size_t len,
                      kg_artifact_t what, kg_buf_t *out, const char **out_used,
                      kg_diag_t *diag);

/* Appends the description of the compiler kg_compile_device would run for
 * opts and what, with its version (what a cache key needs of it). */
void kg_compile_identity(const kg_compile_opts_t *opts, kg_artifact_t what,
                         kg_buf_t *out);

/* The backends behind kg_compile_device. */
int kg_comgr_compile(const kg_compile_opts_t *opts, const char *source, size_t len,
                     kg_artifact_t what, kg_buf_t *out, kg_diag_t *diag);
/* 1 when comgr could be loaded and lists `arch` among its ISAs, else 0;
 * *out_version (may be NULL) gets "2.4" or "not found" (valid until the next
 * call in the same thread). */
int kg_comgr_supports(const char *arch, const char **out_version);
int kg_clang_compile(const kg_compile_opts_t *opts, const char *source, size_t len,
                     kg_artifact_t what, kg_buf_t *out, kg_diag_t *diag);
/* "clang 19.1.7 (/usr/lib/llvm-19/bin/clang)" for the clang that `opts` picks,
 * or "clang (not found)"; runs clang --version. Valid until the next call in
 * the same thread. */
const char *kg_clang_describe(const kg_compile_opts_t *opts);

/* Compiles CUDA C++ for opts->arch ("sm_90") with NVRTC: the cubin, or PTX
 * for KG_ARTIFACT_ASM; KG_ARTIFACT_LLVM is an error. libnvrtc is $KGEN_NVRTC
 * when set, else the first of /usr/local/cuda/lib64/libnvrtc.so,
 * libnvrtc.so.13, libnvrtc.so.12, libnvrtc.so that loads. */
int kg_nvrtc_compile(const kg_compile_opts_t *opts, const char *source, size_t len,
                     kg_artifact_t what, kg_buf_t *out, kg_diag_t *diag);
/* "nvrtc 13.0 (/usr/local/cuda/lib64/libnvrtc.so)" or "nvrtc (not found)".
 * Valid until the next call in the same thread. */
const char *kg_nvrtc_describe(void);

/* Compiles `source` (C++ with the sim prelude) into a host shared object. */
int kg_compile_host(const char *source, size_t len, int verbose, kg_buf_t *out,
                    kg_diag_t *diag);
/* Appends "<path>: <its --version's first line>" for the host compiler
 * kg_compile_host runs, or "no host compiler". */
void kg_host_identity(kg_buf_t *out);

#endif /* KG_COMPILE_H */
