/* kgrt_loop.c - the device-resident loop: outputs linked to the inputs they
 * feed, dims that move between steps, and kgrt_model_run_steps, which runs
 * the plan several times without the host between (optionally collecting
 * one output of every step).
 *
 * Needs a loaded model (kgrt_model.h), its plan (kgrt_plan.c) and its
 * device's copies. Gives the link, step_dim, clear_links and run_steps
 * calls of kgrt.h. */
#include <string.h>

#include "kgrt_model.h"

kgrt_status_t kgrt_model_link(kgrt_model_t *model, const char *output, const char *input,
                              kgrt_error_t *err) {
  kgrt_error_clear(err);
  if (model == NULL || output == NULL || input == NULL)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "kgrt_model_link: model, output or input is NULL");
  const kgrt_model_table_t *table = model->table;
  const char *name = kgrt_table_name(table);
  const kgrt_tensor_info_t *to, *ti;
  kgrt_tensor_buffer_t *bo, *bi;
  if (!kgrt_tensor_find(model, KGRT_TENSOR_OUTPUT, output, &to, &bo))
    return kgrt_error_set(err, KGRT_STATUS_NOT_FOUND, "model %s has no output %s", name,
                          output);
  if (!kgrt_tensor_find(model, KGRT_TENSOR_INPUT, input, &ti, &bi))
    return kgrt_error_set(err, KGRT_STATUS_NOT_FOUND, "model %s has no input %s", name,
                          input);
  if (to->dtype != ti->dtype || to->rank != ti->rank)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "model %s: output %s (dtype %d, rank %u) cannot feed input %s "
                          "(dtype %d, rank %u)",
                          name, output, (int)to->dtype, to->rank, input, (int)ti->dtype,
                          ti->rank);
  model->loop.links[ti - table->inputs] = (int32_t)(to - table->outputs);
  model->loop.advance_pending = 0;
  return KGRT_STATUS_OK;
}

kgrt_status_t kgrt_model_step_dim(kgrt_model_t *model, const char *sym, int64_t delta,
                                  kgrt_error_t *err) {
  kgrt_error_clear(err);
  if (model == NULL || sym == NULL)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "kgrt_model_step_dim: model or sym is NULL");
  const kgrt_model_table_t *table = model->table;
  uint32_t i = 0;
  KGRT_RETURN_IF_ERROR(kgrt_model_find_dim(model, sym, &i, err));
  if (delta < -table->syms[i].max || delta > table->syms[i].max)
    return kgrt_error_set(
        err, KGRT_STATUS_OUT_OF_RANGE, "model %s: a step of %lld for dim %s (max %lld)",
        kgrt_table_name(table), (long long)delta, sym, (long long)table->syms[i].max);
  model->loop.step_dims[i] = delta;
  model->loop.advance_pending = 0;
  return KGRT_STATUS_OK;
}

void kgrt_model_clear_links(kgrt_model_t *model) {
  if (model == NULL)
    return;
  for (uint32_t i = 0; i < model->table->num_inputs; ++i)
    model->loop.links[i] = -1;
  memset(model->loop.step_dims, 0,
         model->table->num_syms * sizeof *model->loop.step_dims);
  model->loop.advance_pending = 0;
}

/* Between two steps: each linked output copied into its input on the device
 * (sizes at the dims of the step that ran), then each stepped dim moved. */
static kgrt_status_t kgrt_model_advance(kgrt_model_t *model, kgrt_error_t *err) {
  const kgrt_model_table_t *table = model->table;
  kgrt_device_t *dev = model->device;
  for (uint32_t i = 0; i < table->num_inputs; ++i) {
    if (model->loop.links[i] < 0)
      continue;
    const uint32_t o = (uint32_t)model->loop.links[i];
    size_t out_bytes = 0, in_bytes = 0;
    kgrt_tensor_size(&table->outputs[o], model->dims, &out_bytes);
    kgrt_tensor_size(&table->inputs[i], model->dims, &in_bytes);
    if (out_bytes != in_bytes)
      return kgrt_error_set(err, KGRT_STATUS_OUT_OF_RANGE,
                            "model %s: output %s is %zu bytes, input %s it feeds %zu, "
                            "with the dims set now",
                            kgrt_table_name(table), table->outputs[o].name, out_bytes,
                            table->inputs[i].name, in_bytes);
    if (out_bytes > 0 && !model->inputs[i].elsewhere)
      KGRT_RETURN_IF_ERROR(
          dev->vtable->buffer_copy(dev, model->program, model->inputs[i].addr,
                                   model->outputs[o].addr, out_bytes, err));
    model->inputs[i].bound = 1;
    model->inputs[i].bound_bytes = in_bytes;
  }
  for (uint32_t i = 0; i < table->num_syms; ++i)
    if (model->loop.step_dims[i] != 0) {
      model->dims[i] += model->loop.step_dims[i]; /* checked by kgrt_model_run_steps */
      model->has_run = 0;
    }
  return KGRT_STATUS_OK;
}

kgrt_status_t kgrt_model_run_steps(kgrt_model_t *model, uint32_t steps,
                                   const char *collect, void *host, size_t bytes,
                                   kgrt_error_t *err) {
  kgrt_error_clear(err);
  if (model == NULL || steps == 0 || (collect != NULL && host == NULL))
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "kgrt_model_run_steps: model is NULL, steps is 0, or collect "
                          "without host memory");
  const kgrt_model_table_t *table = model->table;
  const char *name = kgrt_table_name(table);
  kgrt_device_t *dev = model->device;
  const int pending = model->loop.advance_pending;
  int stepped = 0;
  /* every dim stays in range through the last step */
  for (uint32_t i = 0; i < table->num_syms; ++i) {
    if (model->loop.step_dims[i] == 0)
      continue;
    stepped = 1;
    if (!kgrt_dim_is_set(model, i))
      return kgrt_error_set(err, KGRT_STATUS_FAILED_PRECONDITION,
                            "model %s: dim %s is not set", name, table->syms[i].name);
    const int64_t last =
        model->dims[i] + model->loop.step_dims[i] * ((int64_t)steps - 1 + pending);
    const int64_t min = kgrt_sym_min(table, i);
    if (last < min || last > table->syms[i].max)
      return kgrt_error_set(
          err, KGRT_STATUS_OUT_OF_RANGE,
          "model %s: dim %s would reach %lld in %u steps (range %lld..%lld)", name,
          table->syms[i].name, (long long)last, steps, (long long)min,
          (long long)table->syms[i].max);
  }
  const kgrt_tensor_info_t *ct = NULL;
  kgrt_tensor_buffer_t *cb = NULL;
  size_t per_step = 0;
  if (collect != NULL) {
    if (!kgrt_tensor_find(model, KGRT_TENSOR_OUTPUT, collect, &ct, &cb))
      return kgrt_error_set(err, KGRT_STATUS_NOT_FOUND, "model %s has no output %s", name,
                            collect);
    for (uint32_t d = 0; d < ct->rank; ++d)
      if (ct->dims[d].sym >= 0 && model->loop.step_dims[ct->dims[d].sym] != 0)
        return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                              "model %s: output %s changes size between steps (dim %s); "
                              "it cannot be collected",
                              name, collect, table->syms[ct->dims[d].sym].name);
    KGRT_RETURN_IF_ERROR(
        kgrt_tensor_bytes_now(model, KGRT_TENSOR_OUTPUT, ct, &per_step, err));
    if (per_step == 0 || bytes / per_step != steps || bytes % per_step != 0)
      return kgrt_error_set(err, KGRT_STATUS_OUT_OF_RANGE,
                            "model %s: %u steps of output %s are %u x %zu bytes, got %zu",
                            name, steps, collect, steps, per_step, bytes);
    if (model->loop.collect_capacity < bytes) {
      if (model->loop.collect_addr != 0)
        dev->vtable->buffer_free(dev, model->loop.collect_addr);
      model->loop.collect_addr = 0;
      model->loop.collect_capacity = 0;
      KGRT_RETURN_IF_ERROR(
          dev->vtable->buffer_alloc(dev, bytes, &model->loop.collect_addr, err));
      model->loop.collect_capacity = bytes;
    }
  }
  model->loop.advance_pending = 0;
  for (uint32_t s = 0; s < steps; ++s) {
    model->has_run = 0;
    if (s > 0 || pending)
      KGRT_RETURN_IF_ERROR(kgrt_model_advance(model, err));
    KGRT_RETURN_IF_ERROR(kgrt_model_check_ready(model, err));
    /* dims that move every step: the graph updated every step where the
     * device can (else it would be captured and instantiated anew) */
    KGRT_RETURN_IF_ERROR(kgrt_model_launch_plan(
        model,
        !stepped || dev->vtable->graph_update != NULL ? KGRT_REPLAY_ALWAYS
                                                      : KGRT_REPLAY_OFF,
        err));
    if (collect != NULL)
      KGRT_RETURN_IF_ERROR(dev->vtable->buffer_copy(
          dev, model->program, model->loop.collect_addr + (uint64_t)s * per_step,
          cb->addr, per_step, err));
    model->has_run = 1;
  }
  model->loop.advance_pending = 1;
  if (collect != NULL)
    KGRT_RETURN_IF_ERROR(dev->vtable->buffer_read(dev, model->program, host,
                                                  model->loop.collect_addr, bytes, err));
  return KGRT_STATUS_OK;
}
