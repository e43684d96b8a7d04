/* kgrt_device_cuda.c - the cuda device: NVIDIA GPUs through the driver API.
 *
 * Needs libcuda.so.1 (the driver's library) at run time only: it is opened
 * with dlopen and every entry point is resolved once into one table of
 * function pointers, so kgrt links with -ldl alone and a machine without the
 * NVIDIA driver or without a GPU gets KGRT_STATUS_UNAVAILABLE and a one-line
 * message. No CUDA header is included: the few types and constants used are
 * declared in kgrt_cuda_api.h, matching cuda.h of CUDA 11 and later (the _v2
 * entry points are the ones cuda.h maps the plain names to). Gives
 * kgrt_device_cuda_create.
 *
 * The device holds the GPU's primary context, made current on the calling
 * thread by every call that reaches the driver (so a device may move between
 * threads, one at a time). Its arch is "sm_" and the compute capability
 * ("sm_90" for 9.0); a table arch must equal it, or be it with the
 * architecture-specific suffix ("sm_90a", taken first when the table has
 * both): a cubin's machine code runs only on the architecture it was built
 * for.
 *
 * Per model: one module (cuModuleLoadData of the cubin kgrt already checked),
 * its functions resolved at load, and one stream that every copy and launch
 * of the model goes through. Launches pass the kernarg bytes whole through
 * cuLaunchKernel's `extra` (CU_LAUNCH_PARAM_BUFFER_POINTER / _SIZE / _END):
 * the table's layout is the cubin's parameter layout (checked at load).
 *
 * Early launch: a kernel the table marks KGRT_KERNEL_EARLY_LAUNCH (it calls
 * kg_dep_wait() before it reads anything but weights) goes through
 * cuLaunchKernelEx with CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION,
 * so the GPU may start it while the kernel before it drains, on compute
 * capability 9.0 and later; cuLaunchKernelEx takes kernel parameters "in the
 * same ways" as cuLaunchKernel (cuda.h), so the same `extra`. Without
 * cuLaunchKernelEx (drivers before CUDA 11.8), on older GPUs, or with the
 * option early_launch=0 ("cuda:0,early_launch=0"), every kernel goes through
 * cuLaunchKernel: always correct, kg_dep_wait() then returns at once.
 *
 * Graphs: a run is captured from the model's stream (cuStreamBeginCapture,
 * thread-local mode; cuStreamEndCapture; cuGraphInstantiateWithFlags) and
 * replayed with cuGraphLaunch; early launches keep their programmatic edges
 * in the graph. Option graphs=0, or a driver without these entry points,
 * turns replay off. Option time_flush=0 leaves out the L2 flush before each
 * timed run (kgrt_model_time). */
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kgrt_comm.h"
#include "kgrt_cuda_api.h"
#include "kgrt_device.h"

#define KGRT_CU_SYMBOL(name)                                                             \
  { #name, offsetof(kgrt_cu_api_t, name), 0 }
#define KGRT_CU_OPTIONAL(name)                                                           \
  { #name, offsetof(kgrt_cu_api_t, name), 1 }

static const kgrt_dl_symbol_t kgrt_cu_symbols[] = {
    KGRT_CU_SYMBOL(cuInit),
    KGRT_CU_SYMBOL(cuDeviceGetCount),
    KGRT_CU_SYMBOL(cuDeviceGet),
    KGRT_CU_SYMBOL(cuDeviceGetAttribute),
    KGRT_CU_SYMBOL(cuDeviceGetName),
    KGRT_CU_SYMBOL(cuDevicePrimaryCtxRetain),
    KGRT_CU_SYMBOL(cuDevicePrimaryCtxRelease_v2),
    KGRT_CU_SYMBOL(cuCtxSetCurrent),
    KGRT_CU_SYMBOL(cuModuleLoadData),
    KGRT_CU_SYMBOL(cuModuleUnload),
    KGRT_CU_SYMBOL(cuModuleGetFunction),
    KGRT_CU_SYMBOL(cuFuncSetAttribute),
    KGRT_CU_SYMBOL(cuLaunchKernel),
    KGRT_CU_SYMBOL(cuMemAlloc_v2),
    KGRT_CU_SYMBOL(cuMemFree_v2),
    KGRT_CU_SYMBOL(cuMemcpyHtoDAsync_v2),
    KGRT_CU_SYMBOL(cuMemcpyDtoHAsync_v2),
    KGRT_CU_SYMBOL(cuStreamCreate),
    KGRT_CU_SYMBOL(cuStreamSynchronize),
    KGRT_CU_SYMBOL(cuStreamDestroy_v2),
    KGRT_CU_SYMBOL(cuMemsetD8_v2),
    KGRT_CU_SYMBOL(cuMemsetD32Async),
    KGRT_CU_SYMBOL(cuEventCreate),
    KGRT_CU_SYMBOL(cuEventRecord),
    KGRT_CU_SYMBOL(cuEventSynchronize),
    KGRT_CU_SYMBOL(cuEventElapsedTime),
    KGRT_CU_SYMBOL(cuEventDestroy_v2),
    KGRT_CU_SYMBOL(cuGetErrorName),
    KGRT_CU_SYMBOL(cuGetErrorString),
    KGRT_CU_SYMBOL(cuMemcpyDtoDAsync_v2),
    KGRT_CU_OPTIONAL(cuLaunchKernelEx),
    KGRT_CU_OPTIONAL(cuStreamBeginCapture_v2),
    KGRT_CU_OPTIONAL(cuStreamEndCapture),
    KGRT_CU_OPTIONAL(cuGraphInstantiateWithFlags),
    KGRT_CU_OPTIONAL(cuGraphLaunch),
    KGRT_CU_OPTIONAL(cuGraphExecDestroy),
    KGRT_CU_OPTIONAL(cuGraphDestroy),
    KGRT_CU_OPTIONAL(cuGraphExecUpdate_v2),
};

typedef struct kgrt_cuda_device {
  kgrt_device_t base;
  void *library;
  kgrt_cu_api_t api;
  int ordinal;
  kgrt_cu_device_t device;
  kgrt_cu_context_t context; /* the primary context, retained; NULL before */
  char arch[16];             /* "sm_90" */
  /* kernels marked KGRT_KERNEL_EARLY_LAUNCH go through cuLaunchKernelEx with
   * programmatic stream serialization: compute capability 9.0 or later, the
   * driver has cuLaunchKernelEx, and no early_launch=0 option */
  int early_launch;
  int time_flush; /* kgrt_cuda_cache_flush writes; option time_flush=0: it does not */
  int symmetric;  /* a split model's arena is an NCCL window; option symmetric=0: not */
  int ctas;       /* the fewest CTAs of NCCL's collectives (option ctas=N; 0: NCCL's) */
} kgrt_cuda_device_t;

struct kgrt_device_graph {
  kgrt_cu_graph_t graph;
  kgrt_cu_graph_exec_t exec;
};

struct kgrt_device_program {
  kgrt_cu_module_t module;
  kgrt_cu_stream_t stream;
  kgrt_cu_function_t *functions; /* per kernel of the arch table */
  kgrt_cu_event_t events[2];     /* timer start and end; created on first use */
  kgrt_cu_deviceptr_t flush;     /* kgrt_cuda_cache_flush's scratch; 0 before */
  kgrt_comm_nccl_rank_t rank;    /* kgrt_model_join's NCCL communicator */
};

static kgrt_cuda_device_t *kgrt_cuda_cast(kgrt_device_t *device) {
  return (kgrt_cuda_device_t *)device;
}

/* "CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected", as the driver
 * words it. */
static const char *kgrt_cuda_describe(const kgrt_cu_api_t *api, kgrt_cu_result_t e,
                                      char *buf, size_t size) {
  const char *name = NULL, *text = NULL;
  if (api->cuGetErrorName(e, &name) != 0)
    name = NULL;
  if (api->cuGetErrorString(e, &text) != 0)
    text = NULL;
  if (name != NULL && text != NULL)
    snprintf(buf, size, "%s: %s", name, text);
  else
    snprintf(buf, size, "CUresult %d", e);
  return buf;
}

static kgrt_status_t kgrt_cuda_fail(kgrt_cuda_device_t *cuda, kgrt_error_t *err,
                                    kgrt_status_t status, kgrt_cu_result_t e,
                                    const char *call) {
  char why[192];
  return kgrt_error_set(err, status, "cuda:%d: %s failed: %s", cuda->ordinal, call,
                        kgrt_cuda_describe(&cuda->api, e, why, sizeof why));
}

/* Makes the device's context current on this thread. */
static kgrt_status_t kgrt_cuda_bind(kgrt_cuda_device_t *cuda, kgrt_error_t *err) {
  kgrt_cu_result_t e = cuda->api.cuCtxSetCurrent(cuda->context);
  return e == 0
             ? KGRT_STATUS_OK
             : kgrt_cuda_fail(cuda, err, KGRT_STATUS_DEVICE_ERROR, e, "cuCtxSetCurrent");
}

static void kgrt_cuda_destroy(kgrt_device_t *device) {
  kgrt_cuda_device_t *cuda = kgrt_cuda_cast(device);
  kgrt_allocator_t alloc = device->alloc;
  if (cuda->context != NULL)
    cuda->api.cuDevicePrimaryCtxRelease_v2(cuda->device);
  if (cuda->library != NULL)
    dlclose(cuda->library);
  kgrt_free(&alloc, cuda);
}

static kgrt_status_t kgrt_cuda_arch_select(kgrt_device_t *device,
                                           const kgrt_model_table_t *table,
                                           const kgrt_arch_table_t **out_arch,
                                           kgrt_error_t *err) {
  kgrt_cuda_device_t *cuda = kgrt_cuda_cast(device);
  /* the architecture-specific arch first ("sm_90a": wgmma), whose cubin runs
   * on this compute capability alone, then the plain one */
  char specific[sizeof cuda->arch + 1];
  snprintf(specific, sizeof specific, "%sa", cuda->arch);
  const kgrt_arch_table_t *arch = kgrt_table_find_arch(table, specific);
  if (arch == NULL)
    arch = kgrt_table_find_arch(table, cuda->arch);
  if (arch == NULL)
    return kgrt_error_no_matching_arch(err, table, cuda->arch);
  /* Only an nvptx arch has its cubin checked before the driver sees it. */
  if (arch->triple == NULL || strncmp(arch->triple, "nvptx", 5) != 0)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "model %s: %s: triple %s is not nvptx64-nvidia-cuda",
                          table->name != NULL ? table->name : "?", arch->arch,
                          arch->triple != NULL ? arch->triple : "(none)");
  *out_arch = arch;
  return KGRT_STATUS_OK;
}

static void kgrt_cuda_program_unload(kgrt_device_t *device,
                                     kgrt_device_program_t *program) {
  kgrt_cuda_device_t *cuda = kgrt_cuda_cast(device);
  if (program == NULL)
    return;
  if (cuda->api.cuCtxSetCurrent(cuda->context) == 0) {
    for (int i = 0; i < 2; i++)
      if (program->events[i] != NULL)
        cuda->api.cuEventDestroy_v2(program->events[i]);
    if (program->stream != NULL) {
      cuda->api.cuStreamSynchronize(program->stream);
      cuda->api.cuStreamDestroy_v2(program->stream);
    }
    if (program->flush != 0)
      cuda->api.cuMemFree_v2(program->flush);
    if (program->module != NULL)
      cuda->api.cuModuleUnload(program->module);
  }
  kgrt_free(&device->alloc, program);
}

static kgrt_status_t kgrt_cuda_program_load(kgrt_device_t *device,
                                            const kgrt_model_table_t *table,
                                            const kgrt_arch_table_t *arch,
                                            kgrt_device_program_t **out_program,
                                            kgrt_error_t *err) {
  kgrt_cuda_device_t *cuda = kgrt_cuda_cast(device);
  const char *name = table->name != NULL ? table->name : "?";
  *out_program = NULL;
  void *slots;
  kgrt_device_program_t *p =
      kgrt_program_calloc(&device->alloc, sizeof *p, arch->num_kernels,
                          sizeof *p->functions, &slots, "cuda", err);
  if (p == NULL)
    return KGRT_STATUS_OUT_OF_MEMORY;
  p->functions = slots;
  kgrt_status_t st = kgrt_cuda_bind(cuda, err);
  kgrt_cu_result_t e = 0;
  if (st == KGRT_STATUS_OK &&
      (e = cuda->api.cuModuleLoadData(&p->module, arch->image)) != 0) {
    p->module = NULL;
    st = kgrt_cuda_fail(cuda, err, KGRT_STATUS_DEVICE_ERROR, e, "cuModuleLoadData");
  }
  for (uint32_t k = 0; st == KGRT_STATUS_OK && k < arch->num_kernels; ++k) {
    e = cuda->api.cuModuleGetFunction(&p->functions[k], p->module, arch->kernels[k].name);
    if (e != 0) {
      char why[192];
      st = kgrt_error_set(err, KGRT_STATUS_MISSING_KERNEL,
                          "model %s: cuda:%d: cuModuleGetFunction(%s) failed: %s", name,
                          cuda->ordinal, arch->kernels[k].name,
                          kgrt_cuda_describe(&cuda->api, e, why, sizeof why));
    }
    /* past the 48 KiB every kernel may use, the kernel opts in (up to the
     * device's limit: the driver refuses more, and says so here) */
    const uint32_t dyn = arch->kernels[k].dyn_lds_bytes;
    if (st == KGRT_STATUS_OK && dyn > 48u * 1024u &&
        (e = cuda->api.cuFuncSetAttribute(
             p->functions[k], KGRT_CU_FUNC_MAX_DYNAMIC_SHARED, (int)dyn)) != 0) {
      char why[192];
      st = kgrt_error_set(err, KGRT_STATUS_DEVICE_ERROR,
                          "model %s: cuda:%d: %s wants %u bytes of shared memory: %s",
                          name, cuda->ordinal, arch->kernels[k].name, dyn,
                          kgrt_cuda_describe(&cuda->api, e, why, sizeof why));
    }
  }
  if (st == KGRT_STATUS_OK && (e = cuda->api.cuStreamCreate(&p->stream, 0)) != 0) {
    p->stream = NULL;
    st = kgrt_cuda_fail(cuda, err, KGRT_STATUS_DEVICE_ERROR, e, "cuStreamCreate");
  }
  if (st != KGRT_STATUS_OK) {
    kgrt_cuda_program_unload(device, p);
    return st;
  }
  *out_program = p;
  return KGRT_STATUS_OK;
}

static kgrt_status_t kgrt_cuda_buffer_alloc(kgrt_device_t *device, size_t bytes,
                                            uint64_t *out_addr, kgrt_error_t *err) {
  kgrt_cuda_device_t *cuda = kgrt_cuda_cast(device);
  kgrt_cu_deviceptr_t ptr = 0;
  *out_addr = 0;
  kgrt_status_t st = kgrt_cuda_bind(cuda, err);
  if (st != KGRT_STATUS_OK)
    return st;
  /* cuMemAlloc aligns to at least 256 bytes, as the vtable asks. */
  kgrt_cu_result_t e = cuda->api.cuMemAlloc_v2(&ptr, bytes);
  if (e != 0 || ptr == 0) {
    char why[192];
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_MEMORY,
                          "cuda:%d: cuMemAlloc(%zu) failed: %s", cuda->ordinal, bytes,
                          kgrt_cuda_describe(&cuda->api, e, why, sizeof why));
  }
  /* poison: NaN in every float dtype, -1 in i32, so an element no kernel
   * writes reads back as NaN (as on the sim device) */
  e = cuda->api.cuMemsetD8_v2(ptr, 0xff, bytes);
  if (e != 0) {
    cuda->api.cuMemFree_v2(ptr);
    return kgrt_cuda_fail(cuda, err, KGRT_STATUS_DEVICE_ERROR, e, "cuMemsetD8");
  }
  *out_addr = (uint64_t)ptr;
  return KGRT_STATUS_OK;
}

static void kgrt_cuda_buffer_free(kgrt_device_t *device, uint64_t addr) {
  kgrt_cuda_device_t *cuda = kgrt_cuda_cast(device);
  if (addr != 0 && cuda->api.cuCtxSetCurrent(cuda->context) == 0)
    cuda->api.cuMemFree_v2((kgrt_cu_deviceptr_t)addr);
}

static kgrt_status_t kgrt_cuda_buffer_write(kgrt_device_t *device,
                                            kgrt_device_program_t *program, uint64_t dst,
                                            const void *src, size_t bytes,
                                            kgrt_error_t *err) {
  kgrt_cuda_device_t *cuda = kgrt_cuda_cast(device);
  kgrt_status_t st = kgrt_cuda_bind(cuda, err);
  if (st != KGRT_STATUS_OK)
    return st;
  kgrt_cu_result_t e = cuda->api.cuMemcpyHtoDAsync_v2((kgrt_cu_deviceptr_t)dst, src,
                                                      bytes, program->stream);
  if (e != 0)
    return kgrt_cuda_fail(cuda, err, KGRT_STATUS_DEVICE_ERROR, e, "cuMemcpyHtoDAsync");
  e = cuda->api.cuStreamSynchronize(program->stream); /* the caller may reuse src */
  if (e != 0)
    return kgrt_cuda_fail(cuda, err, KGRT_STATUS_DEVICE_ERROR, e, "cuStreamSynchronize");
  return KGRT_STATUS_OK;
}

static kgrt_status_t kgrt_cuda_buffer_read(kgrt_device_t *device,
                                           kgrt_device_program_t *program, void *dst,
                                           uint64_t src, size_t bytes,
                                           kgrt_error_t *err) {
  kgrt_cuda_device_t *cuda = kgrt_cuda_cast(device);
  kgrt_status_t st = kgrt_cuda_bind(cuda, err);
  if (st != KGRT_STATUS_OK)
    return st;
  kgrt_cu_result_t e = cuda->api.cuMemcpyDtoHAsync_v2(dst, (kgrt_cu_deviceptr_t)src,
                                                      bytes, program->stream);
  if (e != 0)
    return kgrt_cuda_fail(cuda, err, KGRT_STATUS_DEVICE_ERROR, e, "cuMemcpyDtoHAsync");
  e = cuda->api.cuStreamSynchronize(program->stream); /* also reports launch faults */
  if (e != 0)
    return kgrt_cuda_fail(cuda, err, KGRT_STATUS_DEVICE_ERROR, e, "cuStreamSynchronize");
  return KGRT_STATUS_OK;
}

static kgrt_status_t kgrt_cuda_launch(kgrt_device_t *device,
                                      kgrt_device_program_t *program,
                                      const kgrt_device_launch_t *launch,
                                      kgrt_error_t *err) {
  kgrt_cuda_device_t *cuda = kgrt_cuda_cast(device);
  kgrt_status_t st = kgrt_cuda_bind(cuda, err);
  if (st != KGRT_STATUS_OK)
    return st;
  size_t size = launch->kernarg_size;
  void *extra[] = {
      KGRT_CU_LAUNCH_PARAM_BUFFER_POINTER,
      (void *)(uintptr_t)launch->kernarg,
      KGRT_CU_LAUNCH_PARAM_BUFFER_SIZE,
      &size,
      KGRT_CU_LAUNCH_PARAM_END,
  };
  const int early = cuda->early_launch && (launch->flags & KGRT_KERNEL_EARLY_LAUNCH);
  /* The driver copies the parameter bytes before the launch call returns. */
  kgrt_cu_result_t e;
  if (early) {
    kgrt_cu_launch_attribute_t attr;
    memset(&attr, 0, sizeof attr);
    attr.id = KGRT_CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_SERIALIZATION;
    attr.value.programmatic_stream_serialization_allowed = 1;
    const kgrt_cu_launch_config_t config = {
        .grid_x = launch->grid_x,
        .grid_y = 1,
        .grid_z = 1,
        .block_x = launch->block_x,
        .block_y = 1,
        .block_z = 1,
        .shared_bytes = launch->shared_bytes,
        .stream = program->stream,
        .attrs = &attr,
        .num_attrs = 1,
    };
    e = cuda->api.cuLaunchKernelEx(&config, program->functions[launch->kernel], NULL,
                                   size > 0 ? extra : NULL);
  } else {
    e = cuda->api.cuLaunchKernel(program->functions[launch->kernel], launch->grid_x, 1, 1,
                                 launch->block_x, 1, 1, launch->shared_bytes,
                                 program->stream, NULL, size > 0 ? extra : NULL);
  }
  if (e != 0) {
    char why[192];
    return kgrt_error_set(err, KGRT_STATUS_DEVICE_ERROR,
                          "cuda:%d: launching %s (%u x %u threads%s) failed: %s",
                          cuda->ordinal, launch->kernel_name, launch->grid_x,
                          launch->block_x, early ? ", early launch" : "",
                          kgrt_cuda_describe(&cuda->api, e, why, sizeof why));
  }
  return KGRT_STATUS_OK;
}

#define KGRT_CUDA_TRY(x)                                                                 \
  do {                                                                                   \
    kgrt_status_t st_ = (x);                                                             \
    if (st_ != KGRT_STATUS_OK)                                                           \
      return st_;                                                                        \
  } while (0)

static kgrt_status_t kgrt_cuda_timer(kgrt_device_t *device,
                                     kgrt_device_program_t *program, int stop,
                                     double *out_us, kgrt_error_t *err) {
  kgrt_cuda_device_t *cuda = kgrt_cuda_cast(device);
  KGRT_CUDA_TRY(kgrt_cuda_bind(cuda, err));
  kgrt_cu_result_t e = 0;
  for (int i = 0; i < 2 && e == 0; i++)
    if (program->events[i] == NULL &&
        (e = cuda->api.cuEventCreate(&program->events[i], 0)))
      program->events[i] = NULL;
  if (e != 0)
    return kgrt_cuda_fail(cuda, err, KGRT_STATUS_DEVICE_ERROR, e, "cuEventCreate");
  if ((e = cuda->api.cuEventRecord(program->events[stop != 0], program->stream)) != 0)
    return kgrt_cuda_fail(cuda, err, KGRT_STATUS_DEVICE_ERROR, e, "cuEventRecord");
  if (!stop)
    return KGRT_STATUS_OK;
  float ms = 0;
  if ((e = cuda->api.cuEventSynchronize(program->events[1])) != 0)
    return kgrt_cuda_fail(cuda, err, KGRT_STATUS_DEVICE_ERROR, e, "cuEventSynchronize");
  if ((e = cuda->api.cuEventElapsedTime(&ms, program->events[0], program->events[1])) !=
      0)
    return kgrt_cuda_fail(cuda, err, KGRT_STATUS_DEVICE_ERROR, e, "cuEventElapsedTime");
  *out_us = (double)ms * 1e3;
  return KGRT_STATUS_OK;
}

/* 256 MiB of zeros, as triton.testing.do_bench writes before each timed
 * call (the peers in bench/ are timed that way): far larger than any L2 so
 * far (50 MiB on H100), and long enough (about 0.1 ms) that the launches
 * queued behind it are all queued before the device reaches them. */
#define KGRT_CUDA_FLUSH_BYTES ((size_t)256 << 20)

static kgrt_status_t kgrt_cuda_cache_flush(kgrt_device_t *device,
                                           kgrt_device_program_t *program,
                                           kgrt_error_t *err) {
  kgrt_cuda_device_t *cuda = kgrt_cuda_cast(device);
  if (!cuda->time_flush)
    return KGRT_STATUS_OK;
  KGRT_CUDA_TRY(kgrt_cuda_bind(cuda, err));
  kgrt_cu_result_t e;
  if (program->flush == 0 &&
      (e = cuda->api.cuMemAlloc_v2(&program->flush, KGRT_CUDA_FLUSH_BYTES)) != 0) {
    program->flush = 0;
    return kgrt_cuda_fail(
        cuda, err, KGRT_STATUS_OUT_OF_MEMORY, e,
        "cuMemAlloc (the 256 MiB that flush the L2 between timed runs)");
  }
  if ((e = cuda->api.cuMemsetD32Async(program->flush, 0, KGRT_CUDA_FLUSH_BYTES / 4,
                                      program->stream)) != 0)
    return kgrt_cuda_fail(cuda, err, KGRT_STATUS_DEVICE_ERROR, e, "cuMemsetD32Async");
  return KGRT_STATUS_OK;
}

static kgrt_status_t kgrt_cuda_buffer_copy(kgrt_device_t *device,
                                           kgrt_device_program_t *program, uint64_t dst,
                                           uint64_t src, size_t bytes,
                                           kgrt_error_t *err) {
  kgrt_cuda_device_t *cuda = kgrt_cuda_cast(device);
  KGRT_CUDA_TRY(kgrt_cuda_bind(cuda, err));
  kgrt_cu_result_t e = cuda->api.cuMemcpyDtoDAsync_v2(
      (kgrt_cu_deviceptr_t)dst, (kgrt_cu_deviceptr_t)src, bytes, program->stream);
  if (e != 0)
    return kgrt_cuda_fail(cuda, err, KGRT_STATUS_DEVICE_ERROR, e, "cuMemcpyDtoDAsync");
  return KGRT_STATUS_OK;
}

static kgrt_status_t kgrt_cuda_graph_begin(kgrt_device_t *device,
                                           kgrt_device_program_t *program,
                                           kgrt_error_t *err) {
  kgrt_cuda_device_t *cuda = kgrt_cuda_cast(device);
  KGRT_CUDA_TRY(kgrt_cuda_bind(cuda, err));
  kgrt_cu_result_t e = cuda->api.cuStreamBeginCapture_v2(
      program->stream, KGRT_CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
  if (e != 0)
    return kgrt_cuda_fail(cuda, err, KGRT_STATUS_DEVICE_ERROR, e, "cuStreamBeginCapture");
  return KGRT_STATUS_OK;
}

static void kgrt_cuda_graph_destroy(kgrt_device_t *device, kgrt_device_graph_t *graph) {
  kgrt_cuda_device_t *cuda = kgrt_cuda_cast(device);
  if (graph == NULL)
    return;
  if (cuda->api.cuCtxSetCurrent(cuda->context) == 0) {
    if (graph->exec != NULL)
      cuda->api.cuGraphExecDestroy(graph->exec);
    if (graph->graph != NULL)
      cuda->api.cuGraphDestroy(graph->graph);
  }
  kgrt_free(&device->alloc, graph);
}

/* Ends the program's capture: the graph it recorded into *out. */
static kgrt_status_t kgrt_cuda_end_capture(kgrt_cuda_device_t *cuda,
                                           kgrt_device_program_t *program,
                                           kgrt_cu_graph_t *out, kgrt_error_t *err) {
  KGRT_CUDA_TRY(kgrt_cuda_bind(cuda, err));
  kgrt_cu_graph_t captured = NULL;
  kgrt_cu_result_t e = cuda->api.cuStreamEndCapture(program->stream, &captured);
  if (e != 0) {
    if (captured != NULL)
      cuda->api.cuGraphDestroy(captured);
    return kgrt_cuda_fail(cuda, err, KGRT_STATUS_DEVICE_ERROR, e, "cuStreamEndCapture");
  }
  *out = captured;
  return KGRT_STATUS_OK;
}

static kgrt_status_t kgrt_cuda_graph_end(kgrt_device_t *device,
                                         kgrt_device_program_t *program,
                                         kgrt_device_graph_t **out_graph,
                                         kgrt_error_t *err) {
  kgrt_cuda_device_t *cuda = kgrt_cuda_cast(device);
  *out_graph = NULL;
  kgrt_cu_graph_t captured = NULL;
  KGRT_CUDA_TRY(kgrt_cuda_end_capture(cuda, program, &captured, err));
  kgrt_cu_result_t e;
  kgrt_device_graph_t *g = kgrt_calloc(&device->alloc, 1, sizeof *g);
  if (g == NULL) {
    cuda->api.cuGraphDestroy(captured);
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_MEMORY, "cuda: out of host memory");
  }
  g->graph = captured;
  if ((e = cuda->api.cuGraphInstantiateWithFlags(&g->exec, captured, 0)) != 0) {
    g->exec = NULL;
    kgrt_cuda_graph_destroy(device, g);
    return kgrt_cuda_fail(cuda, err, KGRT_STATUS_DEVICE_ERROR, e, "cuGraphInstantiate");
  }
  *out_graph = g;
  return KGRT_STATUS_OK;
}

/* The new capture into graph: its executable updated in place
 * (cuGraphExecUpdate: the same launches with other arguments, cheap), else
 * instantiated anew (the launches changed, or the driver cannot update). */
static kgrt_status_t kgrt_cuda_graph_update(kgrt_device_t *device,
                                            kgrt_device_program_t *program,
                                            kgrt_device_graph_t *graph,
                                            kgrt_error_t *err) {
  kgrt_cuda_device_t *cuda = kgrt_cuda_cast(device);
  kgrt_cu_graph_t captured = NULL;
  KGRT_CUDA_TRY(kgrt_cuda_end_capture(cuda, program, &captured, err));
  kgrt_cu_result_t e;
  kgrt_cu_graph_update_info_t info;
  if (cuda->api.cuGraphExecUpdate_v2 == NULL ||
      cuda->api.cuGraphExecUpdate_v2(graph->exec, captured, &info) != 0) {
    kgrt_cu_graph_exec_t exec = NULL;
    if ((e = cuda->api.cuGraphInstantiateWithFlags(&exec, captured, 0)) != 0) {
      cuda->api.cuGraphDestroy(captured);
      return kgrt_cuda_fail(cuda, err, KGRT_STATUS_DEVICE_ERROR, e, "cuGraphInstantiate");
    }
    cuda->api.cuGraphExecDestroy(graph->exec);
    graph->exec = exec;
  }
  cuda->api.cuGraphDestroy(graph->graph);
  graph->graph = captured;
  return KGRT_STATUS_OK;
}

static kgrt_status_t kgrt_cuda_graph_launch(kgrt_device_t *device,
                                            kgrt_device_program_t *program,
                                            kgrt_device_graph_t *graph,
                                            kgrt_error_t *err) {
  kgrt_cuda_device_t *cuda = kgrt_cuda_cast(device);
  KGRT_CUDA_TRY(kgrt_cuda_bind(cuda, err));
  kgrt_cu_result_t e = cuda->api.cuGraphLaunch(graph->exec, program->stream);
  if (e != 0)
    return kgrt_cuda_fail(cuda, err, KGRT_STATUS_DEVICE_ERROR, e, "cuGraphLaunch");
  return KGRT_STATUS_OK;
}

/* NCCL (libnccl.so.2), on the device's primary context and the program's
 * stream. */
static kgrt_status_t kgrt_cuda_comm_join(kgrt_device_t *device,
                                         kgrt_device_program_t *program,
                                         kgrt_comm_t *comm, uint32_t rank,
                                         kgrt_error_t *err) {
  KGRT_CUDA_TRY(kgrt_cuda_bind(kgrt_cuda_cast(device), err));
  return kgrt_comm_nccl_join(comm, "libnccl.so.2", rank, device->name,
                             kgrt_cuda_cast(device)->ctas, &program->rank, err);
}

static void kgrt_cuda_comm_leave(kgrt_device_t *device, kgrt_device_program_t *program) {
  if (kgrt_cuda_bind(kgrt_cuda_cast(device), NULL) == KGRT_STATUS_OK)
    kgrt_comm_nccl_leave(&program->rank);
}

/* The arena as NCCL's symmetric window, poisoned as buffer_alloc's memory
 * is. Option symmetric=0: none; this rank still takes part in the ranks'
 * agreement (asking for 0 bytes), so that no rank waits for it. */
static kgrt_status_t kgrt_cuda_comm_arena(kgrt_device_t *device,
                                          kgrt_device_program_t *program,
                                          kgrt_comm_t *comm, uint32_t rank, size_t bytes,
                                          uint64_t *out_addr, kgrt_error_t *err) {
  kgrt_cuda_device_t *cuda = kgrt_cuda_cast(device);
  *out_addr = 0;
  KGRT_CUDA_TRY(kgrt_cuda_bind(cuda, err));
  KGRT_RETURN_IF_ERROR(kgrt_comm_nccl_window(comm, rank, &program->rank,
                                             cuda->symmetric ? bytes : 0, device->name,
                                             out_addr, err));
  kgrt_cu_result_t e =
      cuda->api.cuMemsetD8_v2((kgrt_cu_deviceptr_t)*out_addr, 0xff, bytes);
  if (e != 0)
    return kgrt_cuda_fail(cuda, err, KGRT_STATUS_DEVICE_ERROR, e, "cuMemsetD8");
  return KGRT_STATUS_OK;
}

static kgrt_status_t kgrt_cuda_collective(kgrt_device_t *device,
                                          kgrt_device_program_t *program,
                                          const kgrt_device_collective_t *c,
                                          kgrt_error_t *err) {
  KGRT_CUDA_TRY(kgrt_cuda_bind(kgrt_cuda_cast(device), err));
  return kgrt_comm_nccl_run(&program->rank, c, (void *)program->stream, device->name,
                            err);
}

static const kgrt_device_vtable_t kgrt_cuda_vtable = {
    .kind = "cuda",
    .destroy = kgrt_cuda_destroy,
    .arch_select = kgrt_cuda_arch_select,
    .program_load = kgrt_cuda_program_load,
    .program_unload = kgrt_cuda_program_unload,
    .buffer_alloc = kgrt_cuda_buffer_alloc,
    .buffer_free = kgrt_cuda_buffer_free,
    .buffer_write = kgrt_cuda_buffer_write,
    .buffer_read = kgrt_cuda_buffer_read,
    .launch = kgrt_cuda_launch,
    .timer = kgrt_cuda_timer,
    .cache_flush = kgrt_cuda_cache_flush,
    .buffer_copy = kgrt_cuda_buffer_copy,
    .graph_begin = kgrt_cuda_graph_begin,
    .graph_end = kgrt_cuda_graph_end,
    .graph_launch = kgrt_cuda_graph_launch,
    .graph_destroy = kgrt_cuda_graph_destroy,
    .graph_update = kgrt_cuda_graph_update,
    .comm_join = kgrt_cuda_comm_join,
    .comm_leave = kgrt_cuda_comm_leave,
    .comm_arena = kgrt_cuda_comm_arena,
    .collective = kgrt_cuda_collective,
};

/* The same device without graphs (option graphs=0, or a driver without them). */
static const kgrt_device_vtable_t kgrt_cuda_vtable_no_graphs = {
    .kind = "cuda",
    .destroy = kgrt_cuda_destroy,
    .arch_select = kgrt_cuda_arch_select,
    .program_load = kgrt_cuda_program_load,
    .program_unload = kgrt_cuda_program_unload,
    .buffer_alloc = kgrt_cuda_buffer_alloc,
    .buffer_free = kgrt_cuda_buffer_free,
    .buffer_write = kgrt_cuda_buffer_write,
    .buffer_read = kgrt_cuda_buffer_read,
    .launch = kgrt_cuda_launch,
    .timer = kgrt_cuda_timer,
    .cache_flush = kgrt_cuda_cache_flush,
    .buffer_copy = kgrt_cuda_buffer_copy,
    .comm_join = kgrt_cuda_comm_join,
    .comm_leave = kgrt_cuda_comm_leave,
    .comm_arena = kgrt_cuda_comm_arena,
    .collective = kgrt_cuda_collective,
};

/* dlopen and dlsym: the driver library and every entry point. */
static kgrt_status_t kgrt_cuda_library_open(kgrt_cuda_device_t *cuda, kgrt_error_t *err) {
  /* NODELETE: closing the handle never unmaps the driver, whose threads and
   * exit handlers outlive it once cuInit has run. */
  cuda->library = dlopen(KGRT_CU_LIBRARY, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (cuda->library == NULL) {
    const char *why = dlerror();
    return kgrt_error_set(err, KGRT_STATUS_UNAVAILABLE,
                          "cuda: %s not found (dlopen: %s); is the NVIDIA driver "
                          "installed?",
                          KGRT_CU_LIBRARY, why != NULL ? why : "unknown reason");
  }
  const char *missing = NULL;
  if (kgrt_dl_resolve(cuda->library, kgrt_cu_symbols,
                      sizeof kgrt_cu_symbols / sizeof kgrt_cu_symbols[0], &cuda->api,
                      &missing) != 0)
    return kgrt_error_set(err, KGRT_STATUS_UNAVAILABLE,
                          "cuda: %s lacks %s (driver older than CUDA 11?)",
                          KGRT_CU_LIBRARY, missing);
  return KGRT_STATUS_OK;
}

/* cuInit, the device count, the device's arch and its primary context. */
static kgrt_status_t kgrt_cuda_device_init(kgrt_cuda_device_t *cuda, kgrt_error_t *err) {
  const kgrt_cu_api_t *api = &cuda->api;
  char why[192];
  kgrt_cu_result_t e = api->cuInit(0);
  if (e != 0)
    return kgrt_error_set(err, KGRT_STATUS_UNAVAILABLE,
                          "cuda: no NVIDIA GPU found (%s loaded; cuInit: %s)",
                          KGRT_CU_LIBRARY, kgrt_cuda_describe(api, e, why, sizeof why));
  int count = 0;
  e = api->cuDeviceGetCount(&count);
  if (e != 0 || count <= 0)
    return kgrt_error_set(err, KGRT_STATUS_UNAVAILABLE,
                          "cuda: no NVIDIA GPU found (%s loaded; cuDeviceGetCount: %s, "
                          "%d devices)",
                          KGRT_CU_LIBRARY, kgrt_cuda_describe(api, e, why, sizeof why),
                          count);
  if (cuda->ordinal >= count)
    return kgrt_error_set(err, KGRT_STATUS_UNAVAILABLE,
                          "cuda: device %d requested, %d found", cuda->ordinal, count);
  if ((e = api->cuDeviceGet(&cuda->device, cuda->ordinal)) != 0)
    return kgrt_cuda_fail(cuda, err, KGRT_STATUS_UNAVAILABLE, e, "cuDeviceGet");
  int major = 0, minor = 0;
  if ((e = api->cuDeviceGetAttribute(&major, KGRT_CU_ATTRIBUTE_CC_MAJOR, cuda->device)) !=
          0 ||
      (e = api->cuDeviceGetAttribute(&minor, KGRT_CU_ATTRIBUTE_CC_MINOR, cuda->device)) !=
          0)
    return kgrt_cuda_fail(cuda, err, KGRT_STATUS_UNAVAILABLE, e, "cuDeviceGetAttribute");
  if (major < 1 || major > 99 || minor < 0 || minor > 9)
    return kgrt_error_set(err, KGRT_STATUS_UNAVAILABLE,
                          "cuda:%d: compute capability %d.%d is not one kgrt can name",
                          cuda->ordinal, major, minor);
  snprintf(cuda->arch, sizeof cuda->arch, "sm_%d%d", major, minor);
  cuda->early_launch = cuda->early_launch && major >= 9 && api->cuLaunchKernelEx != NULL;
  char gpu[64];
  if (api->cuDeviceGetName(gpu, (int)sizeof gpu, cuda->device) != 0)
    gpu[0] = '\0';
  gpu[sizeof gpu - 1] = '\0';
  if ((e = api->cuDevicePrimaryCtxRetain(&cuda->context, cuda->device)) != 0) {
    cuda->context = NULL;
    return kgrt_cuda_fail(cuda, err, KGRT_STATUS_UNAVAILABLE, e,
                          "cuDevicePrimaryCtxRetain");
  }
  if ((e = api->cuCtxSetCurrent(cuda->context)) != 0)
    return kgrt_cuda_fail(cuda, err, KGRT_STATUS_UNAVAILABLE, e, "cuCtxSetCurrent");
  char name[sizeof cuda->base.name];
  snprintf(name, sizeof name, "cuda:%d (%s%s%s)", cuda->ordinal, cuda->arch,
           gpu[0] ? ", " : "", gpu);
  kgrt_printable(cuda->base.name, sizeof cuda->base.name, name); /* driver strings */
  return KGRT_STATUS_OK;
}

kgrt_status_t kgrt_device_cuda_create(const char *part, const char *options,
                                      const kgrt_allocator_t *alloc,
                                      kgrt_device_t **out_device, kgrt_error_t *err) {
  *out_device = NULL;
  const int ordinal = kgrt_spec_ordinal(part != NULL ? part : "", part != NULL);
  if (ordinal < 0)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "cuda: expected cuda:N with N a device number, got cuda:%s",
                          part);
  uint64_t early_launch = 1, time_flush = 1, graphs = 1, symmetric = 1;
  /* 32: NCCL's symmetric all_reduce of a prefill's 16 MiB took about 80 us
   * on two H200s with 32 CTAs, 108 us with its own choice (bench/results) */
  uint64_t ctas = 32;
  if (options != NULL && *options == '\0')
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT, "cuda: empty option list");
  for (const char *s = options; s != NULL && *s != '\0';) {
    const char *at = s;
    char key[16];
    uint64_t v = 2;
    const int parsed = kgrt_options_next(&s, key, sizeof key, &v) == 0;
    int ok = parsed && v <= 1;
    if (parsed && strcmp(key, "ctas") == 0 && v <= KGRT_NCCL_MAX_CTAS)
      ctas = v;
    else if (ok && strcmp(key, "early_launch") == 0)
      early_launch = v;
    else if (ok && strcmp(key, "time_flush") == 0)
      time_flush = v;
    else if (ok && strcmp(key, "graphs") == 0)
      graphs = v;
    else if (ok && strcmp(key, "symmetric") == 0)
      symmetric = v;
    else
      return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                            "cuda: bad option '%s' (expected early_launch=0|1, "
                            "time_flush=0|1, graphs=0|1, symmetric=0|1 or ctas=0..%d)",
                            at, KGRT_NCCL_MAX_CTAS);
  }
  kgrt_cuda_device_t *cuda = kgrt_calloc(alloc, 1, sizeof *cuda);
  if (cuda == NULL)
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_MEMORY, "cuda: out of host memory");
  cuda->base.vtable = &kgrt_cuda_vtable_no_graphs;
  if (alloc != NULL)
    cuda->base.alloc = *alloc;
  cuda->ordinal = ordinal;
  cuda->early_launch = (int)early_launch;
  cuda->time_flush = (int)time_flush;
  cuda->symmetric = (int)symmetric;
  cuda->ctas = (int)ctas;
  kgrt_status_t st = kgrt_cuda_library_open(cuda, err);
  if (st == KGRT_STATUS_OK)
    st = kgrt_cuda_device_init(cuda, err);
  if (st != KGRT_STATUS_OK) {
    kgrt_cuda_destroy(&cuda->base);
    return st;
  }
  const kgrt_cu_api_t *api = &cuda->api;
  if (graphs && api->cuStreamBeginCapture_v2 != NULL && api->cuStreamEndCapture != NULL &&
      api->cuGraphInstantiateWithFlags != NULL && api->cuGraphLaunch != NULL &&
      api->cuGraphExecDestroy != NULL && api->cuGraphDestroy != NULL) {
    cuda->base.vtable = &kgrt_cuda_vtable;
    cuda->base.replay = 1;
  }
  *out_device = &cuda->base;
  return KGRT_STATUS_OK;
}
