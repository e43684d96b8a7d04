/* kgrt_model.c - loading a model and unloading it: the table's ABI and
 * arch names, the arch the device picks, the table and code object checks
 * (kgrt_table_check.c), then the code loaded and the buffers allocated at
 * the dims' maxima with its state zeroed; what a model takes on the device;
 * the accessors kgrt_external.c and the devices read.
 *
 * Order of model loading, each step before anything that depends on it:
 *   table ABI -> arch names -> device picks an arch -> table structure (every
 *   index, pointer and size of the picked arch, every expression evaluated at
 *   the dims' maxima) -> code object (ELF, machine, arch, kernels, kernarg
 *   layouts, block sizes; hsaco for amdgcn triples, cubin for nvptx ones) ->
 *   device loads the code -> buffers.
 * A failure at any step frees what the earlier steps made.
 *
 * Needs a device (kgrt_device.h) and the table checks. Gives the load,
 * unload and memory calls of kgrt.h, kgrt_model_reset_state, and
 * kgrt_model_alloc and kgrt_model_zero (kgrt_model.h). */
#include <stdlib.h>
#include <string.h>

#include "kgrt_external.h"
#include "kgrt_model.h"

static void kgrt_buffers_free(kgrt_model_t *model, kgrt_tensor_buffer_t *b, uint32_t n) {
  if (b == NULL)
    return;
  for (uint32_t i = 0; i < n; ++i)
    if (b[i].addr != 0)
      model->device->vtable->buffer_free(model->device,
                                         b[i].own != 0 ? b[i].own : b[i].addr);
  kgrt_free(&model->device->alloc, b);
}

void kgrt_model_unload(kgrt_model_t *model) {
  if (model == NULL)
    return;
  kgrt_device_t *dev = model->device;
  const kgrt_allocator_t *alloc = &dev->alloc;
  kgrt_buffers_free(model, model->inputs, model->table->num_inputs);
  kgrt_buffers_free(model, model->weights, model->table->num_weights);
  kgrt_buffers_free(model, model->outputs, model->table->num_outputs);
  if (model->arena_raw != 0)
    dev->vtable->buffer_free(dev, model->arena_raw);
  if (model->loop.collect_addr != 0)
    dev->vtable->buffer_free(dev, model->loop.collect_addr);
  if (model->replay.graph != NULL)
    dev->vtable->graph_destroy(dev, model->replay.graph);
  if (model->comm != NULL)
    dev->vtable->comm_leave(dev, model->program);
  if (model->program != NULL)
    dev->vtable->program_unload(dev, model->program);
  kgrt_free(alloc, model->arg_bytes);
  kgrt_free(alloc, model->kernarg);
  kgrt_free(alloc, model->max_dims);
  kgrt_free(alloc, model->dims);
  kgrt_free(alloc, model->replay.dims);
  kgrt_free(alloc, model->replay.seen);
  kgrt_free(alloc, model->loop.step_dims);
  kgrt_free(alloc, model->loop.links);
  kgrt_free(alloc, model);
}

static void kgrt_memory_of(const kgrt_model_table_t *table, const kgrt_arch_table_t *arch,
                           const int64_t *max, const kgrt_model_t *held,
                           kgrt_memory_t *out);

/* A device buffer for the model; when the device is out of memory, the
 * message says what the whole model needs beside what the device said. */
kgrt_status_t kgrt_model_alloc(kgrt_model_t *model, size_t bytes, uint64_t *addr,
                               kgrt_error_t *err) {
  kgrt_device_t *dev = model->device;
  kgrt_status_t st = dev->vtable->buffer_alloc(dev, bytes, addr, err);
  if (st == KGRT_STATUS_OUT_OF_MEMORY && err != NULL) {
    kgrt_memory_t need;
    char why[KGRT_ERROR_MESSAGE_MAX];
    memcpy(why, err->message, sizeof why);
    kgrt_memory_of(model->table, model->arch, model->max_dims, NULL, &need);
    kgrt_error_set(err, st, "model %s needs %llu bytes of device memory on %s: %s",
                   kgrt_table_name(model->table), (unsigned long long)need.total,
                   dev->name, why);
  }
  return st;
}

/* The buffers of n tensors, allocated at the dims' maxima (with `defer`,
 * sized only: a pipeline's, kgrt_model_place allocates them). */
static kgrt_status_t kgrt_buffers_alloc(kgrt_model_t *model, const kgrt_tensor_info_t *t,
                                        uint32_t n, int defer, kgrt_tensor_buffer_t **out,
                                        kgrt_error_t *err) {
  kgrt_device_t *dev = model->device;
  kgrt_tensor_buffer_t *b = kgrt_calloc(&dev->alloc, n, sizeof *b);
  if (b == NULL)
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_MEMORY, "model %s: out of host memory",
                          kgrt_table_name(model->table));
  *out = b;
  for (uint32_t i = 0; i < n; ++i) {
    kgrt_tensor_size(&t[i], model->max_dims, &b[i].capacity);
    size_t bytes = b[i].capacity > 0 ? b[i].capacity : 1;
    if (!defer)
      KGRT_RETURN_IF_ERROR(kgrt_model_alloc(model, bytes, &b[i].addr, err));
  }
  return KGRT_STATUS_OK;
}

/* Writes zeros over `bytes` at device address `addr`, 1 MiB at a time. */
kgrt_status_t kgrt_model_zero(kgrt_model_t *model, uint64_t addr, uint64_t bytes,
                              kgrt_error_t *err) {
  kgrt_device_t *dev = model->device;
  if (bytes == 0)
    return KGRT_STATUS_OK;
  const size_t chunk = bytes < (1u << 20) ? (size_t)bytes : (size_t)1 << 20;
  void *zeros = kgrt_calloc(&dev->alloc, chunk, 1);
  if (zeros == NULL)
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_MEMORY, "model %s: out of host memory",
                          kgrt_table_name(model->table));
  kgrt_status_t st = KGRT_STATUS_OK;
  for (uint64_t at = 0; at < bytes && st == KGRT_STATUS_OK; at += chunk) {
    const uint64_t left = bytes - at;
    st = dev->vtable->buffer_write(dev, model->program, addr + at, zeros,
                                   left < chunk ? (size_t)left : chunk, err);
  }
  kgrt_free(&dev->alloc, zeros);
  return st;
}

/* The state: the arena's first arena_zero_bytes (what kernels keep across
 * runs) and every state input, whole. */
static kgrt_status_t kgrt_model_zero_state(kgrt_model_t *model, kgrt_error_t *err) {
  const kgrt_model_table_t *table = model->table;
  KGRT_RETURN_IF_ERROR(
      kgrt_model_zero(model, model->arena_addr, model->arch->arena_zero_bytes, err));
  for (uint32_t i = 0; i < table->num_inputs; ++i)
    if ((table->inputs[i].flags & KGRT_TENSOR_STATE) && model->inputs[i].addr != 0)
      KGRT_RETURN_IF_ERROR(
          kgrt_model_zero(model, model->inputs[i].addr, model->inputs[i].capacity, err));
  return KGRT_STATUS_OK;
}

/* Everything after validation: code, host scratch, device buffers. */
static kgrt_status_t kgrt_model_init(kgrt_model_t *model, kgrt_error_t *err) {
  kgrt_device_t *dev = model->device;
  const kgrt_model_table_t *table = model->table;
  const kgrt_arch_table_t *arch = model->arch;
  const char *name = kgrt_table_name(table);

  uint32_t kernarg_max = 8, args_max = 1;
  for (uint32_t k = 0; k < arch->num_kernels; ++k) {
    if (arch->kernels[k].kernarg_size > kernarg_max)
      kernarg_max = arch->kernels[k].kernarg_size;
    if (arch->kernels[k].num_args > args_max)
      args_max = arch->kernels[k].num_args;
  }
  model->kernarg = kgrt_calloc(&dev->alloc, kernarg_max, 1);
  model->arg_bytes = kgrt_calloc(&dev->alloc, args_max, sizeof *model->arg_bytes);
  if (model->kernarg == NULL || model->arg_bytes == NULL)
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_MEMORY, "model %s: out of host memory",
                          name);

  KGRT_RETURN_IF_ERROR(dev->vtable->program_load(dev, table, arch, &model->program, err));

  if (arch->arena_bytes > 0) {
    uint64_t align = arch->arena_align > 256 ? arch->arena_align : 0;
    if (arch->arena_bytes > SIZE_MAX - align) /* <= 2^48 + 2^31 (kgrt_table_check_arch) */
      return kgrt_error_set(err, KGRT_STATUS_OUT_OF_MEMORY,
                            "model %s: arena of %llu bytes is too large", name,
                            (unsigned long long)arch->arena_bytes);
    KGRT_RETURN_IF_ERROR(kgrt_model_alloc(model, (size_t)(arch->arena_bytes + align),
                                          &model->arena_raw, err));
    model->arena_addr =
        align ? (model->arena_raw + align - 1) & ~(align - 1) : model->arena_raw;
  }
  for (uint32_t s = 0; s < arch->num_steps; ++s)
    model->pipeline |= arch->steps[s].collective == KGRT_COLLECTIVE_NONE &&
                       arch->steps[s].rank >= 0 && table->ranks > 1;
  KGRT_RETURN_IF_ERROR(kgrt_buffers_alloc(model, table->inputs, table->num_inputs,
                                          model->pipeline, &model->inputs, err));
  KGRT_RETURN_IF_ERROR(kgrt_buffers_alloc(model, table->weights, table->num_weights,
                                          model->pipeline, &model->weights, err));
  KGRT_RETURN_IF_ERROR(kgrt_buffers_alloc(model, table->outputs, table->num_outputs, 0,
                                          &model->outputs, err));
  return kgrt_model_zero_state(model, err);
}

/* The table's ABI and arch names, then the arch the device picks. */
static kgrt_status_t kgrt_table_pick(kgrt_device_t *device,
                                     const kgrt_model_table_t *table,
                                     const kgrt_arch_table_t **out_arch,
                                     kgrt_error_t *err) {
  /* The ABI first: with another ABI no other field can be trusted. */
  if (table->abi != KGRT_TABLE_ABI)
    return kgrt_error_set(err, KGRT_STATUS_ABI_MISMATCH,
                          "model table ABI is %u; this runtime reads ABI %d", table->abi,
                          KGRT_TABLE_ABI);
  const char *name = kgrt_table_name(table);
  if (table->num_arches == 0 || table->arches == NULL)
    return kgrt_error_set(err, KGRT_STATUS_NO_MATCHING_ARCH,
                          "model %s: built for no arch", name);
  for (uint32_t i = 0; i < table->num_arches; ++i)
    if (table->arches[i] == NULL || table->arches[i]->arch == NULL)
      return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                            "model %s: arch %u has no name", name, i);

  return device->vtable->arch_select(device, table, out_arch, err);
}

/* What a model takes on the device with every dim at its max: each buffer as
 * kgrt_model_init allocates it (sizes were checked at the maxima); with
 * `held` (a pipeline model after its join), its inputs and weights count
 * only the buffers this rank allocated, at their capacity. */
static void kgrt_memory_of(const kgrt_model_table_t *table, const kgrt_arch_table_t *arch,
                           const int64_t *max, const kgrt_model_t *held,
                           kgrt_memory_t *out) {
  memset(out, 0, sizeof *out);
  if (arch->arena_bytes > 0)
    out->arena = arch->arena_bytes + (arch->arena_align > 256 ? arch->arena_align : 0);
  out->state = arch->arena_zero_bytes;
  const kgrt_tensor_info_t *t[] = {table->inputs, table->weights, table->outputs};
  const kgrt_tensor_buffer_t *b[] = {held ? held->inputs : NULL,
                                     held ? held->weights : NULL, NULL};
  const uint32_t n[] = {table->num_inputs, table->num_weights, table->num_outputs};
  uint64_t *sum[] = {&out->inputs, &out->weights, &out->outputs};
  for (int k = 0; k < 3; ++k)
    for (uint32_t i = 0; i < n[k]; ++i) {
      size_t bytes = 0;
      if (b[k] == NULL)
        kgrt_tensor_size(&t[k][i], max, &bytes);
      else if (b[k][i].addr == 0)
        continue; /* another rank's */
      else
        bytes = b[k][i].capacity;
      *sum[k] += bytes > 0 ? bytes : 1;
      if (t[k][i].flags & KGRT_TENSOR_STATE)
        out->state += bytes;
    }
  out->total = out->arena + out->inputs + out->weights + out->outputs;
}

void kgrt_model_held_memory(const kgrt_model_t *model, kgrt_memory_t *out) {
  memset(out, 0, sizeof *out);
  if (model != NULL)
    kgrt_memory_of(model->table, model->arch, model->max_dims,
                   model->pipeline ? model : NULL, out);
}

kgrt_status_t kgrt_model_memory(kgrt_device_t *device, const kgrt_model_table_t *table,
                                kgrt_memory_t *out_memory, kgrt_error_t *err) {
  kgrt_error_clear(err);
  if (device == NULL || table == NULL || out_memory == NULL)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "kgrt_model_memory: NULL argument");
  memset(out_memory, 0, sizeof *out_memory);
  const kgrt_arch_table_t *arch = NULL;
  KGRT_RETURN_IF_ERROR(kgrt_table_pick(device, table, &arch, err));
  KGRT_RETURN_IF_ERROR(kgrt_table_check_syms(table, err));
  int64_t *max = kgrt_calloc(&device->alloc, table->num_syms, sizeof *max);
  if (max == NULL)
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_MEMORY, "model %s: out of host memory",
                          kgrt_table_name(table));
  for (uint32_t i = 0; i < table->num_syms; ++i)
    max[i] = table->syms[i].max;
  kgrt_status_t st = kgrt_table_check_interface(table, max, err);
  if (st == KGRT_STATUS_OK)
    st = kgrt_table_check_arch(table, arch, max, err);
  if (st == KGRT_STATUS_OK)
    kgrt_memory_of(table, arch, max, NULL, out_memory);
  kgrt_free(&device->alloc, max);
  return st;
}

kgrt_status_t kgrt_model_load(kgrt_device_t *device, const kgrt_model_table_t *table,
                              kgrt_model_t **out_model, kgrt_error_t *err) {
  kgrt_error_clear(err);
  if (out_model == NULL)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "kgrt_model_load: out_model is NULL");
  *out_model = NULL;
  if (device == NULL || table == NULL)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "kgrt_model_load: device or table is NULL");
  const char *name = kgrt_table_name(table);
  const kgrt_arch_table_t *arch = NULL;
  KGRT_RETURN_IF_ERROR(kgrt_table_pick(device, table, &arch, err));

  kgrt_model_t *model = kgrt_calloc(&device->alloc, 1, sizeof *model);
  if (model == NULL)
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_MEMORY, "model %s: out of host memory",
                          name);
  model->device = device;
  model->table = table;
  model->arch = arch;
  model->dims = kgrt_calloc(&device->alloc, table->num_syms, sizeof *model->dims);
  model->max_dims = kgrt_calloc(&device->alloc, table->num_syms, sizeof *model->max_dims);
  model->replay.dims = kgrt_calloc(&device->alloc, table->num_syms, sizeof(int64_t));
  model->replay.seen = kgrt_calloc(&device->alloc, table->num_syms, sizeof(int64_t));
  model->loop.step_dims = kgrt_calloc(&device->alloc, table->num_syms, sizeof(int64_t));
  model->loop.links = kgrt_calloc(&device->alloc, table->num_inputs, sizeof(int32_t));
  model->replay.on = device->replay && device->vtable->graph_begin != NULL;
  kgrt_status_t st = KGRT_STATUS_OK;
  if (model->dims == NULL || model->max_dims == NULL || model->replay.dims == NULL ||
      model->replay.seen == NULL || model->loop.step_dims == NULL ||
      model->loop.links == NULL)
    st = kgrt_error_set(err, KGRT_STATUS_OUT_OF_MEMORY, "model %s: out of host memory",
                        name);
  if (st == KGRT_STATUS_OK)
    st = kgrt_table_check_syms(table, err);
  for (uint32_t i = 0; st == KGRT_STATUS_OK && i < table->num_syms; ++i) {
    model->max_dims[i] = table->syms[i].max;
    if (kgrt_sym_is_count(table, i))
      model->dims[i] = -1; /* not set: 0 is a count's value */
  }
  for (uint32_t i = 0; st == KGRT_STATUS_OK && i < table->num_inputs; ++i)
    model->loop.links[i] = -1;
  if (st == KGRT_STATUS_OK)
    st = kgrt_table_check_interface(table, model->max_dims, err);
  if (st == KGRT_STATUS_OK)
    st = kgrt_table_check_arch(table, arch, model->max_dims, err);
  if (st == KGRT_STATUS_OK) /* the triple is one of two (kgrt_table_check_arch) */
    st = kgrt_table_check_codeobj(table, arch, kgrt_triple_kind(arch->triple),
                                  &device->alloc, err);
  if (st == KGRT_STATUS_OK)
    st = kgrt_model_init(model, err);
  if (st != KGRT_STATUS_OK) {
    kgrt_model_unload(model);
    return st;
  }
  *out_model = model;
  return KGRT_STATUS_OK;
}

const char *kgrt_model_arch(const kgrt_model_t *model) {
  return model != NULL ? model->arch->arch : "";
}

const kgrt_model_table_t *kgrt_model_table(const kgrt_model_t *model) {
  return model->table;
}

int64_t kgrt_model_dim_value(const kgrt_model_t *model, uint32_t sym) {
  return sym < model->table->num_syms ? model->dims[sym] : 0;
}

const int64_t *kgrt_model_dims(const kgrt_model_t *model) {
  return model->dims;
}

kgrt_status_t kgrt_model_reset_state(kgrt_model_t *model, kgrt_error_t *err) {
  kgrt_error_clear(err);
  if (model == NULL)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "kgrt_model_reset_state: model is NULL");
  return kgrt_model_zero_state(model, err);
}

/* ---- what kgrt_external.c reads and changes of a model ------------------- */

kgrt_device_t *kgrt_model_device(const kgrt_model_t *model) {
  return model->device;
}

kgrt_device_program_t *kgrt_model_program(const kgrt_model_t *model) {
  return model->program;
}

uint64_t kgrt_model_buffer_addr(const kgrt_model_t *model, int output, uint32_t index) {
  return (output ? model->outputs : model->inputs)[index].addr;
}

void kgrt_model_set_buffer(kgrt_model_t *model, int output, uint32_t index, uint64_t addr,
                           size_t bytes) {
  kgrt_tensor_buffer_t *b = &(output ? model->outputs : model->inputs)[index];
  if (addr != 0) {
    if (b->own == 0)
      b->own = b->addr;
    b->addr = addr;
    b->bound = !output;
    b->bound_bytes = bytes;
  } else if (b->own != 0) {
    b->addr = b->own;
    b->own = 0;
    b->bound = 0;
    b->bound_bytes = 0;
  }
  if (model->replay.graph != NULL) /* it holds the old address: capture anew */
    model->device->vtable->graph_destroy(model->device, model->replay.graph);
  model->replay.graph = NULL;
  model->has_run = 0;
  model->loop.advance_pending = 0;
}
