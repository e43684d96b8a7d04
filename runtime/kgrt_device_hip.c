/* kgrt_device_hip.c - the hip device: AMD GPUs through libamdhip64.
 *
 * Needs libamdhip64 at run time only: it is opened with dlopen (so.7, so.6,
 * so.5, then the unversioned name) and every entry point is resolved once
 * into one table of function pointers, so kgrt links with -ldl alone and a
 * machine without ROCm or without a GPU gets KGRT_STATUS_UNAVAILABLE and a
 * one-line message. Gives kgrt_device_hip_create.
 *
 * Per model: one module (hipModuleLoadData), its functions resolved at load,
 * and one stream that every copy and launch of the model goes through.
 * Launches pass the kernarg bytes whole through hipModuleLaunchKernel's
 * `extra` (HIP_LAUNCH_PARAM_BUFFER_POINTER / _SIZE / _END); hidden arguments,
 * if the code object declares any, are the runtime's to fill.
 *
 * The arch name: hipDeviceProp_t changed layout in ROCm 6. We never include a
 * HIP header; we pass a zeroed 4 KiB buffer (larger than either layout) and
 * read gcnArchName at the offset of the layout the entry point fills:
 *   hipGetDevicePropertiesR0600 (ROCm >= 6): offset 1160 (hipDeviceProp_tR0600:
 *     name[256], uuid[16], luid[8], ..., reserved[63], hipReserved[32], then
 *     gcnArchName[256]);
 *   hipGetDeviceProperties (ROCm 5, the R0000 layout): offset 396 (after
 *     name[256] and the fields up to `int gcnArch`; checked against ROCm 5.2's
 *     hip_runtime_api.h with offsetof).
 * R0600 is used whenever the library exports it. The name read must start
 * with "gfx" and end inside its 256 bytes, else the device is UNAVAILABLE.
 *
 * Graphs: as on cuda, a run is captured from the model's stream
 * (hipStreamBeginCapture, thread-local mode; hipStreamEndCapture;
 * hipGraphInstantiate) and replayed with hipGraphLaunch; option graphs=0, or
 * a library without these entry points, turns replay off. */
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "kgrt_comm.h"
#include "kgrt_device.h"

typedef int kgrt_hip_error_t; /* hipError_t: an int-sized enum, 0 = hipSuccess */
typedef void *kgrt_hip_module_t;
typedef void *kgrt_hip_function_t;
typedef void *kgrt_hip_stream_t;
typedef void *kgrt_hip_graph_t;
typedef void *kgrt_hip_graph_exec_t;

#define KGRT_HIP_LAUNCH_PARAM_BUFFER_POINTER ((void *)0x01)
#define KGRT_HIP_LAUNCH_PARAM_BUFFER_SIZE ((void *)0x02)
#define KGRT_HIP_LAUNCH_PARAM_END ((void *)0x03)
#define KGRT_HIP_PROPS_BYTES 4096
#define KGRT_HIP_ARCH_OFFSET_R0600 1160
#define KGRT_HIP_ARCH_OFFSET_R0000 396
#define KGRT_HIP_ARCH_NAME_BYTES 256
#define KGRT_HIP_STREAM_CAPTURE_MODE_THREAD_LOCAL 1

/* Every libamdhip64 entry point kgrt uses. */
typedef struct kgrt_hip_api {
  kgrt_hip_error_t (*hipInit)(unsigned flags);
  kgrt_hip_error_t (*hipGetDeviceCount)(int *count);
  kgrt_hip_error_t (*hipGetDeviceProperties)(void *props, int device);      /* optional */
  kgrt_hip_error_t (*hipGetDevicePropertiesR0600)(void *props, int device); /* optional */
  kgrt_hip_error_t (*hipSetDevice)(int device);
  kgrt_hip_error_t (*hipModuleLoadData)(kgrt_hip_module_t *module, const void *image);
  kgrt_hip_error_t (*hipModuleGetFunction)(kgrt_hip_function_t *function,
                                           kgrt_hip_module_t module, const char *name);
  kgrt_hip_error_t (*hipModuleLaunchKernel)(kgrt_hip_function_t f, unsigned gx,
                                            unsigned gy, unsigned gz, unsigned bx,
                                            unsigned by, unsigned bz,
                                            unsigned shared_bytes,
                                            kgrt_hip_stream_t stream, void **params,
                                            void **extra);
  kgrt_hip_error_t (*hipModuleUnload)(kgrt_hip_module_t module);
  kgrt_hip_error_t (*hipMalloc)(void **ptr, size_t bytes);
  kgrt_hip_error_t (*hipFree)(void *ptr);
  kgrt_hip_error_t (*hipMemcpyHtoDAsync)(void *dst, void *src, size_t bytes,
                                         kgrt_hip_stream_t stream);
  kgrt_hip_error_t (*hipMemcpyDtoHAsync)(void *dst, void *src, size_t bytes,
                                         kgrt_hip_stream_t stream);
  kgrt_hip_error_t (*hipStreamCreate)(kgrt_hip_stream_t *stream);
  kgrt_hip_error_t (*hipStreamSynchronize)(kgrt_hip_stream_t stream);
  kgrt_hip_error_t (*hipStreamDestroy)(kgrt_hip_stream_t stream);
  const char *(*hipGetErrorString)(kgrt_hip_error_t error);
  const char *(*hipGetErrorName)(kgrt_hip_error_t error); /* optional */
  kgrt_hip_error_t (*hipMemcpyDtoDAsync)(void *dst, void *src, size_t bytes,
                                         kgrt_hip_stream_t stream);
  /* optional: graphs */
  kgrt_hip_error_t (*hipStreamBeginCapture)(kgrt_hip_stream_t stream, int mode);
  kgrt_hip_error_t (*hipStreamEndCapture)(kgrt_hip_stream_t stream,
                                          kgrt_hip_graph_t *graph);
  kgrt_hip_error_t (*hipGraphInstantiate)(kgrt_hip_graph_exec_t *exec,
                                          kgrt_hip_graph_t graph, void *error_node,
                                          char *log, size_t log_size);
  kgrt_hip_error_t (*hipGraphLaunch)(kgrt_hip_graph_exec_t exec,
                                     kgrt_hip_stream_t stream);
  kgrt_hip_error_t (*hipGraphExecDestroy)(kgrt_hip_graph_exec_t exec);
  kgrt_hip_error_t (*hipGraphDestroy)(kgrt_hip_graph_t graph);
} kgrt_hip_api_t;

#define KGRT_HIP_SYMBOL(name, optional)                                                  \
  { #name, offsetof(kgrt_hip_api_t, name), optional }

static const kgrt_dl_symbol_t kgrt_hip_symbols[] = {
    KGRT_HIP_SYMBOL(hipInit, 0),
    KGRT_HIP_SYMBOL(hipGetDeviceCount, 0),
    KGRT_HIP_SYMBOL(hipGetDeviceProperties, 1),
    KGRT_HIP_SYMBOL(hipGetDevicePropertiesR0600, 1),
    KGRT_HIP_SYMBOL(hipSetDevice, 0),
    KGRT_HIP_SYMBOL(hipModuleLoadData, 0),
    KGRT_HIP_SYMBOL(hipModuleGetFunction, 0),
    KGRT_HIP_SYMBOL(hipModuleLaunchKernel, 0),
    KGRT_HIP_SYMBOL(hipModuleUnload, 0),
    KGRT_HIP_SYMBOL(hipMalloc, 0),
    KGRT_HIP_SYMBOL(hipFree, 0),
    KGRT_HIP_SYMBOL(hipMemcpyHtoDAsync, 0),
    KGRT_HIP_SYMBOL(hipMemcpyDtoHAsync, 0),
    KGRT_HIP_SYMBOL(hipStreamCreate, 0),
    KGRT_HIP_SYMBOL(hipStreamSynchronize, 0),
    KGRT_HIP_SYMBOL(hipStreamDestroy, 0),
    KGRT_HIP_SYMBOL(hipGetErrorString, 0),
    KGRT_HIP_SYMBOL(hipGetErrorName, 1),
    KGRT_HIP_SYMBOL(hipMemcpyDtoDAsync, 0),
    KGRT_HIP_SYMBOL(hipStreamBeginCapture, 1),
    KGRT_HIP_SYMBOL(hipStreamEndCapture, 1),
    KGRT_HIP_SYMBOL(hipGraphInstantiate, 1),
    KGRT_HIP_SYMBOL(hipGraphLaunch, 1),
    KGRT_HIP_SYMBOL(hipGraphExecDestroy, 1),
    KGRT_HIP_SYMBOL(hipGraphDestroy, 1),
};

static const char *const kgrt_hip_libraries[] = {
    "libamdhip64.so.7",
    "libamdhip64.so.6",
    "libamdhip64.so.5",
    "libamdhip64.so",
};

typedef struct kgrt_hip_device {
  kgrt_device_t base;
  void *library;
  const char *library_name;
  kgrt_hip_api_t api;
  int ordinal;
  int ctas;      /* the fewest CTAs of RCCL's collectives (option ctas=N; 0: RCCL's) */
  char arch[64]; /* gcnArchName up to the first ':' */
} kgrt_hip_device_t;

struct kgrt_device_graph {
  kgrt_hip_graph_t graph;
  kgrt_hip_graph_exec_t exec;
};

struct kgrt_device_program {
  kgrt_hip_module_t module;
  kgrt_hip_stream_t stream;
  kgrt_hip_function_t *functions; /* per kernel of the arch table */
  kgrt_comm_nccl_rank_t rank;     /* kgrt_model_join's RCCL communicator */
};

static kgrt_hip_device_t *kgrt_hip_cast(kgrt_device_t *device) {
  return (kgrt_hip_device_t *)device;
}

/* "hipErrorNoDevice" or "hipErrorX: description", as the library words it. */
static const char *kgrt_hip_describe(const kgrt_hip_api_t *api, kgrt_hip_error_t e,
                                     char *buf, size_t size) {
  const char *text = api->hipGetErrorString(e);
  const char *name = api->hipGetErrorName != NULL ? api->hipGetErrorName(e) : NULL;
  if (text == NULL)
    text = "unknown error";
  if (name != NULL && strcmp(name, text) != 0)
    snprintf(buf, size, "%s: %s", name, text);
  else
    snprintf(buf, size, "%s (%d)", text, e);
  return buf;
}

static kgrt_status_t kgrt_hip_fail(kgrt_hip_device_t *hip, kgrt_error_t *err,
                                   kgrt_status_t status, kgrt_hip_error_t e,
                                   const char *call) {
  char why[160];
  return kgrt_error_set(err, status, "hip:%d: %s failed: %s", hip->ordinal, call,
                        kgrt_hip_describe(&hip->api, e, why, sizeof why));
}

static void kgrt_hip_destroy(kgrt_device_t *device) {
  kgrt_hip_device_t *hip = kgrt_hip_cast(device);
  kgrt_allocator_t alloc = device->alloc;
  if (hip->library != NULL)
    dlclose(hip->library);
  kgrt_free(&alloc, hip);
}

static kgrt_status_t kgrt_hip_arch_select(kgrt_device_t *device,
                                          const kgrt_model_table_t *table,
                                          const kgrt_arch_table_t **out_arch,
                                          kgrt_error_t *err) {
  kgrt_hip_device_t *hip = kgrt_hip_cast(device);
  const kgrt_arch_table_t *arch = kgrt_table_find_arch(table, hip->arch);
  if (arch == NULL)
    return kgrt_error_no_matching_arch(err, table, hip->arch);
  *out_arch = arch;
  return KGRT_STATUS_OK;
}

static void kgrt_hip_program_unload(kgrt_device_t *device,
                                    kgrt_device_program_t *program) {
  kgrt_hip_device_t *hip = kgrt_hip_cast(device);
  if (program == NULL)
    return;
  if (program->stream != NULL) {
    hip->api.hipStreamSynchronize(program->stream);
    hip->api.hipStreamDestroy(program->stream);
  }
  if (program->module != NULL)
    hip->api.hipModuleUnload(program->module);
  kgrt_free(&device->alloc, program);
}

static kgrt_status_t kgrt_hip_program_load(kgrt_device_t *device,
                                           const kgrt_model_table_t *table,
                                           const kgrt_arch_table_t *arch,
                                           kgrt_device_program_t **out_program,
                                           kgrt_error_t *err) {
  kgrt_hip_device_t *hip = kgrt_hip_cast(device);
  const char *name = table->name != NULL ? table->name : "?";
  *out_program = NULL;
  void *slots;
  kgrt_device_program_t *p =
      kgrt_program_calloc(&device->alloc, sizeof *p, arch->num_kernels,
                          sizeof *p->functions, &slots, "hip", err);
  if (p == NULL)
    return KGRT_STATUS_OUT_OF_MEMORY;
  p->functions = slots;
  kgrt_status_t st = KGRT_STATUS_OK;
  kgrt_hip_error_t e = hip->api.hipSetDevice(hip->ordinal);
  if (e != 0)
    st = kgrt_hip_fail(hip, err, KGRT_STATUS_DEVICE_ERROR, e, "hipSetDevice");
  if (st == KGRT_STATUS_OK &&
      (e = hip->api.hipModuleLoadData(&p->module, arch->image)) != 0) {
    p->module = NULL;
    st = kgrt_hip_fail(hip, err, KGRT_STATUS_DEVICE_ERROR, e, "hipModuleLoadData");
  }
  for (uint32_t k = 0; st == KGRT_STATUS_OK && k < arch->num_kernels; ++k) {
    e = hip->api.hipModuleGetFunction(&p->functions[k], p->module, arch->kernels[k].name);
    if (e != 0) {
      char why[160];
      st = kgrt_error_set(err, KGRT_STATUS_MISSING_KERNEL,
                          "model %s: hip:%d: hipModuleGetFunction(%s) failed: %s", name,
                          hip->ordinal, arch->kernels[k].name,
                          kgrt_hip_describe(&hip->api, e, why, sizeof why));
    }
  }
  if (st == KGRT_STATUS_OK && (e = hip->api.hipStreamCreate(&p->stream)) != 0) {
    p->stream = NULL;
    st = kgrt_hip_fail(hip, err, KGRT_STATUS_DEVICE_ERROR, e, "hipStreamCreate");
  }
  if (st != KGRT_STATUS_OK) {
    kgrt_hip_program_unload(device, p);
    return st;
  }
  *out_program = p;
  return KGRT_STATUS_OK;
}

static kgrt_status_t kgrt_hip_buffer_alloc(kgrt_device_t *device, size_t bytes,
                                           uint64_t *out_addr, kgrt_error_t *err) {
  kgrt_hip_device_t *hip = kgrt_hip_cast(device);
  void *ptr = NULL;
  *out_addr = 0;
  kgrt_hip_error_t e = hip->api.hipSetDevice(hip->ordinal);
  if (e != 0)
    return kgrt_hip_fail(hip, err, KGRT_STATUS_DEVICE_ERROR, e, "hipSetDevice");
  e = hip->api.hipMalloc(&ptr, bytes);
  if (e != 0 || ptr == NULL) {
    char why[160];
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_MEMORY,
                          "hip:%d: hipMalloc(%zu) failed: %s", hip->ordinal, bytes,
                          kgrt_hip_describe(&hip->api, e, why, sizeof why));
  }
  *out_addr = (uint64_t)(uintptr_t)ptr;
  return KGRT_STATUS_OK;
}

static void kgrt_hip_buffer_free(kgrt_device_t *device, uint64_t addr) {
  if (addr != 0)
    kgrt_hip_cast(device)->api.hipFree((void *)(uintptr_t)addr);
}

static kgrt_status_t kgrt_hip_buffer_write(kgrt_device_t *device,
                                           kgrt_device_program_t *program, uint64_t dst,
                                           const void *src, size_t bytes,
                                           kgrt_error_t *err) {
  kgrt_hip_device_t *hip = kgrt_hip_cast(device);
  /* HIP's prototype takes a non-const source. */
  kgrt_hip_error_t e = hip->api.hipMemcpyHtoDAsync(
      (void *)(uintptr_t)dst, (void *)(uintptr_t)src, bytes, program->stream);
  if (e != 0)
    return kgrt_hip_fail(hip, err, KGRT_STATUS_DEVICE_ERROR, e, "hipMemcpyHtoDAsync");
  e = hip->api.hipStreamSynchronize(program->stream); /* the caller may reuse src */
  if (e != 0)
    return kgrt_hip_fail(hip, err, KGRT_STATUS_DEVICE_ERROR, e, "hipStreamSynchronize");
  return KGRT_STATUS_OK;
}

static kgrt_status_t kgrt_hip_buffer_read(kgrt_device_t *device,
                                          kgrt_device_program_t *program, void *dst,
                                          uint64_t src, size_t bytes, kgrt_error_t *err) {
  kgrt_hip_device_t *hip = kgrt_hip_cast(device);
  kgrt_hip_error_t e =
      hip->api.hipMemcpyDtoHAsync(dst, (void *)(uintptr_t)src, bytes, program->stream);
  if (e != 0)
    return kgrt_hip_fail(hip, err, KGRT_STATUS_DEVICE_ERROR, e, "hipMemcpyDtoHAsync");
  e = hip->api.hipStreamSynchronize(program->stream); /* also reports launch faults */
  if (e != 0)
    return kgrt_hip_fail(hip, err, KGRT_STATUS_DEVICE_ERROR, e, "hipStreamSynchronize");
  return KGRT_STATUS_OK;
}

static kgrt_status_t kgrt_hip_launch(kgrt_device_t *device,
                                     kgrt_device_program_t *program,
                                     const kgrt_device_launch_t *launch,
                                     kgrt_error_t *err) {
  kgrt_hip_device_t *hip = kgrt_hip_cast(device);
  size_t size = launch->kernarg_size;
  void *extra[] = {
      KGRT_HIP_LAUNCH_PARAM_BUFFER_POINTER,
      (void *)(uintptr_t)launch->kernarg,
      KGRT_HIP_LAUNCH_PARAM_BUFFER_SIZE,
      &size,
      KGRT_HIP_LAUNCH_PARAM_END,
  };
  kgrt_hip_error_t e = hip->api.hipModuleLaunchKernel(
      program->functions[launch->kernel], launch->grid_x, 1, 1, launch->block_x, 1, 1,
      launch->shared_bytes, program->stream, NULL, size > 0 ? extra : NULL);
  if (e != 0) {
    char why[160];
    return kgrt_error_set(err, KGRT_STATUS_DEVICE_ERROR,
                          "hip:%d: launching %s (%u x %u threads) failed: %s",
                          hip->ordinal, launch->kernel_name, launch->grid_x,
                          launch->block_x,
                          kgrt_hip_describe(&hip->api, e, why, sizeof why));
  }
  return KGRT_STATUS_OK;
}

static kgrt_status_t kgrt_hip_buffer_copy(kgrt_device_t *device,
                                          kgrt_device_program_t *program, uint64_t dst,
                                          uint64_t src, size_t bytes, kgrt_error_t *err) {
  kgrt_hip_device_t *hip = kgrt_hip_cast(device);
  kgrt_hip_error_t e = hip->api.hipMemcpyDtoDAsync(
      (void *)(uintptr_t)dst, (void *)(uintptr_t)src, bytes, program->stream);
  if (e != 0)
    return kgrt_hip_fail(hip, err, KGRT_STATUS_DEVICE_ERROR, e, "hipMemcpyDtoDAsync");
  return KGRT_STATUS_OK;
}

static kgrt_status_t kgrt_hip_graph_begin(kgrt_device_t *device,
                                          kgrt_device_program_t *program,
                                          kgrt_error_t *err) {
  kgrt_hip_device_t *hip = kgrt_hip_cast(device);
  kgrt_hip_error_t e = hip->api.hipStreamBeginCapture(
      program->stream, KGRT_HIP_STREAM_CAPTURE_MODE_THREAD_LOCAL);
  if (e != 0)
    return kgrt_hip_fail(hip, err, KGRT_STATUS_DEVICE_ERROR, e, "hipStreamBeginCapture");
  return KGRT_STATUS_OK;
}

static void kgrt_hip_graph_destroy(kgrt_device_t *device, kgrt_device_graph_t *graph) {
  kgrt_hip_device_t *hip = kgrt_hip_cast(device);
  if (graph == NULL)
    return;
  if (graph->exec != NULL)
    hip->api.hipGraphExecDestroy(graph->exec);
  if (graph->graph != NULL)
    hip->api.hipGraphDestroy(graph->graph);
  kgrt_free(&device->alloc, graph);
}

static kgrt_status_t kgrt_hip_graph_end(kgrt_device_t *device,
                                        kgrt_device_program_t *program,
                                        kgrt_device_graph_t **out_graph,
                                        kgrt_error_t *err) {
  kgrt_hip_device_t *hip = kgrt_hip_cast(device);
  *out_graph = NULL;
  kgrt_hip_graph_t captured = NULL;
  kgrt_hip_error_t e = hip->api.hipStreamEndCapture(program->stream, &captured);
  if (e != 0) {
    if (captured != NULL)
      hip->api.hipGraphDestroy(captured);
    return kgrt_hip_fail(hip, err, KGRT_STATUS_DEVICE_ERROR, e, "hipStreamEndCapture");
  }
  kgrt_device_graph_t *g = kgrt_calloc(&device->alloc, 1, sizeof *g);
  if (g == NULL) {
    hip->api.hipGraphDestroy(captured);
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_MEMORY, "hip: out of host memory");
  }
  g->graph = captured;
  if ((e = hip->api.hipGraphInstantiate(&g->exec, captured, NULL, NULL, 0)) != 0) {
    g->exec = NULL;
    kgrt_hip_graph_destroy(device, g);
    return kgrt_hip_fail(hip, err, KGRT_STATUS_DEVICE_ERROR, e, "hipGraphInstantiate");
  }
  *out_graph = g;
  return KGRT_STATUS_OK;
}

static kgrt_status_t kgrt_hip_graph_launch(kgrt_device_t *device,
                                           kgrt_device_program_t *program,
                                           kgrt_device_graph_t *graph,
                                           kgrt_error_t *err) {
  kgrt_hip_device_t *hip = kgrt_hip_cast(device);
  kgrt_hip_error_t e = hip->api.hipGraphLaunch(graph->exec, program->stream);
  if (e != 0)
    return kgrt_hip_fail(hip, err, KGRT_STATUS_DEVICE_ERROR, e, "hipGraphLaunch");
  return KGRT_STATUS_OK;
}

/* RCCL (librccl.so.1, NCCL's API), on the device and the program's stream. */
static kgrt_status_t kgrt_hip_set_device(kgrt_hip_device_t *hip, kgrt_error_t *err) {
  kgrt_hip_error_t e = hip->api.hipSetDevice(hip->ordinal);
  return e == 0 ? KGRT_STATUS_OK
                : kgrt_hip_fail(hip, err, KGRT_STATUS_DEVICE_ERROR, e, "hipSetDevice");
}

static kgrt_status_t kgrt_hip_comm_join(kgrt_device_t *device,
                                        kgrt_device_program_t *program, kgrt_comm_t *comm,
                                        uint32_t rank, kgrt_error_t *err) {
  KGRT_RETURN_IF_ERROR(kgrt_hip_set_device(kgrt_hip_cast(device), err));
  return kgrt_comm_nccl_join(comm, "librccl.so.1", rank, device->name,
                             kgrt_hip_cast(device)->ctas, &program->rank, err);
}

static void kgrt_hip_comm_leave(kgrt_device_t *device, kgrt_device_program_t *program) {
  if (kgrt_hip_set_device(kgrt_hip_cast(device), NULL) == KGRT_STATUS_OK)
    kgrt_comm_nccl_leave(&program->rank);
}

static kgrt_status_t kgrt_hip_collective(kgrt_device_t *device,
                                         kgrt_device_program_t *program,
                                         const kgrt_device_collective_t *c,
                                         kgrt_error_t *err) {
  KGRT_RETURN_IF_ERROR(kgrt_hip_set_device(kgrt_hip_cast(device), err));
  return kgrt_comm_nccl_run(&program->rank, c, (void *)program->stream, device->name,
                            err);
}

static const kgrt_device_vtable_t kgrt_hip_vtable = {
    .kind = "hip",
    .destroy = kgrt_hip_destroy,
    .arch_select = kgrt_hip_arch_select,
    .program_load = kgrt_hip_program_load,
    .program_unload = kgrt_hip_program_unload,
    .buffer_alloc = kgrt_hip_buffer_alloc,
    .buffer_free = kgrt_hip_buffer_free,
    .buffer_write = kgrt_hip_buffer_write,
    .buffer_read = kgrt_hip_buffer_read,
    .launch = kgrt_hip_launch,
    .buffer_copy = kgrt_hip_buffer_copy,
    .graph_begin = kgrt_hip_graph_begin,
    .graph_end = kgrt_hip_graph_end,
    .graph_launch = kgrt_hip_graph_launch,
    .graph_destroy = kgrt_hip_graph_destroy,
    .comm_join = kgrt_hip_comm_join,
    .comm_leave = kgrt_hip_comm_leave,
    .collective = kgrt_hip_collective,
};

/* The same device without graphs (option graphs=0, or a library without them). */
static const kgrt_device_vtable_t kgrt_hip_vtable_no_graphs = {
    .kind = "hip",
    .destroy = kgrt_hip_destroy,
    .arch_select = kgrt_hip_arch_select,
    .program_load = kgrt_hip_program_load,
    .program_unload = kgrt_hip_program_unload,
    .buffer_alloc = kgrt_hip_buffer_alloc,
    .buffer_free = kgrt_hip_buffer_free,
    .buffer_write = kgrt_hip_buffer_write,
    .buffer_read = kgrt_hip_buffer_read,
    .launch = kgrt_hip_launch,
    .buffer_copy = kgrt_hip_buffer_copy,
    .comm_join = kgrt_hip_comm_join,
    .comm_leave = kgrt_hip_comm_leave,
    .collective = kgrt_hip_collective,
};

/* dlopen and dlsym: the library and every required entry point. */
static kgrt_status_t kgrt_hip_library_open(kgrt_hip_device_t *hip, kgrt_error_t *err) {
  size_t n = sizeof kgrt_hip_libraries / sizeof kgrt_hip_libraries[0];
  for (size_t i = 0; i < n && hip->library == NULL; ++i) {
    /* NODELETE: closing the handle never unmaps the HIP runtime, whose
     * threads and atexit handlers may outlive it, and whose constructors
     * (ROCm 5.2) leak a little each time the library is mapped again. */
    hip->library = dlopen(kgrt_hip_libraries[i], RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    hip->library_name = kgrt_hip_libraries[i];
  }
  if (hip->library == NULL)
    return kgrt_error_set(
        err, KGRT_STATUS_UNAVAILABLE,
        "hip: libamdhip64 not found (tried libamdhip64.so.7, .so.6, .so.5, "
        ".so); is ROCm installed?");
  const char *missing = NULL;
  if (kgrt_dl_resolve(hip->library, kgrt_hip_symbols,
                      sizeof kgrt_hip_symbols / sizeof kgrt_hip_symbols[0], &hip->api,
                      &missing) != 0)
    return kgrt_error_set(err, KGRT_STATUS_UNAVAILABLE, "hip: %s lacks %s",
                          hip->library_name, missing);
  if (hip->api.hipGetDevicePropertiesR0600 == NULL &&
      hip->api.hipGetDeviceProperties == NULL)
    return kgrt_error_set(err, KGRT_STATUS_UNAVAILABLE,
                          "hip: %s lacks hipGetDeviceProperties", hip->library_name);
  return KGRT_STATUS_OK;
}

/* hipInit, the device count, hipSetDevice and the arch name. */
static kgrt_status_t kgrt_hip_device_init(kgrt_hip_device_t *hip, kgrt_error_t *err) {
  const kgrt_hip_api_t *api = &hip->api;
  char why[160];
  kgrt_hip_error_t init = api->hipInit(0);
  int count = 0;
  kgrt_hip_error_t e = api->hipGetDeviceCount(&count);
  if (init != 0 || e != 0 || count <= 0) {
    char why_count[160];
    return kgrt_error_set(err, KGRT_STATUS_UNAVAILABLE,
                          "hip: no AMD GPU found (%s loaded; hipInit: %s; "
                          "hipGetDeviceCount: %s, %d devices)",
                          hip->library_name,
                          kgrt_hip_describe(api, init, why, sizeof why),
                          kgrt_hip_describe(api, e, why_count, sizeof why_count), count);
  }
  if (hip->ordinal >= count)
    return kgrt_error_set(err, KGRT_STATUS_UNAVAILABLE,
                          "hip: device %d requested, %d found", hip->ordinal, count);
  if ((e = api->hipSetDevice(hip->ordinal)) != 0)
    return kgrt_hip_fail(hip, err, KGRT_STATUS_UNAVAILABLE, e, "hipSetDevice");

  unsigned char props[KGRT_HIP_PROPS_BYTES];
  size_t offset;
  memset(props, 0, sizeof props);
  if (api->hipGetDevicePropertiesR0600 != NULL) {
    e = api->hipGetDevicePropertiesR0600(props, hip->ordinal);
    offset = KGRT_HIP_ARCH_OFFSET_R0600;
  } else {
    e = api->hipGetDeviceProperties(props, hip->ordinal);
    offset = KGRT_HIP_ARCH_OFFSET_R0000;
  }
  if (e != 0)
    return kgrt_hip_fail(hip, err, KGRT_STATUS_UNAVAILABLE, e, "hipGetDeviceProperties");
  const char *gcn = (const char *)props + offset;
  size_t len = strnlen(gcn, KGRT_HIP_ARCH_NAME_BYTES);
  if (len == KGRT_HIP_ARCH_NAME_BYTES || strncmp(gcn, "gfx", 3) != 0)
    return kgrt_error_set(err, KGRT_STATUS_UNAVAILABLE,
                          "hip:%d: cannot read the arch name from %s's device properties",
                          hip->ordinal, hip->library_name);
  len = strcspn(gcn, ":"); /* "gfx90a:sramecc+:xnack-" -> "gfx90a" */
  if (len >= sizeof hip->arch)
    len = sizeof hip->arch - 1;
  memcpy(hip->arch, gcn, len);
  hip->arch[len] = '\0';
  char name[sizeof hip->base.name];
  snprintf(name, sizeof name, "hip:%d (%s)", hip->ordinal, hip->arch);
  kgrt_printable(hip->base.name, sizeof hip->base.name, name); /* driver strings */
  return KGRT_STATUS_OK;
}

kgrt_status_t kgrt_device_hip_create(const char *part, const char *options,
                                     const kgrt_allocator_t *alloc,
                                     kgrt_device_t **out_device, kgrt_error_t *err) {
  *out_device = NULL;
  const int ordinal = kgrt_spec_ordinal(part != NULL ? part : "", part != NULL);
  if (ordinal < 0)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "hip: expected hip:N with N a device number, got hip:%s", part);
  /* ctas: 0, RCCL's own choice (not measured on AMD GPUs yet; cuda's is 32) */
  uint64_t graphs = 1, ctas = 0;
  if (options != NULL && *options == '\0')
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT, "hip: empty option list");
  for (const char *s = options; s != NULL && *s != '\0';) {
    const char *at = s;
    char key[16];
    uint64_t v = KGRT_NCCL_MAX_CTAS + 1;
    const int parsed = kgrt_options_next(&s, key, sizeof key, &v) == 0;
    if (parsed && strcmp(key, "graphs") == 0 && v <= 1)
      graphs = v;
    else if (parsed && strcmp(key, "ctas") == 0 && v <= KGRT_NCCL_MAX_CTAS)
      ctas = v;
    else
      return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                            "hip: bad option '%s' (expected graphs=0|1 or ctas=0..%d)",
                            at, KGRT_NCCL_MAX_CTAS);
  }
  kgrt_hip_device_t *hip = kgrt_calloc(alloc, 1, sizeof *hip);
  if (hip == NULL)
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_MEMORY, "hip: out of host memory");
  hip->base.vtable = &kgrt_hip_vtable_no_graphs;
  if (alloc != NULL)
    hip->base.alloc = *alloc;
  hip->ordinal = ordinal;
  hip->ctas = (int)ctas;
  kgrt_status_t st = kgrt_hip_library_open(hip, err);
  if (st == KGRT_STATUS_OK)
    st = kgrt_hip_device_init(hip, err);
  if (st != KGRT_STATUS_OK) {
    kgrt_hip_destroy(&hip->base);
    return st;
  }
  const kgrt_hip_api_t *api = &hip->api;
  if (graphs && api->hipStreamBeginCapture != NULL && api->hipStreamEndCapture != NULL &&
      api->hipGraphInstantiate != NULL && api->hipGraphLaunch != NULL &&
      api->hipGraphExecDestroy != NULL && api->hipGraphDestroy != NULL) {
    hip->base.vtable = &kgrt_hip_vtable;
    hip->base.replay = 1;
  }
  *out_device = &hip->base;
  return KGRT_STATUS_OK;
}
