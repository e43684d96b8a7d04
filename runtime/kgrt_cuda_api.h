/* kgrt_cuda_api.h - the part of the CUDA driver API the cuda device uses,
 * declared without cuda.h (internal; kgrt_device_cuda.c alone includes it):
 * the handle types, the launch and graph structures, the constants, and
 * kgrt_cu_api_t, the table of entry points resolved from libcuda.so.1 with
 * dlopen. Types and constants match cuda.h of CUDA 11 and later; the _v2
 * entry points are the ones cuda.h maps the plain names to.
 *
 * Needs nothing but <stddef.h>; gives declarations only. */
#ifndef KGRT_CUDA_API_H
#define KGRT_CUDA_API_H

#include <stddef.h>

typedef int kgrt_cu_result_t; /* CUresult: an int-sized enum, 0 = CUDA_SUCCESS */
typedef int kgrt_cu_device_t;
typedef unsigned long long kgrt_cu_deviceptr_t; /* CUdeviceptr on 64-bit hosts */
typedef void *kgrt_cu_context_t;
typedef void *kgrt_cu_module_t;
typedef void *kgrt_cu_function_t;
typedef void *kgrt_cu_stream_t;
typedef void *kgrt_cu_event_t;
typedef void *kgrt_cu_graph_t;
typedef void *kgrt_cu_graph_exec_t;
/* CUgraphExecUpdateResultInfo */
typedef struct kgrt_cu_graph_update_info {
  int result;
  void *error_node, *error_from_node;
} kgrt_cu_graph_update_info_t;

#define KGRT_CU_LAUNCH_PARAM_END ((void *)0x00)
#define KGRT_CU_LAUNCH_PARAM_BUFFER_POINTER ((void *)0x01)
#define KGRT_CU_LAUNCH_PARAM_BUFFER_SIZE ((void *)0x02)
#define KGRT_CU_ATTRIBUTE_CC_MAJOR 75 /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR */
#define KGRT_CU_ATTRIBUTE_CC_MINOR 76 /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR */
/* CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES */
#define KGRT_CU_FUNC_MAX_DYNAMIC_SHARED 8
#define KGRT_CU_LIBRARY "libcuda.so.1"
#define KGRT_CU_STREAM_CAPTURE_MODE_THREAD_LOCAL 1

/* cuLaunchKernelEx's configuration, as cuda.h (CUDA 12 and 13) lays it out on
 * a 64-bit host: CUlaunchAttributeValue is a union padded to 64 bytes that
 * holds pointers (so 8-byte aligned), CUlaunchAttribute its 4-byte id, 4
 * bytes of padding and the value (72 bytes), CUlaunchConfig the grid, block,
 * shared bytes, stream, attributes and their count (56 bytes). */
typedef union kgrt_cu_launch_value {
  char pad[64];
  /* the value of CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION */
  int programmatic_stream_serialization_allowed;
  void *align; /* the union's alignment */
} kgrt_cu_launch_value_t;

typedef struct kgrt_cu_launch_attribute {
  int id; /* CUlaunchAttributeID */
  char pad[4];
  kgrt_cu_launch_value_t value;
} kgrt_cu_launch_attribute_t;

typedef struct kgrt_cu_launch_config {
  unsigned grid_x, grid_y, grid_z;
  unsigned block_x, block_y, block_z;
  unsigned shared_bytes;
  kgrt_cu_stream_t stream;
  kgrt_cu_launch_attribute_t *attrs;
  unsigned num_attrs;
} kgrt_cu_launch_config_t;

_Static_assert(sizeof(void *) != 8 || (sizeof(kgrt_cu_launch_attribute_t) == 72 &&
                                       offsetof(kgrt_cu_launch_attribute_t, value) == 8),
               "CUlaunchAttribute layout");
_Static_assert(sizeof(void *) != 8 ||
                   (sizeof(kgrt_cu_launch_config_t) == 56 &&
                    offsetof(kgrt_cu_launch_config_t, stream) == 32 &&
                    offsetof(kgrt_cu_launch_config_t, num_attrs) == 48),
               "CUlaunchConfig layout");

/* CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION */
#define KGRT_CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_SERIALIZATION 6

/* Every libcuda entry point kgrt uses. */
typedef struct kgrt_cu_api {
  kgrt_cu_result_t (*cuInit)(unsigned flags);
  kgrt_cu_result_t (*cuDeviceGetCount)(int *count);
  kgrt_cu_result_t (*cuDeviceGet)(kgrt_cu_device_t *device, int ordinal);
  kgrt_cu_result_t (*cuDeviceGetAttribute)(int *value, int attribute,
                                           kgrt_cu_device_t device);
  kgrt_cu_result_t (*cuDeviceGetName)(char *name, int size, kgrt_cu_device_t device);
  kgrt_cu_result_t (*cuDevicePrimaryCtxRetain)(kgrt_cu_context_t *context,
                                               kgrt_cu_device_t device);
  kgrt_cu_result_t (*cuDevicePrimaryCtxRelease_v2)(kgrt_cu_device_t device);
  kgrt_cu_result_t (*cuCtxSetCurrent)(kgrt_cu_context_t context);
  kgrt_cu_result_t (*cuModuleLoadData)(kgrt_cu_module_t *module, const void *image);
  kgrt_cu_result_t (*cuModuleUnload)(kgrt_cu_module_t module);
  kgrt_cu_result_t (*cuModuleGetFunction)(kgrt_cu_function_t *function,
                                          kgrt_cu_module_t module, const char *name);
  kgrt_cu_result_t (*cuFuncSetAttribute)(kgrt_cu_function_t f, int attribute, int value);
  kgrt_cu_result_t (*cuLaunchKernel)(kgrt_cu_function_t f, unsigned gx, unsigned gy,
                                     unsigned gz, unsigned bx, unsigned by, unsigned bz,
                                     unsigned shared_bytes, kgrt_cu_stream_t stream,
                                     void **params, void **extra);
  kgrt_cu_result_t (*cuMemAlloc_v2)(kgrt_cu_deviceptr_t *ptr, size_t bytes);
  kgrt_cu_result_t (*cuMemFree_v2)(kgrt_cu_deviceptr_t ptr);
  kgrt_cu_result_t (*cuMemcpyHtoDAsync_v2)(kgrt_cu_deviceptr_t dst, const void *src,
                                           size_t bytes, kgrt_cu_stream_t stream);
  kgrt_cu_result_t (*cuMemcpyDtoHAsync_v2)(void *dst, kgrt_cu_deviceptr_t src,
                                           size_t bytes, kgrt_cu_stream_t stream);
  kgrt_cu_result_t (*cuStreamCreate)(kgrt_cu_stream_t *stream, unsigned flags);
  kgrt_cu_result_t (*cuStreamSynchronize)(kgrt_cu_stream_t stream);
  kgrt_cu_result_t (*cuStreamDestroy_v2)(kgrt_cu_stream_t stream);
  kgrt_cu_result_t (*cuMemsetD8_v2)(kgrt_cu_deviceptr_t dst, unsigned char value,
                                    size_t bytes);
  kgrt_cu_result_t (*cuMemsetD32Async)(kgrt_cu_deviceptr_t dst, unsigned value, size_t n,
                                       kgrt_cu_stream_t stream);
  kgrt_cu_result_t (*cuEventCreate)(kgrt_cu_event_t *event, unsigned flags);
  kgrt_cu_result_t (*cuEventRecord)(kgrt_cu_event_t event, kgrt_cu_stream_t stream);
  kgrt_cu_result_t (*cuEventSynchronize)(kgrt_cu_event_t event);
  kgrt_cu_result_t (*cuEventElapsedTime)(float *ms, kgrt_cu_event_t start,
                                         kgrt_cu_event_t end);
  kgrt_cu_result_t (*cuEventDestroy_v2)(kgrt_cu_event_t event);
  kgrt_cu_result_t (*cuGetErrorName)(kgrt_cu_result_t error, const char **name);
  kgrt_cu_result_t (*cuGetErrorString)(kgrt_cu_result_t error, const char **text);
  kgrt_cu_result_t (*cuMemcpyDtoDAsync_v2)(kgrt_cu_deviceptr_t dst,
                                           kgrt_cu_deviceptr_t src, size_t bytes,
                                           kgrt_cu_stream_t stream);
  /* optional (CUDA 11.8 and later; NULL when the driver lacks it) */
  kgrt_cu_result_t (*cuLaunchKernelEx)(const kgrt_cu_launch_config_t *config,
                                       kgrt_cu_function_t f, void **params, void **extra);
  /* optional: graphs (CUDA 11.4 and later) */
  kgrt_cu_result_t (*cuStreamBeginCapture_v2)(kgrt_cu_stream_t stream, int mode);
  kgrt_cu_result_t (*cuStreamEndCapture)(kgrt_cu_stream_t stream, kgrt_cu_graph_t *graph);
  kgrt_cu_result_t (*cuGraphInstantiateWithFlags)(kgrt_cu_graph_exec_t *exec,
                                                  kgrt_cu_graph_t graph,
                                                  unsigned long long flags);
  kgrt_cu_result_t (*cuGraphLaunch)(kgrt_cu_graph_exec_t exec, kgrt_cu_stream_t stream);
  kgrt_cu_result_t (*cuGraphExecDestroy)(kgrt_cu_graph_exec_t exec);
  kgrt_cu_result_t (*cuGraphDestroy)(kgrt_cu_graph_t graph);
  kgrt_cu_result_t (*cuGraphExecUpdate_v2)(kgrt_cu_graph_exec_t exec,
                                           kgrt_cu_graph_t graph,
                                           kgrt_cu_graph_update_info_t *info);
} kgrt_cu_api_t;

#endif /* KGRT_CUDA_API_H */
