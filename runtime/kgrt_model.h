/* kgrt_model.h - a loaded model (struct kgrt_model) and what the files that
 * make up its life share (internal):
 *   kgrt_model.c  load, unload, device memory, state;
 *   kgrt_bind.c   dims, tensor lookups, binding inputs and weights, outputs;
 *   kgrt_plan.c   the plan run, replayed as a graph, timed and profiled;
 *   kgrt_loop.c   the device-resident loop (links, stepped dims);
 *   kgrt_join.c   several GPUs: joining a communicator.
 *
 * Needs kgrt_device.h, kgrt_comm.h and the table checks
 * (kgrt_table_check.h). */
#ifndef KGRT_MODEL_H
#define KGRT_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "kgrt.h"
#include "kgrt_comm.h"
#include "kgrt_device.h"
#include "kgrt_table_check.h"

typedef struct kgrt_tensor_buffer {
  uint64_t addr;      /* 0: none (never allocated) */
  size_t capacity;    /* bytes with every dim at its max */
  size_t bound_bytes; /* bytes last copied in */
  int bound;
  /* a pipeline's input or weight that only other ranks' steps read: never
   * allocated on this rank, and binding it is a no-op */
  int elsewhere;
  /* while addr is the caller's memory (kgrt_external.c): the model's own
   * buffer, else 0 */
  uint64_t own;
} kgrt_tensor_buffer_t;

struct kgrt_model {
  kgrt_device_t *device;
  const kgrt_model_table_t *table;
  const kgrt_arch_table_t *arch;
  kgrt_device_program_t *program;
  int64_t *dims;     /* num_syms; below kgrt_sym_min: not set */
  int64_t *max_dims; /* num_syms */
  kgrt_tensor_buffer_t *inputs, *weights, *outputs;
  uint64_t arena_raw;  /* as allocated */
  uint64_t arena_addr; /* aligned to arena_align */
  unsigned char *kernarg;
  unsigned long long *arg_bytes;
  int has_run; /* a run succeeded since the dims last changed */
  /* graph replay (kgrt_plan.c): the plan's launches captured at dims */
  struct {
    int on; /* kgrt_model_set_replay; starts as the device's */
    kgrt_device_graph_t *graph;
    int64_t *dims; /* num_syms */
    /* kgrt_model_run: the dims of the run before, where it did not replay
     * (launched one by one); the same dims again are captured */
    int64_t *seen;
    int has_seen;
  } replay;
  /* the device-resident loop (kgrt_loop.c, kgrt_model_run_steps) */
  struct {
    int32_t *links;      /* num_inputs: the output that feeds the input, or -1 */
    int64_t *step_dims;  /* num_syms: added to the dim between steps */
    int advance_pending; /* the last call was run_steps: links apply first */
    uint64_t collect_addr;
    size_t collect_capacity;
  } loop;
  /* a split model's communicator (kgrt_model_join), else NULL */
  kgrt_comm_t *comm;
  uint32_t rank;
  /* steps placed on ranks (pipeline parallel): inputs and weights are
   * allocated at join, each rank only those its steps read */
  int pipeline;
};

typedef enum kgrt_tensor_kind {
  KGRT_TENSOR_INPUT,
  KGRT_TENSOR_WEIGHT,
  KGRT_TENSOR_OUTPUT,
} kgrt_tensor_kind_t;

/* ---- kgrt_model.c ---- */

/* A device buffer for the model; when the device is out of memory, the
 * message says what the whole model needs beside what the device said. */
KGRT_INTERNAL kgrt_status_t kgrt_model_alloc(kgrt_model_t *model, size_t bytes,
                                             uint64_t *addr, kgrt_error_t *err);
/* Writes zeros over `bytes` at device address `addr`, 1 MiB at a time. */
KGRT_INTERNAL kgrt_status_t kgrt_model_zero(kgrt_model_t *model, uint64_t addr,
                                            uint64_t bytes, kgrt_error_t *err);

/* ---- kgrt_bind.c ---- */

/* Dim `sym`, one a caller may set or step (not the rank): its index in
 * *out_index; NOT_FOUND, or INVALID_ARGUMENT for the rank. */
/* The least value dim `sym` takes: 0 for the rank and counts, else 1. */
KGRT_INTERNAL int64_t kgrt_sym_min(const kgrt_model_table_t *table, uint32_t sym);
/* Whether dim `sym` is set (the rank always is). */
KGRT_INTERNAL int kgrt_dim_is_set(const kgrt_model_t *model, uint32_t sym);
KGRT_INTERNAL kgrt_status_t kgrt_model_find_dim(const kgrt_model_t *model,
                                                const char *sym, uint32_t *out_index,
                                                kgrt_error_t *err);
/* "input", "weight" or "output". */
KGRT_INTERNAL const char *kgrt_tensor_kind_name(kgrt_tensor_kind_t kind);
/* Finds tensor `name` of `kind`; fills its info and buffer. */
KGRT_INTERNAL int kgrt_tensor_find(const kgrt_model_t *model, kgrt_tensor_kind_t kind,
                                   const char *name, const kgrt_tensor_info_t **out_info,
                                   kgrt_tensor_buffer_t **out_buffer);
/* The tensor's size with the dims set now; FAILED_PRECONDITION when one it
 * needs is not set. */
KGRT_INTERNAL kgrt_status_t kgrt_tensor_bytes_now(const kgrt_model_t *model,
                                                  kgrt_tensor_kind_t kind,
                                                  const kgrt_tensor_info_t *t,
                                                  size_t *out, kgrt_error_t *err);

/* ---- kgrt_plan.c ---- */

/* Every dim set; every input and weight bound at the size the dims give now.
 * A joined rank that cannot run breaks its communicator, so that the other
 * ranks' collectives fail rather than wait for it. */
KGRT_INTERNAL kgrt_status_t kgrt_model_check_ready(const kgrt_model_t *model,
                                                   kgrt_error_t *err);
/* The plan's launches at the dims set now: with `replay` (and the model's
 * replay on), the graph captured at these dims replayed, else captured now
 * (or updated) and replayed; with KGRT_REPLAY_SEEN, dims other than the
 * graph's are captured only where the run before had them too, else
 * launched one by one; without, launched one by one. A rank that fails
 * breaks its communicator. */
enum { KGRT_REPLAY_OFF = 0, KGRT_REPLAY_ALWAYS = 1, KGRT_REPLAY_SEEN = 2 };
KGRT_INTERNAL kgrt_status_t kgrt_model_launch_plan(kgrt_model_t *model, int replay,
                                                   kgrt_error_t *err);

#endif /* KGRT_MODEL_H */
