/* kgrt.h - the kgen runtime's public API.
 *
 * A product opens a device ("sim", "hip:0"), loads a kgen-generated kernel
 * table onto it (the arch matching the device is picked and its code object
 * validated before any driver sees it), sets the run-time dims, binds weights
 * and inputs, runs the launch plan and reads the outputs back.
 *
 * Conventions: every fallible call returns a kgrt_status_t and fills *err
 * (which may be NULL) with the status and a one-line message; on success *err
 * holds KGRT_STATUS_OK and an empty message. out_ parameters are set to NULL
 * first and published only on success. Memory comes from the caller's
 * allocator (NULL: malloc/free). No global state; nothing is printed; nothing
 * aborts. A device and the models loaded on it are used from one thread at a
 * time; unload every model before closing its device.
 *
 * Needs kgrt_table.h (the table layout) and kgrt_alloc.h (the allocator). Links
 * with -ldl -lpthread only: drivers are loaded with dlopen. */
#ifndef KGRT_H
#define KGRT_H

#include <stddef.h>
#include <stdint.h>

#include "kgrt_alloc.h"
#include "kgrt_table.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kgrt_status {
  KGRT_STATUS_OK = 0,
  KGRT_STATUS_INVALID_ARGUMENT,    /* bad spec, NULL argument, malformed table */
  KGRT_STATUS_UNAVAILABLE,         /* driver library or device absent */
  KGRT_STATUS_NOT_FOUND,           /* no dim, input, weight or output of that name */
  KGRT_STATUS_NO_MATCHING_ARCH,    /* the model was not built for the device's arch */
  KGRT_STATUS_INVALID_CODE_OBJECT, /* truncated, bad ELF class/machine/arch, sim image */
  KGRT_STATUS_MISSING_KERNEL,      /* a kernel of the table is not in the code object */
  KGRT_STATUS_ABI_MISMATCH,        /* table ABI, or table and code object disagree */
  KGRT_STATUS_OUT_OF_MEMORY,
  KGRT_STATUS_OUT_OF_RANGE,        /* dim beyond its max, size mismatch, size overflow */
  KGRT_STATUS_FAILED_PRECONDITION, /* dim not set, input not bound, output before run */
  KGRT_STATUS_DEVICE_ERROR,        /* a driver call or a launch failed; sim: bad access */
  KGRT_STATUS_INTERNAL,
} kgrt_status_t;

#define KGRT_ERROR_MESSAGE_MAX 512

typedef struct kgrt_error {
  kgrt_status_t status;
  char message[KGRT_ERROR_MESSAGE_MAX];
} kgrt_error_t;

/* "KGRT_STATUS_OUT_OF_RANGE" -> "OUT_OF_RANGE"; "UNKNOWN" for other values. */
const char *kgrt_status_name(kgrt_status_t status);

typedef struct kgrt_device kgrt_device_t;
typedef struct kgrt_model kgrt_model_t;

/* Opens a device. spec is a kind, an optional ":" part and comma options:
 *   "sim"              emulate the first arch of the model that has a sim image
 *   "sim:gfx942"       emulate that arch
 *   "sim:gfx1100,wave=64,workers=2"
 *                      force the wave size (a power of two up to 64) and the
 *                      number of host threads (0: one per CPU)
 *   "hip", "hip:N"     AMD GPU N (default 0) through libamdhip64
 *   "cuda", "cuda:N"   NVIDIA GPU N (default 0) through libcuda.so.1
 * The allocator is copied; it serves the device and every model on it. */
kgrt_status_t kgrt_device_open(const char *spec, const kgrt_allocator_t *alloc,
                               kgrt_device_t **out_device, kgrt_error_t *err);
/* Closes a device; NULL is ignored. Its models must be unloaded first. */
void kgrt_device_close(kgrt_device_t *device);
/* "sim", "sim:gfx1100,wave=64", "hip:0 (gfx1100)", "cuda:0 (sm_90, NVIDIA ...)". */
const char *kgrt_device_name(const kgrt_device_t *device);

/* Loads `table` onto the device. The table is not copied: it must outlive the
 * model (generated tables are static data). Picks the arch matching the
 * device, validates the table and the code object, loads the code and
 * allocates the arena and every input, weight and output buffer at the sizes
 * the dims' maxima give. */
kgrt_status_t kgrt_model_load(kgrt_device_t *device, const kgrt_model_table_t *table,
                              kgrt_model_t **out_model, kgrt_error_t *err);
/* Unloads a model and frees its buffers; NULL is ignored. */
void kgrt_model_unload(kgrt_model_t *model);
/* The arch the model runs ("gfx1100"). */
const char *kgrt_model_arch(const kgrt_model_t *model);

/* Sets a run-time dim: 1 <= value <= the dim's max. */
kgrt_status_t kgrt_model_set_dim(kgrt_model_t *model, const char *sym, int64_t value,
                                 kgrt_error_t *err);
/* The current byte size of the input, weight or output called `name` (looked
 * up in that order), with the dims as set now. A weight in a GGUF block format
 * (KGRT_DTYPE_Q8_0 ...) is its blocks as GGUF stores them: numel / block
 * weights * block bytes (kgrt_gguf.h encodes them). */
kgrt_status_t kgrt_model_tensor_bytes(const kgrt_model_t *model, const char *name,
                                      size_t *out_bytes, kgrt_error_t *err);

/* Copy host bytes into a weight or input; `bytes` must equal its current size.
 * The host memory may be reused as soon as the call returns. A tensor bound
 * while a dim it depends on had another value must be bound again. */
kgrt_status_t kgrt_model_set_weight(kgrt_model_t *model, const char *name,
                                    const void *host, size_t bytes, kgrt_error_t *err);
kgrt_status_t kgrt_model_set_input(kgrt_model_t *model, const char *name,
                                   const void *host, size_t bytes, kgrt_error_t *err);

/* Runs the launch plan. Every dim must be set and every input and weight
 * bound. Launches may complete asynchronously (hip); errors they raise are
 * reported by the next kgrt_model_get_output. */
kgrt_status_t kgrt_model_run(kgrt_model_t *model, kgrt_error_t *err);

/* Runs the plan `warmup` times, then `reps` times each between two marks on
 * the device's own clock (cuda: events on the model's stream; sim: the host
 * clock), and gives the median time of one run in microseconds. On cuda each
 * timed run is queued behind a 256 MiB write that evicts the L2, as
 * triton.testing.do_bench times its calls: the run starts cold and its
 * launches are queued before the device reaches them, so the time is the
 * device's, without the host's launch latency (KGRT_TIME_FLUSH=0 in the
 * environment leaves the flush out). Needs what kgrt_model_run needs; the
 * outputs are those of the last run. UNAVAILABLE on a device that cannot time
 * (hip for now). */
kgrt_status_t kgrt_model_time(kgrt_model_t *model, uint32_t warmup, uint32_t reps,
                              double *out_median_us, kgrt_error_t *err);

/* Waits for the plan and copies an output to the host; `bytes` must equal its
 * current size. Needs a successful run since the dims last changed. */
kgrt_status_t kgrt_model_get_output(kgrt_model_t *model, const char *name, void *host,
                                    size_t bytes, kgrt_error_t *err);

#ifdef __cplusplus
}
#endif

#endif /* KGRT_H */
