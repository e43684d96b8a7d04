/* kgrt_bind.c - a loaded model's dims and tensors: setting a dim, finding a
 * tensor and its size at the dims set now, binding inputs and weights (a
 * split weight's part cut from the whole), reading outputs back.
 *
 * Needs a loaded model (kgrt_model.h) and its device's buffer calls. Gives
 * the set_dim, tensor_bytes, set_input, set_weight(_whole) and get_output
 * calls of kgrt.h, and the tensor lookups kgrt_model.h declares. */
#include <string.h>

#include "kgrt_model.h"

int64_t kgrt_sym_min(const kgrt_model_table_t *table, uint32_t sym) {
  return kgrt_sym_is_rank(table, sym) || kgrt_sym_is_count(table, sym) ? 0 : 1;
}

int kgrt_dim_is_set(const kgrt_model_t *model, uint32_t sym) {
  return kgrt_sym_is_rank(model->table, sym) ||
         model->dims[sym] >= kgrt_sym_min(model->table, sym);
}

kgrt_status_t kgrt_model_find_dim(const kgrt_model_t *model, const char *sym,
                                  uint32_t *out_index, kgrt_error_t *err) {
  const kgrt_model_table_t *table = model->table;
  for (uint32_t i = 0; i < table->num_syms; ++i) {
    if (strcmp(table->syms[i].name, sym) != 0)
      continue;
    if (kgrt_sym_is_rank(table, i))
      return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                            "model %s: dim %s is the model's rank, which kgrt_model_join "
                            "sets",
                            kgrt_table_name(table), sym);
    *out_index = i;
    return KGRT_STATUS_OK;
  }
  return kgrt_error_set(err, KGRT_STATUS_NOT_FOUND, "model %s has no dim %s",
                        kgrt_table_name(table), sym);
}

kgrt_status_t kgrt_model_set_dim(kgrt_model_t *model, const char *sym, int64_t value,
                                 kgrt_error_t *err) {
  kgrt_error_clear(err);
  if (model == NULL || sym == NULL)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "kgrt_model_set_dim: model or sym is NULL");
  const kgrt_model_table_t *table = model->table;
  uint32_t i = 0;
  KGRT_RETURN_IF_ERROR(kgrt_model_find_dim(model, sym, &i, err));
  const int64_t min = kgrt_sym_min(table, i);
  if (value < min || value > table->syms[i].max)
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_RANGE,
                          "model %s: dim %s = %lld is out of range %lld..%lld",
                          kgrt_table_name(table), sym, (long long)value, (long long)min,
                          (long long)table->syms[i].max);
  if (model->dims[i] != value)
    model->has_run = 0;
  model->dims[i] = value;
  model->loop.advance_pending = 0;
  return KGRT_STATUS_OK;
}

static const char *const kgrt_tensor_kind_names[] = {"input", "weight", "output"};

const char *kgrt_tensor_kind_name(kgrt_tensor_kind_t kind) {
  return kgrt_tensor_kind_names[kind];
}

/* Finds tensor `name` of `kind`; fills its info and buffer. */
int kgrt_tensor_find(const kgrt_model_t *model, kgrt_tensor_kind_t kind, const char *name,
                     const kgrt_tensor_info_t **out_info,
                     kgrt_tensor_buffer_t **out_buffer) {
  const kgrt_model_table_t *table = model->table;
  const kgrt_tensor_info_t *t[] = {table->inputs, table->weights, table->outputs};
  uint32_t n[] = {table->num_inputs, table->num_weights, table->num_outputs};
  kgrt_tensor_buffer_t *b[] = {model->inputs, model->weights, model->outputs};
  for (uint32_t i = 0; i < n[kind]; ++i) {
    if (strcmp(t[kind][i].name, name) == 0) {
      *out_info = &t[kind][i];
      *out_buffer = &b[kind][i];
      return 1;
    }
  }
  return 0;
}

/* The tensor's size with the dims set now; FAILED_PRECONDITION when one it
 * needs is not set. */
kgrt_status_t kgrt_tensor_bytes_now(const kgrt_model_t *model, kgrt_tensor_kind_t kind,
                                    const kgrt_tensor_info_t *t, size_t *out,
                                    kgrt_error_t *err) {
  for (uint32_t d = 0; d < t->rank; ++d) {
    int32_t s = t->dims[d].sym;
    if (s >= 0 && model->dims[s] == 0)
      return kgrt_error_set(err, KGRT_STATUS_FAILED_PRECONDITION,
                            "model %s: dim %s is not set (%s %s needs it)",
                            kgrt_table_name(model->table), model->table->syms[s].name,
                            kgrt_tensor_kind_names[kind], t->name);
  }
  kgrt_tensor_size(t, model->dims, out); /* cannot overflow: dims <= maxima */
  return KGRT_STATUS_OK;
}

kgrt_status_t kgrt_model_tensor_bytes(const kgrt_model_t *model, const char *name,
                                      size_t *out_bytes, kgrt_error_t *err) {
  kgrt_error_clear(err);
  if (model == NULL || name == NULL || out_bytes == NULL)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "kgrt_model_tensor_bytes: NULL argument");
  *out_bytes = 0;
  for (int kind = KGRT_TENSOR_INPUT; kind <= KGRT_TENSOR_OUTPUT; ++kind) {
    const kgrt_tensor_info_t *t;
    kgrt_tensor_buffer_t *b;
    if (kgrt_tensor_find(model, (kgrt_tensor_kind_t)kind, name, &t, &b))
      return kgrt_tensor_bytes_now(model, (kgrt_tensor_kind_t)kind, t, out_bytes, err);
  }
  return kgrt_error_set(err, KGRT_STATUS_NOT_FOUND, "model %s has no tensor %s",
                        kgrt_table_name(model->table), name);
}

static kgrt_status_t kgrt_model_bind(kgrt_model_t *model, kgrt_tensor_kind_t kind,
                                     const char *name, const void *host, size_t bytes,
                                     kgrt_error_t *err) {
  kgrt_error_clear(err);
  const char *kind_name = kgrt_tensor_kind_names[kind];
  if (model == NULL || name == NULL || host == NULL)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "kgrt_model_set_%s: model, name or host is NULL", kind_name);
  const kgrt_tensor_info_t *t;
  kgrt_tensor_buffer_t *b;
  if (!kgrt_tensor_find(model, kind, name, &t, &b))
    return kgrt_error_set(err, KGRT_STATUS_NOT_FOUND, "model %s has no %s %s",
                          kgrt_table_name(model->table), kind_name, name);
  if (model->pipeline && model->comm == NULL)
    return kgrt_error_set(err, KGRT_STATUS_FAILED_PRECONDITION,
                          "model %s is one rank of a pipeline of %u: join a communicator "
                          "before binding %s %s (kgrt_model_join)",
                          kgrt_table_name(model->table), model->table->ranks, kind_name,
                          name);
  size_t want;
  KGRT_RETURN_IF_ERROR(kgrt_tensor_bytes_now(model, kind, t, &want, err));
  if (bytes != want)
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_RANGE,
                          "model %s: %s %s is %zu bytes with the dims set now, got %zu",
                          kgrt_table_name(model->table), kind_name, name, want, bytes);
  b->bound = 0;
  model->loop.advance_pending = 0;
  if (bytes > 0 && !b->elsewhere) /* another rank's: nothing here reads it */
    KGRT_RETURN_IF_ERROR(model->device->vtable->buffer_write(
        model->device, model->program, b->addr, host, bytes, err));
  b->bound = 1;
  b->bound_bytes = bytes;
  return KGRT_STATUS_OK;
}

/* Rank r's part p = r * parts / ranks of the whole tensor at host, cut into
 * `parts` along dim `split` (kgrt_table_check_tensors: a constant dim, whose whole
 * is parts times it): for each index of the dims before `split`, the p-th of
 * `parts` equal runs of the bytes that index spans (a block format split
 * along its last dim: whole blocks, since the table's last dim is a multiple
 * of the block). A cut of the first dim is one run, uploaded from host; else
 * the runs are gathered into a host buffer first. */
kgrt_status_t kgrt_model_set_weight_whole(kgrt_model_t *model, const char *name,
                                          const void *host, size_t bytes,
                                          kgrt_error_t *err) {
  kgrt_error_clear(err);
  if (model == NULL || name == NULL || host == NULL)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "kgrt_model_set_weight_whole: model, name or host is NULL");
  const kgrt_tensor_info_t *t;
  kgrt_tensor_buffer_t *b;
  if (!kgrt_tensor_find(model, KGRT_TENSOR_WEIGHT, name, &t, &b))
    return kgrt_error_set(err, KGRT_STATUS_NOT_FOUND, "model %s has no weight %s",
                          kgrt_table_name(model->table), name);
  if (t->parts <= 1)
    return kgrt_model_set_weight(model, name, host, bytes, err);
  const uint32_t ranks = model->table->ranks;
  if (model->comm == NULL)
    return kgrt_error_set(
        err, KGRT_STATUS_FAILED_PRECONDITION,
        "model %s is one rank of %u: join a communicator before binding "
        "its part of weight %s (kgrt_model_join)",
        kgrt_table_name(model->table), ranks, name);
  size_t part_bytes;
  KGRT_RETURN_IF_ERROR(
      kgrt_tensor_bytes_now(model, KGRT_TENSOR_WEIGHT, t, &part_bytes, err));
  if (bytes / t->parts != part_bytes || bytes % t->parts != 0)
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_RANGE,
                          "model %s: weight %s is one of %u parts of %zu bytes each; the "
                          "whole tensor given is %zu bytes",
                          kgrt_table_name(model->table), name, t->parts, part_bytes,
                          bytes);
  const uint64_t part = (uint64_t)model->rank * t->parts / ranks;
  uint64_t outer = 1;
  for (uint32_t d = 0; d < t->split; ++d) /* constant dims: checked at load */
    outer *=
        (uint64_t)(t->dims[d].sym >= 0 ? model->dims[t->dims[d].sym] : t->dims[d].value);
  const uint64_t run = part_bytes / outer; /* bytes of one part of one index */
  const unsigned char *src = host;
  if (outer == 1)
    return kgrt_model_set_weight(model, name, src + part * run, run, err);
  unsigned char *buf = kgrt_alloc(&model->device->alloc, part_bytes);
  if (buf == NULL)
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_MEMORY,
                          "weight %s: no host memory to gather its part (%zu bytes)",
                          name, part_bytes);
  for (uint64_t o = 0; o < outer; ++o)
    memcpy(buf + o * run, src + (o * t->parts + part) * run, run);
  kgrt_status_t st = kgrt_model_set_weight(model, name, buf, part_bytes, err);
  kgrt_free(&model->device->alloc, buf);
  return st;
}

kgrt_status_t kgrt_model_set_weight(kgrt_model_t *model, const char *name,
                                    const void *host, size_t bytes, kgrt_error_t *err) {
  return kgrt_model_bind(model, KGRT_TENSOR_WEIGHT, name, host, bytes, err);
}

kgrt_status_t kgrt_model_set_input(kgrt_model_t *model, const char *name,
                                   const void *host, size_t bytes, kgrt_error_t *err) {
  return kgrt_model_bind(model, KGRT_TENSOR_INPUT, name, host, bytes, err);
}

kgrt_status_t kgrt_model_get_output(kgrt_model_t *model, const char *name, void *host,
                                    size_t bytes, kgrt_error_t *err) {
  kgrt_error_clear(err);
  if (model == NULL || name == NULL || host == NULL)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "kgrt_model_get_output: model, name or host is NULL");
  const kgrt_tensor_info_t *t;
  kgrt_tensor_buffer_t *b;
  if (!kgrt_tensor_find(model, KGRT_TENSOR_OUTPUT, name, &t, &b))
    return kgrt_error_set(err, KGRT_STATUS_NOT_FOUND, "model %s has no output %s",
                          kgrt_table_name(model->table), name);
  size_t want;
  KGRT_RETURN_IF_ERROR(kgrt_tensor_bytes_now(model, KGRT_TENSOR_OUTPUT, t, &want, err));
  if (bytes != want)
    return kgrt_error_set(
        err, KGRT_STATUS_OUT_OF_RANGE,
        "model %s: output %s is %zu bytes with the dims set now, got %zu",
        kgrt_table_name(model->table), name, want, bytes);
  if (!model->has_run)
    return kgrt_error_set(err, KGRT_STATUS_FAILED_PRECONDITION,
                          "model %s: output %s read before a run with the dims set now",
                          kgrt_table_name(model->table), name);
  if (bytes == 0)
    return KGRT_STATUS_OK;
  return model->device->vtable->buffer_read(model->device, model->program, host, b->addr,
                                            bytes, err);
}
