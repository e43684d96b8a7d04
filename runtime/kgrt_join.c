/* kgrt_join.c - a split model on several GPUs: joining a communicator (the
 * arena moved to the collectives' symmetric memory where the device has it,
 * a pipeline rank's own inputs and weights placed, the plan's collectives
 * warmed up), and the model's rank and communicator.
 *
 * Needs a loaded model (kgrt_model.h) and a communicator (kgrt_comm.h) its
 * device can join. Gives kgrt_model_join and kgrt_model_rank of kgrt.h and
 * kgrt_model_comm (kgrt_device.h). */
#include <pthread.h>
#include <string.h>

#include "kgrt_model.h"

/* Runs each kind of the plan's collectives (op, dtype and a broadcast's
 * root) once at counts of 1, 16, 256, ... up to the largest the plan has at
 * the dims' maxima, on scratch buffers, and waits for them: a library that
 * connects its ranks lazily for each algorithm it picks by size (NCCL) does
 * so here, since it cannot while a graph is being captured. Every rank runs
 * the same ones. */
static kgrt_status_t kgrt_model_warm_collectives(kgrt_model_t *model, kgrt_error_t *err) {
  kgrt_device_t *dev = model->device;
  const kgrt_arch_table_t *arch = model->arch;
  const uint32_t ranks = model->table->ranks > 1 ? model->table->ranks : 1;
  /* [op][dtype: f32, f16, bf16, i32]: the largest count; broadcasts' roots */
  uint64_t most[4][4] = {{0}}, roots = 0;
  for (uint32_t s = 0; s < arch->num_steps; ++s) {
    const kgrt_step_t *step = &arch->steps[s];
    int64_t units = 0;
    if (step->collective == KGRT_COLLECTIVE_NONE)
      continue;
    kgrt_expr_eval(&step->units, model->max_dims, &units); /* bounded at load */
    uint64_t *m = &most[step->collective][step->dtype];    /* checked at load */
    if ((uint64_t)units > *m)
      *m = (uint64_t)units;
    if (step->collective == KGRT_COLLECTIVE_BROADCAST)
      roots |= (uint64_t)1 << step->rank; /* < ranks <= 64: checked at load */
  }
  kgrt_status_t st = KGRT_STATUS_OK;
  for (uint32_t w = 0; w < 4 * 4 * 64 && st == KGRT_STATUS_OK; ++w) {
    const int op = (int)(w / 256), dt = (int)(w / 64 % 4);
    const uint32_t root = w % 64;
    const uint64_t n = most[op][dt], size = dt == 1 || dt == 2 ? 2 : 4;
    if (n == 0 || (op == KGRT_COLLECTIVE_BROADCAST ? !((roots >> root) & 1) : root != 0))
      continue;
    uint64_t src = 0, dst = 0;
    st = dev->vtable->buffer_alloc(dev, n * size, &src, err);
    if (st == KGRT_STATUS_OK)
      st = dev->vtable->buffer_alloc(dev, n * size * ranks, &dst, err);
    for (uint64_t count = 1; st == KGRT_STATUS_OK;
         count = count * 16 < n ? count * 16 : n) {
      const kgrt_device_collective_t c = {.op = (kgrt_collective_t)op,
                                          .dtype = (kgrt_dtype_t)dt,
                                          .src = src,
                                          .dst = dst,
                                          .count = count,
                                          .root = root};
      st = dev->vtable->collective(dev, model->program, &c, err);
      if (count == n)
        break;
    }
    unsigned char byte;
    if (st == KGRT_STATUS_OK) /* waits for the queue */
      st = dev->vtable->buffer_read(dev, model->program, &byte, dst, 1, err);
    dev->vtable->buffer_free(dev, src);
    dev->vtable->buffer_free(dev, dst);
  }
  return st;
}

/* A pipeline's rank: allocates the inputs and weights that its steps (and
 * every collective) read, zeroes its state, and marks the rest elsewhere. */
static kgrt_status_t kgrt_model_place(kgrt_model_t *model, uint32_t rank,
                                      kgrt_error_t *err) {
  const kgrt_model_table_t *table = model->table;
  const kgrt_arch_table_t *arch = model->arch;
  for (uint32_t i = 0; i < table->num_inputs; ++i)
    model->inputs[i].elsewhere = 1;
  for (uint32_t i = 0; i < table->num_weights; ++i)
    model->weights[i].elsewhere = 1;
  for (uint32_t s = 0; s < arch->num_steps; ++s) {
    const kgrt_step_t *step = &arch->steps[s];
    if (step->collective == KGRT_COLLECTIVE_NONE && step->rank >= 0 &&
        (uint32_t)step->rank != rank)
      continue;
    const uint32_t n = step->collective != KGRT_COLLECTIVE_NONE
                           ? 2
                           : arch->kernels[step->kernel].num_args;
    for (uint32_t i = 0; i < n; ++i) { /* spaces and indices checked at load */
      const kgrt_step_arg_t *a = &step->args[i];
      if (step->collective == KGRT_COLLECTIVE_NONE &&
          arch->kernels[step->kernel].args[i].kind != KGRT_ARG_BUFFER)
        continue;
      if (a->space == KGRT_SPACE_INPUT)
        model->inputs[a->index].elsewhere = 0;
      else if (a->space == KGRT_SPACE_WEIGHT)
        model->weights[a->index].elsewhere = 0;
    }
  }
  kgrt_tensor_buffer_t *const lists[2] = {model->inputs, model->weights};
  const uint32_t counts[2] = {table->num_inputs, table->num_weights};
  for (int k = 0; k < 2; ++k)
    for (uint32_t i = 0; i < counts[k]; ++i) {
      kgrt_tensor_buffer_t *b = &lists[k][i];
      if (b->elsewhere || b->addr != 0)
        continue;
      KGRT_RETURN_IF_ERROR(
          kgrt_model_alloc(model, b->capacity > 0 ? b->capacity : 1, &b->addr, err));
      if (k == 0 && (table->inputs[i].flags & KGRT_TENSOR_STATE))
        KGRT_RETURN_IF_ERROR(kgrt_model_zero(model, b->addr, b->capacity, err));
    }
  return KGRT_STATUS_OK;
}

/* The arena moves to memory the collectives address alike on every rank
 * (NCCL's symmetric window: its all_reduce of a few KiB then takes a
 * one-step kernel over NVLink), where the device has it. Every rank calls
 * the device (one with no arena asks for 0 bytes), so none waits for
 * another. A model has not run before it joins: the arena's persistent
 * values are zero, as at load. *old gets the ordinary arena (raw 0: not
 * moved), which the join frees once it succeeds, or takes back if not. */
typedef struct kgrt_model_arena {
  uint64_t raw, addr;
} kgrt_model_arena_t;
static kgrt_status_t kgrt_model_arena_to_comm(kgrt_model_t *model, kgrt_comm_t *comm,
                                              uint32_t rank, kgrt_model_arena_t *old,
                                              kgrt_error_t *err) {
  kgrt_device_t *dev = model->device;
  const kgrt_arch_table_t *arch = model->arch;
  const uint64_t align = arch->arena_align > 256 ? arch->arena_align : 0;
  const size_t bytes = arch->arena_bytes > 0 ? (size_t)(arch->arena_bytes + align) : 0;
  uint64_t raw = 0;
  kgrt_status_t st =
      dev->vtable->comm_arena(dev, model->program, comm, rank, bytes, &raw, err);
  if (st == KGRT_STATUS_UNAVAILABLE) { /* the ordinary arena stays */
    kgrt_error_clear(err);
    return KGRT_STATUS_OK;
  }
  KGRT_RETURN_IF_ERROR(st);
  const uint64_t addr = align ? (raw + align - 1) & ~(align - 1) : raw;
  KGRT_RETURN_IF_ERROR(kgrt_model_zero(model, addr, arch->arena_zero_bytes, err));
  *old = (kgrt_model_arena_t){model->arena_raw, model->arena_addr};
  model->arena_raw = 0; /* the program's now, freed at comm_leave */
  model->arena_addr = addr;
  return KGRT_STATUS_OK;
}

kgrt_status_t kgrt_model_join(kgrt_model_t *model, kgrt_comm_t *comm, uint32_t rank,
                              kgrt_error_t *err) {
  kgrt_error_clear(err);
  if (model == NULL || comm == NULL)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "kgrt_model_join: model or comm is NULL");
  const char *name = kgrt_table_name(model->table);
  const uint32_t ranks = model->table->ranks > 1 ? model->table->ranks : 1;
  kgrt_device_t *dev = model->device;
  if (model->comm != NULL)
    return kgrt_error_set(err, KGRT_STATUS_FAILED_PRECONDITION,
                          "model %s has joined a communicator already (rank %u)", name,
                          model->rank);
  if (comm->shm != NULL && rank != comm->shm_rank)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "model %s: this process's communicator is rank %u, not %u",
                          name, comm->shm_rank, rank);
  if (rank >= comm->ranks || ranks != comm->ranks)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "model %s is one rank of %u; it cannot be rank %u of a "
                          "communicator of %u",
                          name, ranks, rank, comm->ranks);
  if (dev->vtable->comm_join == NULL)
    return kgrt_error_set(err, KGRT_STATUS_UNAVAILABLE, "%s: no collectives", dev->name);
  pthread_mutex_lock(&comm->mutex);
  const char *why = NULL;
  if (comm->joined & ((uint64_t)1 << rank))
    why = "has joined already";
  else if (comm->kind != NULL && strcmp(comm->kind, dev->vtable->kind) != 0)
    why = "is on another kind of device than the ranks before it";
  if (why == NULL) {
    comm->joined |= (uint64_t)1 << rank;
    comm->kind = dev->vtable->kind;
  }
  pthread_mutex_unlock(&comm->mutex);
  if (why != NULL)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT, "model %s: rank %u %s", name,
                          rank, why);
  kgrt_status_t st = dev->vtable->comm_join(dev, model->program, comm, rank, err);
  kgrt_model_arena_t old = {0, 0};
  if (st == KGRT_STATUS_OK && dev->vtable->comm_arena != NULL)
    st = kgrt_model_arena_to_comm(model, comm, rank, &old, err);
  if (st == KGRT_STATUS_OK && model->pipeline)
    st = kgrt_model_place(model, rank, err);
  if (st == KGRT_STATUS_OK)
    st = kgrt_model_warm_collectives(model, err);
  if (st != KGRT_STATUS_OK) {
    kgrt_comm_break(comm, rank, err != NULL ? err->message : "could not join");
    if (old.raw != 0) { /* the window goes with the communicator */
      model->arena_raw = old.raw;
      model->arena_addr = old.addr;
    }
    if (model->program != NULL && dev->vtable->comm_leave != NULL)
      dev->vtable->comm_leave(dev, model->program);
    return st;
  }
  if (old.raw != 0)
    dev->vtable->buffer_free(dev, old.raw);
  /* a graph captured before had no collectives to capture */
  if (model->replay.graph != NULL)
    dev->vtable->graph_destroy(dev, model->replay.graph);
  model->replay.graph = NULL;
  model->comm = comm;
  model->rank = rank;
  for (uint32_t i = 0; i < model->table->num_syms; ++i)
    if (kgrt_sym_is_rank(model->table, i))
      model->dims[i] = rank;
  return KGRT_STATUS_OK;
}

uint32_t kgrt_model_rank(const kgrt_model_t *model) {
  return model != NULL && model->comm != NULL ? model->rank : 0;
}

kgrt_comm_t *kgrt_model_comm(const kgrt_model_t *model) {
  return model->comm;
}
