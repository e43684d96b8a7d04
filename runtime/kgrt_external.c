/* kgrt_external.c - the caller's device memory as a model's input or output
 * (kgrt_model_bind_device, kgrt_model_unbind_device: a PyTorch tensor on the
 * GPU read and written by the plan in place) and the wait for a model's runs
 * (kgrt_model_wait).
 *
 * Needs kgrt_model.c's buffers and dims (kgrt_external.h), the device vtable
 * and the table's size arithmetic (kgrt_table_check.h: kgrt_expr_eval).
 * Every check comes before the model changes: the tensor (an input that is
 * not state, or an output), the device (one whose addresses the caller can
 * hold: sim, hip, cuda), the pointer's alignment, and the bytes against the
 * tensor's size and every plan step's span of it at the dims set now. */
#include <string.h>

#include "kgrt_external.h"
#include "kgrt_table_check.h"

/* kgrt's own buffers are aligned to at least this (kgrt_device.h). */
#define KGRT_EXTERNAL_ALIGN 256u

static const char *kgrt_external_name(const kgrt_model_table_t *table) {
  return table->name != NULL ? table->name : "?";
}

/* Input or output `name` of the model: *out_output (0 input, 1 output) and
 * *out_index. */
static kgrt_status_t kgrt_external_find(const kgrt_model_t *model, const char *name,
                                        int *out_output, uint32_t *out_index,
                                        kgrt_error_t *err) {
  const kgrt_model_table_t *table = kgrt_model_table(model);
  const char *model_name = kgrt_external_name(table);
  for (uint32_t i = 0; i < table->num_inputs; ++i)
    if (strcmp(table->inputs[i].name, name) == 0) {
      if (table->inputs[i].flags & KGRT_TENSOR_STATE)
        return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                              "model %s: input %s is state, which lives in the model's "
                              "own buffer",
                              model_name, name);
      *out_output = 0, *out_index = i;
      return KGRT_STATUS_OK;
    }
  for (uint32_t i = 0; i < table->num_outputs; ++i)
    if (strcmp(table->outputs[i].name, name) == 0) {
      *out_output = 1, *out_index = i;
      return KGRT_STATUS_OK;
    }
  for (uint32_t i = 0; i < table->num_weights; ++i)
    if (strcmp(table->weights[i].name, name) == 0)
      return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                            "model %s: %s is a weight; only inputs and outputs take the "
                            "caller's memory",
                            model_name, name);
  return kgrt_error_set(err, KGRT_STATUS_NOT_FOUND, "model %s has no input or output %s",
                        model_name, name);
}

/* Every step argument that binds the tensor spans at most `bytes` from the
 * buffer's start at the dims set now. */
static kgrt_status_t kgrt_external_check_spans(const kgrt_model_t *model, int output,
                                               uint32_t index, const char *name,
                                               size_t bytes, kgrt_error_t *err) {
  const kgrt_model_table_t *table = kgrt_model_table(model);
  const kgrt_arch_table_t *arch = kgrt_table_find_arch(table, kgrt_model_arch(model));
  const kgrt_space_t space = output ? KGRT_SPACE_OUTPUT : KGRT_SPACE_INPUT;
  if (arch == NULL)
    return kgrt_error_set(err, KGRT_STATUS_INTERNAL, "model %s: arch %s not in its table",
                          kgrt_external_name(table), kgrt_model_arch(model));
  for (uint32_t s = 0; s < arch->num_steps; ++s) {
    const kgrt_step_t *step = &arch->steps[s];
    const int collective = step->collective != KGRT_COLLECTIVE_NONE;
    const uint32_t n = collective ? 2 : arch->kernels[step->kernel].num_args;
    for (uint32_t a = 0; a < n; ++a) {
      const kgrt_step_arg_t *arg = &step->args[a];
      if ((!collective && arch->kernels[step->kernel].args[a].kind != KGRT_ARG_BUFFER) ||
          arg->space != space || arg->index != index)
        continue;
      int64_t span = 0;
      /* the table's checks put every sym of bytes in range */
      if (kgrt_expr_eval(&arg->bytes, kgrt_model_dims(model), &span) != 0 || span < 0 ||
          arg->offset > bytes || (uint64_t)span > bytes - arg->offset)
        return kgrt_error_set(err, KGRT_STATUS_OUT_OF_RANGE,
                              "model %s: step %u spans %lld bytes at offset %llu of %s "
                              "%s; the memory bound is %zu bytes",
                              kgrt_external_name(table), s, (long long)span,
                              (unsigned long long)arg->offset,
                              output ? "output" : "input", name, bytes);
    }
  }
  return KGRT_STATUS_OK;
}

kgrt_status_t kgrt_model_bind_device(kgrt_model_t *model, const char *name, void *ptr,
                                     size_t bytes, kgrt_error_t *err) {
  kgrt_error_clear(err);
  if (model == NULL || name == NULL || ptr == NULL)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "kgrt_model_bind_device: model, name or ptr is NULL");
  const kgrt_model_table_t *table = kgrt_model_table(model);
  const kgrt_device_t *dev = kgrt_model_device(model);
  const char *kind = dev->vtable->kind;
  if (strcmp(kind, "sim") != 0 && strcmp(kind, "cuda") != 0 && strcmp(kind, "hip") != 0)
    return kgrt_error_set(err, KGRT_STATUS_UNAVAILABLE,
                          "%s: %s %s: this device's memory is its own region; bind "
                          "host memory with kgrt_model_set_input",
                          dev->name, kgrt_external_name(table), name);
  if (table->ranks > 1)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "model %s is split over %u ranks; only a whole model takes the "
                          "caller's memory",
                          kgrt_external_name(table), table->ranks);
  int output = 0;
  uint32_t index = 0;
  KGRT_RETURN_IF_ERROR(kgrt_external_find(model, name, &output, &index, err));
  if ((uintptr_t)ptr % KGRT_EXTERNAL_ALIGN != 0)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "model %s: %s %s: memory at %p is not aligned to %u bytes",
                          kgrt_external_name(table), output ? "output" : "input", name,
                          ptr, KGRT_EXTERNAL_ALIGN);
  size_t size = 0;
  KGRT_RETURN_IF_ERROR(kgrt_model_tensor_bytes(model, name, &size, err));
  if (bytes < size)
    return kgrt_error_set(
        err, KGRT_STATUS_OUT_OF_RANGE,
        "model %s: %s %s is %zu bytes with the dims set now; the memory "
        "bound is %zu bytes",
        kgrt_external_name(table), output ? "output" : "input", name, size, bytes);
  KGRT_RETURN_IF_ERROR(kgrt_external_check_spans(model, output, index, name, bytes, err));
  kgrt_model_set_buffer(model, output, index, (uint64_t)(uintptr_t)ptr, size);
  return KGRT_STATUS_OK;
}

kgrt_status_t kgrt_model_unbind_device(kgrt_model_t *model, const char *name,
                                       kgrt_error_t *err) {
  kgrt_error_clear(err);
  if (model == NULL || name == NULL)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "kgrt_model_unbind_device: model or name is NULL");
  int output = 0;
  uint32_t index = 0;
  KGRT_RETURN_IF_ERROR(kgrt_external_find(model, name, &output, &index, err));
  kgrt_model_set_buffer(model, output, index, 0, 0);
  return KGRT_STATUS_OK;
}

/* One byte read back after the model's queued work: the device's read waits
 * for that work first (kgrt_device.h) and reports its faults. */
kgrt_status_t kgrt_model_wait(kgrt_model_t *model, kgrt_error_t *err) {
  kgrt_error_clear(err);
  if (model == NULL)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "kgrt_model_wait: model is NULL");
  const kgrt_model_table_t *table = kgrt_model_table(model);
  kgrt_device_t *dev = kgrt_model_device(model);
  uint64_t addr = 0;
  for (uint32_t i = 0; addr == 0 && i < table->num_outputs; ++i)
    addr = kgrt_model_buffer_addr(model, 1, i);
  for (uint32_t i = 0; addr == 0 && i < table->num_inputs; ++i)
    addr = kgrt_model_buffer_addr(model, 0, i);
  if (addr == 0) /* no buffer: nothing a run wrote can be read */
    return KGRT_STATUS_OK;
  unsigned char byte;
  return dev->vtable->buffer_read(dev, kgrt_model_program(model), &byte, addr, 1, err);
}
