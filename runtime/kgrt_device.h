/* kgrt_device.h - the interface a kgrt device implements (internal).
 *
 * The device-independent files own everything that is the same on every
 * device: spec parsing (kgrt_devices.c), table and code-object validation
 * (kgrt_table_check.c), loading, dims, bindings and the plan (kgrt_model.c,
 * kgrt_bind.c, kgrt_plan.c, kgrt_loop.c, kgrt_join.c). A device only
 * picks its arch, loads code, allocates and copies memory, and launches. Each
 * device file (kgrt_device_sim.c, kgrt_device_hip.c, kgrt_device_cuda.c) gives
 * one create function and a static vtable; its device struct starts with
 * kgrt_device_t.
 *
 * Devices are named in one table (kgrt_devices.c), the only file that refers
 * to a device file; the rest of kgrt reaches a device through that table and
 * its vtable alone. The helpers devices share with it are in kgrt_base.h.
 *
 * Needs kgrt.h and kgrt_base.h. Gives the vtable, the common device header
 * and the device table. */
#ifndef KGRT_DEVICE_H
#define KGRT_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include "kgrt.h"
#include "kgrt_base.h"

typedef struct kgrt_device_vtable kgrt_device_vtable_t;

/* Code loaded for one model: module and function handles, a stream (hip,
 * cuda), or a sim image and its thunks. Opaque outside the device. */
typedef struct kgrt_device_program kgrt_device_program_t;

struct kgrt_device {
  const kgrt_device_vtable_t *vtable;
  kgrt_allocator_t alloc; /* the caller's, copied; all zero means malloc */
  char name[96];
  int replay; /* graph replay where the device has graphs (option graphs=0: off) */
};

/* A captured run (cuda and hip graphs; the sim's recorded launches). */
typedef struct kgrt_device_graph kgrt_device_graph_t;

/* One launch, with everything already evaluated by the plan. */
typedef struct kgrt_device_launch {
  uint32_t kernel; /* index into the arch table's kernels */
  const char *kernel_name;
  uint32_t grid_x;       /* workgroups */
  uint32_t block_x;      /* threads per workgroup */
  uint32_t shared_bytes; /* dynamic shared memory (the kernel's dyn_lds_bytes) */
  uint32_t flags;        /* the kernel's KGRT_KERNEL_* (cuda: early launch) */
  const unsigned char *kernarg;
  size_t kernarg_size;
  const unsigned long long *arg_bytes; /* per argument: bytes a buffer spans, 0 else */
  uint32_t num_args;
} kgrt_device_launch_t;

/* One collective step, evaluated by the plan: `count` elements of `dtype`
 * at src, and dst (count of them; all_gather: ranks times count); a
 * broadcast's root. */
typedef struct kgrt_device_collective {
  kgrt_collective_t op;
  kgrt_dtype_t dtype;
  uint64_t src, dst;
  uint64_t count;
  uint32_t root;
} kgrt_device_collective_t;
struct kgrt_device_vtable {
  const char *kind; /* "sim", "hip", "cuda": the ranks of a communicator share one */
  void (*destroy)(kgrt_device_t *device);
  /* Picks the arch table of `table` this device runs; NO_MATCHING_ARCH (see
   * kgrt_error_no_matching_arch) when there is none. */
  kgrt_status_t (*arch_select)(kgrt_device_t *device, const kgrt_model_table_t *table,
                               const kgrt_arch_table_t **out_arch, kgrt_error_t *err);
  /* Loads a validated arch table's code and resolves every kernel once. */
  kgrt_status_t (*program_load)(kgrt_device_t *device, const kgrt_model_table_t *table,
                                const kgrt_arch_table_t *arch,
                                kgrt_device_program_t **out_program, kgrt_error_t *err);
  void (*program_unload)(kgrt_device_t *device, kgrt_device_program_t *program);
  /* Device memory of `bytes` (> 0), aligned to at least 256 bytes. */
  kgrt_status_t (*buffer_alloc)(kgrt_device_t *device, size_t bytes, uint64_t *out_addr,
                                kgrt_error_t *err);
  void (*buffer_free)(kgrt_device_t *device, uint64_t addr);
  /* Host -> device; complete when it returns (the host memory may be reused). */
  kgrt_status_t (*buffer_write)(kgrt_device_t *device, kgrt_device_program_t *program,
                                uint64_t dst, const void *src, size_t bytes,
                                kgrt_error_t *err);
  /* Device -> host after all work queued on the program; complete when it returns. */
  kgrt_status_t (*buffer_read)(kgrt_device_t *device, kgrt_device_program_t *program,
                               void *dst, uint64_t src, size_t bytes, kgrt_error_t *err);
  /* Queues (hip, cuda) or runs (sim) one launch. The kernarg bytes may be reused as
   * soon as it returns. */
  kgrt_status_t (*launch)(kgrt_device_t *device, kgrt_device_program_t *program,
                          const kgrt_device_launch_t *launch, kgrt_error_t *err);
  /* Timing on the device's clock: stop == 0 marks the start in the program's
   * queue; stop == 1 marks the end, waits for it and gives the microseconds
   * between the two in *out_us. NULL when the device cannot time. */
  kgrt_status_t (*timer)(kgrt_device_t *device, kgrt_device_program_t *program, int stop,
                         double *out_us, kgrt_error_t *err);
  /* Queues, in the program's queue, work that evicts the device's caches
   * (writes a scratch buffer larger than its last-level cache), so that what
   * is queued next starts cold and behind device work rather than on an idle
   * device. NULL where there is nothing to evict (sim) or no timer. */
  kgrt_status_t (*cache_flush)(kgrt_device_t *device, kgrt_device_program_t *program,
                               kgrt_error_t *err);
  /* Device -> device, queued in the program's queue after the work before it
   * (sim: done when it returns). */
  kgrt_status_t (*buffer_copy)(kgrt_device_t *device, kgrt_device_program_t *program,
                               uint64_t dst, uint64_t src, size_t bytes,
                               kgrt_error_t *err);
  /* Graphs, NULL where the device has none. graph_begin starts capturing the
   * program's queue: the launches that follow are recorded, not run, until
   * graph_end gives them as one graph (or fails, and the capture is over).
   * graph_launch queues a graph's launches, as captured, in the program's
   * queue; graph_destroy frees one (NULL is ignored). */
  kgrt_status_t (*graph_begin)(kgrt_device_t *device, kgrt_device_program_t *program,
                               kgrt_error_t *err);
  kgrt_status_t (*graph_end)(kgrt_device_t *device, kgrt_device_program_t *program,
                             kgrt_device_graph_t **out_graph, kgrt_error_t *err);
  kgrt_status_t (*graph_launch)(kgrt_device_t *device, kgrt_device_program_t *program,
                                kgrt_device_graph_t *graph, kgrt_error_t *err);
  void (*graph_destroy)(kgrt_device_t *device, kgrt_device_graph_t *graph);
  /* Ends a capture begun with graph_begin and makes `graph` replay what it
   * recorded, keeping what it can of the old (the same launches with other
   * arguments, as when a decode loop's context grows). On failure the capture
   * is over and `graph` must be destroyed. NULL where the device has none. */
  kgrt_status_t (*graph_update)(kgrt_device_t *device, kgrt_device_program_t *program,
                                kgrt_device_graph_t *graph, kgrt_error_t *err);
  /* Collectives, NULL where the device has none. comm_join makes the program
   * rank `rank` of `comm` (kgrt_model_join checked both; each rank calls it
   * from its own thread); comm_leave undoes it (before program_unload).
   * collective queues one step in the program's queue (sim: runs it, with
   * the other ranks), captured like a launch between graph_begin and
   * graph_end. */
  kgrt_status_t (*comm_join)(kgrt_device_t *device, kgrt_device_program_t *program,
                             kgrt_comm_t *comm, uint32_t rank, kgrt_error_t *err);
  void (*comm_leave)(kgrt_device_t *device, kgrt_device_program_t *program);
  /* Memory for the model's arena that the collectives address alike on
   * every rank (NCCL's symmetric window), after comm_join: a collective,
   * every rank calls it with the same bytes. It is the program's until
   * comm_leave. UNAVAILABLE (nothing held; keep the ordinary arena) where
   * the device or its library has none, or the ranks do not agree. NULL
   * where the device never has it. */
  kgrt_status_t (*comm_arena)(kgrt_device_t *device, kgrt_device_program_t *program,
                              kgrt_comm_t *comm, uint32_t rank, size_t bytes,
                              uint64_t *out_addr, kgrt_error_t *err);
  kgrt_status_t (*collective)(kgrt_device_t *device, kgrt_device_program_t *program,
                              const kgrt_device_collective_t *collective,
                              kgrt_error_t *err);
};

/* One kind of device: what a spec's kind names, how the part after ':' and
 * the options after the first ',' open it (`part` NULL when absent), and the
 * spec's form for messages. */
typedef struct kgrt_device_kind {
  const char *kind;
  const char *usage;
  kgrt_status_t (*create)(const char *part, const char *options,
                          const kgrt_allocator_t *alloc, kgrt_device_t **out_device,
                          kgrt_error_t *err);
} kgrt_device_kind_t;

/* The device table (kgrt_devices.c): sim, hip, cuda; *out_count entries. */
KGRT_INTERNAL const kgrt_device_kind_t *kgrt_device_kinds(size_t *out_count);

/* The devices' constructors, for the device table alone. */
KGRT_INTERNAL kgrt_status_t kgrt_device_sim_create(const char *part, const char *options,
                                                   const kgrt_allocator_t *alloc,
                                                   kgrt_device_t **out_device,
                                                   kgrt_error_t *err);
KGRT_INTERNAL kgrt_status_t kgrt_device_hip_create(const char *part, const char *options,
                                                   const kgrt_allocator_t *alloc,
                                                   kgrt_device_t **out_device,
                                                   kgrt_error_t *err);
KGRT_INTERNAL kgrt_status_t kgrt_device_cuda_create(const char *part, const char *options,
                                                    const kgrt_allocator_t *alloc,
                                                    kgrt_device_t **out_device,
                                                    kgrt_error_t *err);

/* What kgrt_model_bind_weights (kgrt_weights_bind.c) reads of a model: its
 * table, and dim `sym`'s current value (0: not set). */
KGRT_INTERNAL const kgrt_model_table_t *kgrt_model_table(const kgrt_model_t *model);
KGRT_INTERNAL int64_t kgrt_model_dim_value(const kgrt_model_t *model, uint32_t sym);
/* The communicator the model joined, or NULL. */
KGRT_INTERNAL kgrt_comm_t *kgrt_model_comm(const kgrt_model_t *model);

#endif /* KGRT_DEVICE_H */
