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
 *   "sim:gfx1100,wave=64,workers=2,memory=1048576"
 *                      force the wave size (a power of two up to 64), the
 *                      number of host threads (0: one per CPU) and a device
 *                      memory size (bytes of buffers live at once)
 *   "hip", "hip:N"     AMD GPU N (default 0) through libamdhip64
 *   "cuda", "cuda:N"   NVIDIA GPU N (default 0) through libcuda.so.1
 *   "cuda:0,early_launch=0,time_flush=0"
 *                      no programmatic early launch; no L2 flush before each
 *                      run kgrt_model_time times
 *   any device ",graphs=0": no graph replay (see kgrt_model_set_replay)
 * Options come from the spec alone: kgrt reads no environment variable.
 * The allocator is copied; it serves the device and every model on it, and
 * the sim device's worker threads call it at once: it must be thread-safe. */
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

/* The device memory a model takes, in bytes, every dim at its max: what
 * kgrt_model_load allocates (total = arena + inputs + weights + outputs;
 * state, the part of those kept across runs, is counted in them too). */
typedef struct kgrt_memory {
  uint64_t total;
  uint64_t arena;  /* the plan's values, with the alignment it asks for */
  uint64_t inputs; /* including state inputs (KV caches) */
  uint64_t weights;
  uint64_t outputs;
  uint64_t state; /* state inputs and the arena's state (arena_zero_bytes) */
} kgrt_memory_t;

/* Fills *out_memory for `table` on `device` (the arch it would pick) without
 * allocating anything on the device; checks the table as load does, up to
 * the code object. A load that finds too little device memory fails with
 * KGRT_STATUS_OUT_OF_MEMORY and a message with this total. */
kgrt_status_t kgrt_model_memory(kgrt_device_t *device, const kgrt_model_table_t *table,
                                kgrt_memory_t *out_memory, kgrt_error_t *err);
/* What a loaded model holds on its device now: as kgrt_model_memory, but a
 * pipeline's rank (joined) counts only the inputs and weights its own steps
 * read, the ones it allocated (before it joins: none of them). */
void kgrt_model_held_memory(const kgrt_model_t *model, kgrt_memory_t *out_memory);

/* State: the inputs a table marks KGRT_TENSOR_STATE (KV caches an op updates
 * in place) and the values kernels keep in the arena across runs. They are
 * zeroed at load and live on the device until unload; this zeroes them again
 * (a new sequence). */
kgrt_status_t kgrt_model_reset_state(kgrt_model_t *model, kgrt_error_t *err);

/* Sets a run-time dim: 1 <= value <= the dim's max (0 <= value for a count,
 * KGRT_SYM_COUNT). */
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

/* Graph replay (cuda and hip graphs; the sim records and replays its
 * launches): kgrt_model_run captures the plan's launches at the dims set now
 * once, then replays them while the dims stay the same, and captures anew
 * when they change. On by default where the device has graphs and was not
 * opened with graphs=0; `replay` 0 turns it off for this model (launches go
 * one by one), 1 on again (UNAVAILABLE where the device has none). */
kgrt_status_t kgrt_model_set_replay(kgrt_model_t *model, int replay, kgrt_error_t *err);
/* 1 when kgrt_model_run replays graphs, else 0. */
int kgrt_model_replay(const kgrt_model_t *model);

/* A device-resident loop. kgrt_model_link: between two steps of
 * kgrt_model_run_steps, output `output` is copied into input `input` on the
 * device (same dtype and rank; equal bytes at the dims of the step that ran):
 * the sampled token, the next position. kgrt_model_step_dim: between two
 * steps, `delta` is added to dim `sym` (the context length, +1 per token).
 * Linking an input again replaces its link; kgrt_model_clear_links drops
 * every link and dim step. */
kgrt_status_t kgrt_model_link(kgrt_model_t *model, const char *output, const char *input,
                              kgrt_error_t *err);
kgrt_status_t kgrt_model_step_dim(kgrt_model_t *model, const char *sym, int64_t delta,
                                  kgrt_error_t *err);
void kgrt_model_clear_links(kgrt_model_t *model);

/* Runs `steps` steps of the plan with the links and dim steps applied
 * between them on the device, reading nothing back but, when `collect` names
 * an output, that output of every step, into `host` (steps x its bytes, which
 * `bytes` must equal) with one copy at the end. Every dim must stay in range
 * through the last step (checked first: OUT_OF_RANGE). The outputs are then
 * those of the last step, the dims its dims. A following call goes on where
 * this one stopped (the links and steps apply before its first step), unless
 * kgrt_model_run, _set_dim, _set_input, _link, _step_dim or _clear_links
 * came in between. Where dims step, runs launch one by one (a graph would be
 * captured anew each step); else they replay as kgrt_model_run does. */
kgrt_status_t kgrt_model_run_steps(kgrt_model_t *model, uint32_t steps,
                                   const char *collect, void *host, size_t bytes,
                                   kgrt_error_t *err);

/* One plan step, profiled. */
typedef struct kgrt_step_profile {
  uint32_t step;
  const char *kernel; /* the kernel's name (the table's string) */
  int launched;       /* 0: skipped at these dims (no units, or not selected) */
  uint32_t workgroups;
  double us; /* device time of the launch, median over the reps */
  /* the bytes its buffer arguments span at these dims, or where the op
   * knows it touches fewer (a KV cache: one layer's keys of the context; the
   * decode attention's parts), those */
  uint64_t bytes;
} kgrt_step_profile_t;

/* Runs the whole plan `reps` times, launch by launch, each launch between
 * two marks on the device's clock (cuda: events; sim: the host clock), and
 * fills out[0 .. num_steps) in plan order; *out_count = the plan's steps
 * (OUT_OF_RANGE when `capacity` is smaller). `bytes` over `us` is a step's
 * bandwidth: a product divides by the device's to place it on a roofline.
 * Needs what kgrt_model_run needs; the outputs are those of the last run.
 * UNAVAILABLE on a device that cannot time (hip for now). */
kgrt_status_t kgrt_model_profile(kgrt_model_t *model, uint32_t reps,
                                 kgrt_step_profile_t *out, uint32_t capacity,
                                 uint32_t *out_count, kgrt_error_t *err);

/* Runs the plan `warmup` times, then `reps` times each between two marks on
 * the device's own clock (cuda: events on the model's stream; sim: the host
 * clock), and gives the median time of one run in microseconds. On cuda each
 * timed run is queued behind a 256 MiB write that evicts the L2, as
 * triton.testing.do_bench times its calls: the run starts cold and its
 * launches are queued before the device reaches them, so the time is the
 * device's, without the host's launch latency (the device option
 * time_flush=0 leaves the flush out). Needs what kgrt_model_run needs; the
 * outputs are those of the last run. UNAVAILABLE on a device that cannot time
 * (hip for now). */
kgrt_status_t kgrt_model_time(kgrt_model_t *model, uint32_t warmup, uint32_t reps,
                              double *out_median_us, kgrt_error_t *err);

/* Waits for the plan and copies an output to the host; `bytes` must equal its
 * current size. Needs a successful run since the dims last changed. */
kgrt_status_t kgrt_model_get_output(kgrt_model_t *model, const char *name, void *host,
                                    size_t bytes, kgrt_error_t *err);

/* ---- the caller's device memory (runtime/kgrt_external.c) -------------------
 *
 * An input or an output may live in memory the caller owns on the model's
 * device (a PyTorch tensor on the GPU): runs then read that input from it and
 * write that output into it, with no copy. `ptr` is a device pointer of the
 * model's GPU (cuda: in the GPU's primary context, where the CUDA runtime and
 * PyTorch allocate; hip: hipMalloc'd), or host memory on the sim; aligned to
 * 256 bytes as kgrt's own buffers are; `bytes` its size, which must hold the
 * tensor at the dims set now and every plan step's span of it. The binding
 * is for the tensor's size at those dims: a run at dims that give it another
 * size is FAILED_PRECONDITION (bind again), as after kgrt_model_set_input.
 * kgrt never frees the memory; it must stay valid while bound. Binding
 * another pointer replaces it; kgrt_model_unbind_device puts the tensor back
 * in the model's own buffer (an input is then unbound). kgrt_model_set_input
 * and _get_output on a bound tensor copy into and out of the caller's memory.
 * Runs are queued on the model's own stream (cuda, hip): the caller's work on
 * the memory must be finished before kgrt_model_run, and kgrt_model_wait
 * called before the caller reads an output there. INVALID_ARGUMENT for a
 * weight, a state input, a model split over ranks, a NULL or misaligned ptr;
 * NOT_FOUND for no such input or output; OUT_OF_RANGE for too few bytes;
 * UNAVAILABLE on a device whose memory is its own (emu). */
kgrt_status_t kgrt_model_bind_device(kgrt_model_t *model, const char *name, void *ptr,
                                     size_t bytes, kgrt_error_t *err);
kgrt_status_t kgrt_model_unbind_device(kgrt_model_t *model, const char *name,
                                       kgrt_error_t *err);
/* Waits until every run queued on the model has finished; a launch fault
 * surfaces here as DEVICE_ERROR, as in kgrt_model_get_output. */
kgrt_status_t kgrt_model_wait(kgrt_model_t *model, kgrt_error_t *err);

/* ---- several GPUs: a model split over ranks (tensor parallel) ----------------
 *
 * A table built with ranks(N) is one rank's part of a model: every rank loads
 * the same table on its own device, joins one communicator as its rank, and
 * binds its part of the weights (kgrt_model_bind_weights cuts each split
 * weight by the rank). The plan's collective steps (all_reduce, all_gather)
 * go through the communicator: NCCL (libnccl.so.2) on cuda, RCCL
 * (librccl.so.1) on hip, loaded with dlopen; between sim devices an exchange
 * in this process. One host thread per rank: from kgrt_model_join on, the
 * ranks make the same calls (runs, dims, links) together, each in its own
 * thread, since every collective step waits for all ranks. A rank whose run
 * fails breaks the communicator: the other ranks' runs fail instead of
 * waiting; unload the models and make a new one. A model of one rank needs
 * no communicator (its collectives copy). */
#define KGRT_MAX_RANKS 64
typedef struct kgrt_comm kgrt_comm_t;

/* A communicator for `ranks` ranks (1 to KGRT_MAX_RANKS). */
kgrt_status_t kgrt_comm_create(uint32_t ranks, const kgrt_allocator_t *alloc,
                               kgrt_comm_t **out_comm, kgrt_error_t *err);
/* Frees it; every model that joined must be unloaded first. NULL is ignored. */
void kgrt_comm_destroy(kgrt_comm_t *comm);
/* Its ranks (0 for NULL). */
uint32_t kgrt_comm_ranks(const kgrt_comm_t *comm);
/* Breaks it (see above): ranks waiting in a collective (sim) or to join it
 * (sim) fail with `why`, and so does every collective after. For a host
 * that gives up on a rank, so that the others do not wait for it. */
void kgrt_comm_abort(kgrt_comm_t *comm, const char *why);

/* Ranks in several processes, as a launcher starts them (torchrun, srun,
 * mpirun: one process a rank): one process makes an id, the launcher hands
 * its text to the others (an environment variable, a file), and each process
 * makes its own rank's communicator from it, then joins its model as above.
 * Sim devices only for now: the ranks exchange through POSIX shared memory,
 * so every process is on one host. A rank that ends (killed, or exited
 * without kgrt_comm_destroy) makes the others' collectives fail within
 * KGRT_COMM_TICK_MS, and ranks that never arrive make the join fail after
 * the timeout kgrt_comm_init_rank takes: nothing waits forever. */
#define KGRT_COMM_ID_BYTES 128
#define KGRT_COMM_ID_TEXT (2 * KGRT_COMM_ID_BYTES + 1) /* hex digits and NUL */
#define KGRT_COMM_TICK_MS 50
typedef struct kgrt_comm_id {
  unsigned char bytes[KGRT_COMM_ID_BYTES];
} kgrt_comm_id_t;

/* A new id for ranks on devices of `kind` ("sim"; UNAVAILABLE for others). */
kgrt_status_t kgrt_comm_id_create(const char *kind, kgrt_comm_id_t *out_id,
                                  kgrt_error_t *err);
/* The id as KGRT_COMM_ID_TEXT - 1 hex digits, and back: a text that is not
 * an id kgrt made is INVALID_ARGUMENT. */
void kgrt_comm_id_text(const kgrt_comm_id_t *id, char text[KGRT_COMM_ID_TEXT]);
kgrt_status_t kgrt_comm_id_parse(const char *text, kgrt_comm_id_t *out_id,
                                 kgrt_error_t *err);
/* This process's rank `rank` of the `ranks` (1 to KGRT_MAX_RANKS) that
 * `id` names: returns once this rank is in (rank 0 makes the exchange; the
 * others wait for it up to timeout_ms); the join (kgrt_model_join) waits for
 * all ranks up to timeout_ms again. Destroy it as any communicator:
 * the other ranks then fail rather than wait for this one. */
kgrt_status_t kgrt_comm_init_rank(const kgrt_comm_id_t *id, uint32_t rank, uint32_t ranks,
                                  uint32_t timeout_ms, const kgrt_allocator_t *alloc,
                                  kgrt_comm_t **out_comm, kgrt_error_t *err);

/* Makes `model` rank `rank` of `comm`, whose ranks must be the table's. Every
 * rank calls it from its own thread, all on devices of one kind (each rank
 * its own device: "cuda:0", "cuda:1"); on cuda and hip it returns once all
 * ranks have joined. INVALID_ARGUMENT for a rank taken or out of range;
 * UNAVAILABLE when the device has no collectives or the library is absent. */
kgrt_status_t kgrt_model_join(kgrt_model_t *model, kgrt_comm_t *comm, uint32_t rank,
                              kgrt_error_t *err);
/* The model's rank (0 when it has joined none). */
uint32_t kgrt_model_rank(const kgrt_model_t *model);

/* kgrt_model_set_weight from the whole tensor: for a weight the table splits
 * (its `parts` > 1), `host` holds the whole of it (`bytes` = parts times the
 * weight's size, row-major as a file stores it) and this rank's part is cut
 * from it and uploaded; for any other weight, the same as set_weight. A split
 * model must have joined its communicator (the rank picks the part). */
kgrt_status_t kgrt_model_set_weight_whole(kgrt_model_t *model, const char *name,
                                          const void *host, size_t bytes,
                                          kgrt_error_t *err);

#ifdef __cplusplus
}
#endif

#endif /* KGRT_H */
