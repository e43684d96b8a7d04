/* kgrt_plan.c - running a model's plan: the readiness check, each step
 * evaluated at the dims set now and handed to the device (a kernel launch,
 * or a collective), the whole plan launched one by one or captured as a
 * graph and replayed, timed (kgrt_model_time) and profiled step by step.
 *
 * Needs a loaded model (kgrt_model.h), its device and, for collectives, its
 * communicator. Gives the run, replay, time and profile calls of kgrt.h,
 * and kgrt_model_check_ready and kgrt_model_launch_plan (kgrt_model.h). */
#include <stdlib.h>
#include <string.h>

#include "kgrt_model.h"

/* Every dim set; every input and weight bound at the size the dims give now. */
static kgrt_status_t kgrt_model_check_ready_(const kgrt_model_t *model,
                                             kgrt_error_t *err) {
  if (model->table->ranks > 1 && model->comm == NULL)
    return kgrt_error_set(err, KGRT_STATUS_FAILED_PRECONDITION,
                          "model %s is one rank of %u: join a communicator first "
                          "(kgrt_model_join)",
                          kgrt_table_name(model->table), model->table->ranks);
  const kgrt_model_table_t *table = model->table;
  const char *name = kgrt_table_name(table);
  for (uint32_t i = 0; i < table->num_syms; ++i)
    if (!kgrt_dim_is_set(model, i))
      return kgrt_error_set(err, KGRT_STATUS_FAILED_PRECONDITION,
                            "model %s: dim %s is not set", name, table->syms[i].name);
  for (int kind = KGRT_TENSOR_INPUT; kind <= KGRT_TENSOR_WEIGHT; ++kind) {
    const kgrt_tensor_info_t *t =
        kind == KGRT_TENSOR_INPUT ? table->inputs : table->weights;
    const kgrt_tensor_buffer_t *b =
        kind == KGRT_TENSOR_INPUT ? model->inputs : model->weights;
    uint32_t n = kind == KGRT_TENSOR_INPUT ? table->num_inputs : table->num_weights;
    for (uint32_t i = 0; i < n; ++i) {
      size_t now = 0;
      if ((t[i].flags & KGRT_TENSOR_STATE) || b[i].elsewhere)
        continue; /* on the device since load (or join), or another rank's */
      kgrt_tensor_size(&t[i], model->dims, &now);
      if (!b[i].bound)
        return kgrt_error_set(err, KGRT_STATUS_FAILED_PRECONDITION,
                              "model %s: %s %s is not bound", name,
                              kgrt_tensor_kind_name((kgrt_tensor_kind_t)kind), t[i].name);
      if (b[i].bound_bytes != now)
        return kgrt_error_set(err, KGRT_STATUS_FAILED_PRECONDITION,
                              "model %s: %s %s was bound with %zu bytes but is %zu bytes "
                              "with the dims set now; bind it again",
                              name, kgrt_tensor_kind_name((kgrt_tensor_kind_t)kind),
                              t[i].name, b[i].bound_bytes, now);
    }
  }
  for (uint32_t i = 0; i < table->num_outputs; ++i) { /* the caller's memory */
    size_t now = 0;
    kgrt_tensor_size(&table->outputs[i], model->dims, &now);
    if (model->outputs[i].own != 0 && model->outputs[i].bound_bytes != now)
      return kgrt_error_set(err, KGRT_STATUS_FAILED_PRECONDITION,
                            "model %s: output %s was bound to the caller's memory at %zu "
                            "bytes but is %zu bytes with the dims set now; bind it again",
                            name, table->outputs[i].name, model->outputs[i].bound_bytes,
                            now);
  }
  return KGRT_STATUS_OK;
}

/* The same; a joined rank that cannot run breaks its communicator, so that
 * the other ranks' collectives fail rather than wait for it. */
kgrt_status_t kgrt_model_check_ready(const kgrt_model_t *model, kgrt_error_t *err) {
  kgrt_status_t st = kgrt_model_check_ready_(model, err);
  if (st != KGRT_STATUS_OK && model->comm != NULL)
    kgrt_comm_break(model->comm, model->rank, err != NULL ? err->message : "not ready");
  return st;
}

static uint64_t kgrt_model_space_addr(const kgrt_model_t *model,
                                      const kgrt_step_arg_t *a) {
  switch (a->space) {
  case KGRT_SPACE_INPUT:
    return model->inputs[a->index].addr + a->offset;
  case KGRT_SPACE_WEIGHT:
    return model->weights[a->index].addr + a->offset;
  case KGRT_SPACE_OUTPUT:
    return model->outputs[a->index].addr + a->offset;
  case KGRT_SPACE_ARENA:
    break;
  }
  return model->arena_addr + a->offset;
}

static void kgrt_store_u64(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    p[i] = (unsigned char)(v >> (8 * i)); /* kernargs are little-endian */
}

/* A collective step: handed to the device's communicator where the model
 * joined one; else (one rank) args[0] copied into args[1]. */
static kgrt_status_t kgrt_model_run_collective(kgrt_model_t *model,
                                               const kgrt_step_t *step,
                                               kgrt_error_t *err) {
  kgrt_device_t *dev = model->device;
  int64_t units = 0, bytes = 0;
  kgrt_expr_eval(&step->units, model->dims, &units); /* bounded at load */
  kgrt_expr_eval(&step->args[0].bytes, model->dims, &bytes);
  const uint64_t src = kgrt_model_space_addr(model, &step->args[0]);
  const uint64_t dst = kgrt_model_space_addr(model, &step->args[1]);
  if (units <= 0)
    return KGRT_STATUS_OK;
  if (model->comm == NULL)
    return dev->vtable->buffer_copy(dev, model->program, dst, src, (size_t)bytes, err);
  const kgrt_device_collective_t c = {
      .op = step->collective,
      .dtype = step->dtype,
      .src = src,
      .dst = dst,
      .count = (uint64_t)units,
      .root = step->rank > 0 ? (uint32_t)step->rank : 0,
  };
  return dev->vtable->collective(dev, model->program, &c, err);
}

/* Does this rank run kernel step `step` (a pipeline's steps run on one rank
 * each; the rest, and every collective, on every rank)? */
static int kgrt_model_runs(const kgrt_model_t *model, const kgrt_step_t *step) {
  return step->collective != KGRT_COLLECTIVE_NONE || step->rank < 0 ||
         (uint32_t)step->rank == model->rank;
}

/* The workgroups a kernel step launches at the dims set now; 0 when it has
 * no units or its select is out of range (it is skipped). Fits 32 bits: the
 * grid at the dims' maxima was checked at load. */
static uint32_t kgrt_step_workgroups(const kgrt_model_t *model, const kgrt_step_t *step) {
  int64_t units = 0, v = 0;
  kgrt_expr_eval(&step->units, model->dims, &units); /* bounded at load */
  if (units <= 0)
    return 0;
  if (step->select.scale != 0) {
    kgrt_expr_eval(&step->select, model->dims, &v);
    if (v < step->select_min || v > step->select_max)
      return 0;
  }
  return (uint32_t)(((uint64_t)units + step->per_block - 1) / step->per_block *
                    step->repeat);
}

/* Evaluates one step and hands it to the device; skipped when it has no units.
 * *first: no kernel of this run has been launched yet. The first one a run
 * launches is never launched early, so that every kernel of a run starts
 * after the runs before it have finished and their writes are visible: a
 * kernel may read what earlier runs wrote (attention's cache keys, OLDKV in
 * templates/attention.hip) before kg_dep_wait(). One overlap a run is lost;
 * a graph's replay loses nothing, as a replay starts after the one before
 * has finished anyway. */
static kgrt_status_t kgrt_model_run_step(kgrt_model_t *model, uint32_t s, int *first,
                                         kgrt_error_t *err) {
  const kgrt_step_t *step = &model->arch->steps[s];
  if (step->collective != KGRT_COLLECTIVE_NONE)
    return kgrt_model_run_collective(model, step, err);
  if (!kgrt_model_runs(model, step))
    return KGRT_STATUS_OK;
  const kgrt_kernel_t *kern = &model->arch->kernels[step->kernel];
  const uint32_t grid = kgrt_step_workgroups(model, step);
  int64_t v = 0;
  if (grid == 0)
    return KGRT_STATUS_OK;
  memset(model->kernarg, 0, kern->kernarg_size);
  for (uint32_t i = 0; i < kern->num_args; ++i) {
    const kgrt_step_arg_t *a = &step->args[i];
    if (kern->args[i].kind == KGRT_ARG_I64) {
      kgrt_expr_eval(&a->value, model->dims, &v);
      kgrt_store_u64(model->kernarg + kern->args[i].offset, (uint64_t)v);
      model->arg_bytes[i] = 0;
    } else {
      kgrt_expr_eval(&a->bytes, model->dims, &v);
      kgrt_store_u64(model->kernarg + kern->args[i].offset,
                     kgrt_model_space_addr(model, a));
      model->arg_bytes[i] = (unsigned long long)v;
    }
  }
  kgrt_device_launch_t launch = {
      .kernel = step->kernel,
      .kernel_name = kern->name,
      .grid_x = grid,
      .block_x = kern->block_size,
      .shared_bytes = kern->dyn_lds_bytes,
      .flags = *first ? kern->flags & ~(uint32_t)KGRT_KERNEL_EARLY_LAUNCH : kern->flags,
      .kernarg = model->kernarg,
      .kernarg_size = kern->kernarg_size,
      .arg_bytes = model->arg_bytes,
      .num_args = kern->num_args,
  };
  *first = 0;
  return model->device->vtable->launch(model->device, model->program, &launch, err);
}

/* Every step of the plan, launched one by one. */
static kgrt_status_t kgrt_model_launch_all(kgrt_model_t *model, kgrt_error_t *err) {
  int first = 1;
  for (uint32_t s = 0; s < model->arch->num_steps; ++s)
    KGRT_RETURN_IF_ERROR(kgrt_model_run_step(model, s, &first, err));
  return KGRT_STATUS_OK;
}

/* The plan's launches at the dims set now: the graph captured at these dims
 * replayed, else captured now (and replayed), or, without replay, launched.
 * KGRT_REPLAY_SEEN (kgrt_model_run): dims other than the graph's are
 * captured only where the run before had them too (a loop of steps at one
 * shape), else launched one by one. A capture holds the device until the
 * whole plan is recorded and the graph updated, while launches start it at
 * the first: where the caller waits for each run and the shape changes each
 * time (a server's steps), launching is the faster (H100, Llama-3-8B, a
 * 184-token step: 15.6 ms launched, 16.3 captured and updated, 15.2
 * replayed; bench/results/batch_decode.md). */
static kgrt_status_t kgrt_model_launch_plan_(kgrt_model_t *model, int replay,
                                             kgrt_error_t *err) {
  kgrt_device_t *dev = model->device;
  const size_t dims_bytes = model->table->num_syms * sizeof *model->dims;
  if (!replay || !model->replay.on)
    return kgrt_model_launch_all(model, err);
  if (model->replay.graph != NULL &&
      memcmp(model->replay.dims, model->dims, dims_bytes) == 0)
    return dev->vtable->graph_launch(dev, model->program, model->replay.graph, err);
  if (replay == KGRT_REPLAY_SEEN &&
      !(model->replay.has_seen &&
        memcmp(model->replay.seen, model->dims, dims_bytes) == 0)) {
    memcpy(model->replay.seen, model->dims, dims_bytes);
    model->replay.has_seen = 1;
    return kgrt_model_launch_all(model, err);
  }
  if (model->replay.graph != NULL && dev->vtable->graph_update != NULL) {
    /* other dims, the same plan: the graph updated from a new capture */
    KGRT_RETURN_IF_ERROR(dev->vtable->graph_begin(dev, model->program, err));
    kgrt_status_t st = kgrt_model_launch_all(model, err);
    kgrt_error_t end_err;
    kgrt_device_graph_t *partial = NULL;
    kgrt_status_t end =
        st != KGRT_STATUS_OK
            ? dev->vtable->graph_end(dev, model->program, &partial, &end_err)
            : dev->vtable->graph_update(dev, model->program, model->replay.graph,
                                        &end_err);
    dev->vtable->graph_destroy(dev, partial);
    if (st == KGRT_STATUS_OK && end == KGRT_STATUS_OK) {
      memcpy(model->replay.dims, model->dims, dims_bytes);
      return dev->vtable->graph_launch(dev, model->program, model->replay.graph, err);
    }
    dev->vtable->graph_destroy(dev, model->replay.graph);
    model->replay.graph = NULL;
    if (st != KGRT_STATUS_OK)
      return st;
    if (err != NULL)
      *err = end_err;
    return end;
  }
  dev->vtable->graph_destroy(dev, model->replay.graph);
  model->replay.graph = NULL;
  KGRT_RETURN_IF_ERROR(dev->vtable->graph_begin(dev, model->program, err));
  kgrt_status_t st = kgrt_model_launch_all(model, err);
  kgrt_device_graph_t *graph = NULL;
  kgrt_error_t end_err;
  /* the capture ends whatever happened inside it */
  kgrt_status_t end = dev->vtable->graph_end(dev, model->program, &graph, &end_err);
  if (st != KGRT_STATUS_OK) {
    dev->vtable->graph_destroy(dev, graph);
    return st;
  }
  if (end != KGRT_STATUS_OK) {
    if (err != NULL)
      *err = end_err;
    return end;
  }
  model->replay.graph = graph;
  memcpy(model->replay.dims, model->dims, dims_bytes);
  return dev->vtable->graph_launch(dev, model->program, graph, err);
}

/* The same; a rank that fails breaks its communicator, so that the other
 * ranks' collectives fail rather than wait for it. */
kgrt_status_t kgrt_model_launch_plan(kgrt_model_t *model, int replay, kgrt_error_t *err) {
  kgrt_status_t st = kgrt_model_launch_plan_(model, replay, err);
  if (st != KGRT_STATUS_OK && model->comm != NULL)
    kgrt_comm_break(model->comm, model->rank,
                    err != NULL ? err->message : "a run failed");
  return st;
}

kgrt_status_t kgrt_model_run(kgrt_model_t *model, kgrt_error_t *err) {
  kgrt_error_clear(err);
  if (model == NULL)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "kgrt_model_run: model is NULL");
  model->has_run = 0;
  model->loop.advance_pending = 0;
  KGRT_RETURN_IF_ERROR(kgrt_model_check_ready(model, err));
  KGRT_RETURN_IF_ERROR(kgrt_model_launch_plan(model, KGRT_REPLAY_SEEN, err));
  model->has_run = 1;
  return KGRT_STATUS_OK;
}

kgrt_status_t kgrt_model_set_replay(kgrt_model_t *model, int replay, kgrt_error_t *err) {
  kgrt_error_clear(err);
  if (model == NULL)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "kgrt_model_set_replay: model is NULL");
  kgrt_device_t *dev = model->device;
  if (replay && (!dev->replay || dev->vtable->graph_begin == NULL))
    return kgrt_error_set(err, KGRT_STATUS_UNAVAILABLE,
                          "%s: no graph replay (the device has no graphs, or was opened "
                          "with graphs=0)",
                          dev->name);
  model->replay.on = replay != 0;
  if (!model->replay.on) {
    dev->vtable->graph_destroy(dev, model->replay.graph);
    model->replay.graph = NULL;
  }
  return KGRT_STATUS_OK;
}

int kgrt_model_replay(const kgrt_model_t *model) {
  return model != NULL && model->replay.on;
}

static int kgrt_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

kgrt_status_t kgrt_model_time(kgrt_model_t *model, uint32_t warmup, uint32_t reps,
                              double *out_median_us, kgrt_error_t *err) {
  kgrt_error_clear(err);
  if (model == NULL || out_median_us == NULL || reps == 0)
    return kgrt_error_set(
        err, KGRT_STATUS_INVALID_ARGUMENT,
        "kgrt_model_time: model or out_median_us is NULL, or reps is 0");
  *out_median_us = 0;
  kgrt_device_t *dev = model->device;
  if (dev->vtable->timer == NULL)
    return kgrt_error_set(err, KGRT_STATUS_UNAVAILABLE, "%s: cannot time launches",
                          dev->name);
  double *us = kgrt_calloc(&dev->alloc, reps, sizeof *us);
  if (us == NULL)
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_MEMORY,
                          "kgrt_model_time: out of memory");
  kgrt_status_t st = KGRT_STATUS_OK;
  for (uint32_t r = 0; r < warmup && st == KGRT_STATUS_OK; r++)
    st = kgrt_model_run(model, err);
  for (uint32_t r = 0; r < reps && st == KGRT_STATUS_OK; r++) {
    if (dev->vtable->cache_flush != NULL)
      st = dev->vtable->cache_flush(dev, model->program, err);
    if (st == KGRT_STATUS_OK)
      st = dev->vtable->timer(dev, model->program, 0, NULL, err);
    if (st == KGRT_STATUS_OK)
      st = kgrt_model_run(model, err);
    if (st == KGRT_STATUS_OK)
      st = dev->vtable->timer(dev, model->program, 1, &us[r], err);
  }
  if (st == KGRT_STATUS_OK) {
    qsort(us, reps, sizeof *us, kgrt_cmp_double);
    *out_median_us = reps % 2 ? us[reps / 2] : (us[reps / 2 - 1] + us[reps / 2]) / 2;
  }
  kgrt_free(&dev->alloc, us);
  return st;
}

kgrt_status_t kgrt_model_profile(kgrt_model_t *model, uint32_t reps,
                                 kgrt_step_profile_t *out, uint32_t capacity,
                                 uint32_t *out_count, kgrt_error_t *err) {
  kgrt_error_clear(err);
  if (model == NULL || out_count == NULL || reps == 0 || (capacity > 0 && out == NULL))
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "kgrt_model_profile: model or out_count is NULL, reps is 0, or "
                          "out is NULL");
  const kgrt_arch_table_t *arch = model->arch;
  kgrt_device_t *dev = model->device;
  *out_count = arch->num_steps;
  if (capacity < arch->num_steps)
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_RANGE,
                          "kgrt_model_profile: the plan has %u steps, room for %u",
                          arch->num_steps, capacity);
  if (dev->vtable->timer == NULL)
    return kgrt_error_set(err, KGRT_STATUS_UNAVAILABLE, "%s: cannot time launches",
                          dev->name);
  model->has_run = 0;
  model->loop.advance_pending = 0;
  KGRT_RETURN_IF_ERROR(kgrt_model_check_ready(model, err));
  memset(out, 0, arch->num_steps * sizeof *out);
  for (uint32_t s = 0; s < arch->num_steps; ++s) {
    const kgrt_step_t *step = &arch->steps[s];
    int64_t units = 0, v = 0;
    out[s].step = s;
    if (step->collective != KGRT_COLLECTIVE_NONE) { /* no workgroups of ours */
      out[s].kernel = step->collective == KGRT_COLLECTIVE_ALL_REDUCE   ? "all_reduce"
                      : step->collective == KGRT_COLLECTIVE_ALL_GATHER ? "all_gather"
                                                                       : "broadcast";
      kgrt_expr_eval(&step->units, model->dims, &units);
      out[s].launched = units > 0;
      for (int i = 0; i < 2; ++i) {
        kgrt_expr_eval(&step->args[i].bytes, model->dims, &v);
        out[s].bytes += (uint64_t)v;
      }
      continue;
    }
    const kgrt_kernel_t *kern = &arch->kernels[step->kernel];
    out[s].kernel = kern->name;
    out[s].workgroups =
        kgrt_model_runs(model, step) ? kgrt_step_workgroups(model, step) : 0;
    if (out[s].workgroups == 0)
      continue;
    out[s].launched = 1;
    for (uint32_t i = 0; i < kern->num_args; ++i)
      if (kern->args[i].kind == KGRT_ARG_BUFFER) {
        const kgrt_step_arg_t *a = &step->args[i];
        const int given = a->moved.scale != 0 || a->moved.sym[0] == KGRT_MOVED_NONE;
        kgrt_expr_eval(given ? &a->moved : &a->bytes, model->dims, &v);
        out[s].bytes += (uint64_t)v;
      }
  }
  const size_t n = (size_t)arch->num_steps * reps;
  double *us = reps > SIZE_MAX / sizeof(double) / (arch->num_steps + 1)
                   ? NULL
                   : kgrt_calloc(&dev->alloc, n + 1, sizeof *us);
  if (us == NULL)
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_MEMORY,
                          "kgrt_model_profile: out of memory");
  /* the whole plan reps times in order, each launch between two marks */
  kgrt_status_t st = KGRT_STATUS_OK;
  for (uint32_t r = 0; r < reps && st == KGRT_STATUS_OK; ++r) {
    int first = 1;
    for (uint32_t s = 0; s < arch->num_steps && st == KGRT_STATUS_OK; ++s) {
      if (!out[s].launched)
        continue;
      st = dev->vtable->timer(dev, model->program, 0, NULL, err);
      if (st == KGRT_STATUS_OK)
        st = kgrt_model_run_step(model, s, &first, err);
      if (st != KGRT_STATUS_OK && model->comm != NULL)
        kgrt_comm_break(model->comm, model->rank, err != NULL ? err->message : "failed");
      if (st == KGRT_STATUS_OK)
        st = dev->vtable->timer(dev, model->program, 1, &us[(size_t)s * reps + r], err);
    }
  }
  for (uint32_t s = 0; s < arch->num_steps && st == KGRT_STATUS_OK; ++s) {
    double *v = &us[(size_t)s * reps];
    qsort(v, reps, sizeof *v, kgrt_cmp_double);
    out[s].us = reps % 2 ? v[reps / 2] : (v[reps / 2 - 1] + v[reps / 2]) / 2;
  }
  kgrt_free(&dev->alloc, us);
  KGRT_RETURN_IF_ERROR(st);
  model->has_run = 1; /* the last rep ran the whole plan */
  return KGRT_STATUS_OK;
}
