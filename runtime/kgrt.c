/* kgrt.c - the device-independent half of the runtime: device specs, model
 * loading and validation, dims, bindings and the launch plan.
 *
 * Needs a device (kgrt_device.h: sim, hip, cuda) and, for validation, the code
 * object reader (kgrt_codeobj.h: hsaco and cubin). Gives the public API of
 * kgrt.h.
 *
 * Order of model loading, each step before anything that depends on it:
 *   table ABI -> arch names -> device picks an arch -> table structure (every
 *   index, pointer and size of the picked arch, every expression evaluated at
 *   the dims' maxima) -> code object (ELF, machine, arch, kernels, kernarg
 *   layouts, block sizes; hsaco for amdgcn triples, cubin for nvptx ones) ->
 *   device loads the code -> buffers.
 * A failure at any step frees what the earlier steps made. */
#include "kgrt.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kgrt_codeobj.h"
#include "kgrt_comm.h"
#include "kgrt_device.h"
#include "kgrt_external.h"
#include "kgrt_hash.h"

/* Copies spec[0..n) into buf; -1 when it does not fit. */
static int kgrt_spec_copy(char *buf, size_t size, const char *spec, size_t n) {
  if (n >= size)
    return -1;
  memcpy(buf, spec, n);
  buf[n] = '\0';
  return 0;
}

static int kgrt_spec_is_name(const char *s) {
  if (*s == '\0')
    return 0;
  for (; *s; ++s) {
    char c = *s;
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
          c == '_' || c == '-'))
      return 0;
  }
  return 1;
}

kgrt_status_t kgrt_device_open(const char *spec, const kgrt_allocator_t *alloc,
                               kgrt_device_t **out_device, kgrt_error_t *err) {
  kgrt_error_clear(err);
  if (out_device == NULL)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "kgrt_device_open: out_device is NULL");
  *out_device = NULL;
  if (spec == NULL)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "kgrt_device_open: spec is NULL");

  /* kind[:part][,options] */
  char kind[16], part[64];
  size_t kind_len = strcspn(spec, ":,");
  const char *rest = spec + kind_len;
  int has_part = 0;
  part[0] = '\0';
  if (kgrt_spec_copy(kind, sizeof kind, spec, kind_len) != 0)
    kind[0] = '\0';
  if (*rest == ':') {
    size_t part_len = strcspn(rest + 1, ",");
    has_part = 1;
    if (kgrt_spec_copy(part, sizeof part, rest + 1, part_len) != 0 ||
        !kgrt_spec_is_name(part))
      return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                            "device spec '%s': bad name after ':'", spec);
    rest += 1 + part_len;
  }
  const char *options = *rest == ',' ? rest + 1 : NULL;

  size_t count = 0;
  const kgrt_device_kind_t *kinds = kgrt_device_kinds(&count);
  for (size_t i = 0; i < count; ++i)
    if (strcmp(kind, kinds[i].kind) == 0)
      return kinds[i].create(has_part ? part : NULL, options, alloc, out_device, err);
  char expected[256];
  size_t len = 0;
  expected[0] = '\0';
  for (size_t i = 0; i < count && len < sizeof expected; ++i)
    len += (size_t)snprintf(expected + len, sizeof expected - len, "%s%s",
                            i == 0           ? ""
                            : i + 1 == count ? " or "
                                             : ", ",
                            kinds[i].usage);
  return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                        "device spec '%s': unknown device (expected %s)", spec, expected);
}

void kgrt_device_close(kgrt_device_t *device) {
  if (device != NULL)
    device->vtable->destroy(device);
}

const char *kgrt_device_name(const kgrt_device_t *device) {
  return device != NULL ? device->name : "";
}

/* ---- tables --------------------------------------------------------------- */

static const char *kgrt_table_name(const kgrt_model_table_t *table) {
  return table->name != NULL ? table->name : "?";
}

static size_t kgrt_dtype_size(kgrt_dtype_t dtype) {
  int64_t elems;
  return kgrt_dtype_block(dtype, &elems);
}

/* scale * dims[sym[0]] * ...; -1 on overflow. Symbols were checked in range. */
static int kgrt_expr_eval(const kgrt_expr_t *e, const int64_t *dims, int64_t *out) {
  int64_t v = e->scale;
  for (int i = 0; i < KGRT_EXPR_SYMS; ++i) {
    if (e->sym[i] < 0)
      continue;
    if (__builtin_mul_overflow(v, dims[e->sym[i]], &v))
      return -1;
  }
  *out = v;
  return 0;
}

/* Byte size of a tensor with `dims`; -1 on overflow. A quantized tensor's
 * last dim counts its blocks (checked a constant multiple of the block). */
static int kgrt_tensor_size(const kgrt_tensor_info_t *t, const int64_t *dims,
                            size_t *out) {
  int64_t elems;
  uint64_t bytes = kgrt_dtype_block(t->dtype, &elems);
  for (uint32_t i = 0; i < t->rank; ++i) {
    int64_t d = t->dims[i].sym >= 0 ? dims[t->dims[i].sym] : t->dims[i].value;
    if (i + 1 == t->rank)
      d /= elems;
    if (__builtin_mul_overflow(bytes, (uint64_t)d, &bytes))
      return -1;
  }
  if (bytes > SIZE_MAX)
    return -1;
  *out = (size_t)bytes;
  return 0;
}

static int kgrt_sym_is_rank(const kgrt_model_table_t *table, uint32_t sym) {
  return (table->syms[sym].flags & KGRT_SYM_RANK) != 0;
}

/* Checks that an expression's symbols exist (the rank only where `rank_ok`:
 * a kernel argument's value) and, with every dim at its max, it neither
 * overflows nor (when `nonneg`) goes below 0. */
static kgrt_status_t kgrt_check_expr(const kgrt_model_table_t *table, const int64_t *max,
                                     const kgrt_expr_t *e, int nonneg, int rank_ok,
                                     int64_t *out_max, kgrt_error_t *err,
                                     const char *what) {
  for (int i = 0; i < KGRT_EXPR_SYMS; ++i)
    if (e->sym[i] >= 0 && ((uint32_t)e->sym[i] >= table->num_syms ||
                           (!rank_ok && kgrt_sym_is_rank(table, (uint32_t)e->sym[i]))))
      return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                            "model %s: %s uses dim %d of %u%s", kgrt_table_name(table),
                            what, e->sym[i], table->num_syms,
                            (uint32_t)e->sym[i] < table->num_syms ? " (the rank)" : "");
  if (kgrt_expr_eval(e, max, out_max) != 0)
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_RANGE,
                          "model %s: %s overflows with every dim at its max",
                          kgrt_table_name(table), what);
  if (nonneg && *out_max < 0)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT, "model %s: %s is negative",
                          kgrt_table_name(table), what);
  return KGRT_STATUS_OK;
}

static kgrt_status_t kgrt_check_tensors(const kgrt_model_table_t *table,
                                        const int64_t *max, const kgrt_tensor_info_t *t,
                                        uint32_t n, const char *kind, kgrt_error_t *err) {
  if (n > 0 && t == NULL)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "model %s: %ss table is NULL", kgrt_table_name(table), kind);
  for (uint32_t i = 0; i < n; ++i, ++t) {
    if (t->name == NULL)
      return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                            "model %s: %s %u has no name", kgrt_table_name(table), kind,
                            i);
    if (kgrt_dtype_size(t->dtype) == 0 || t->rank > KGRT_MAX_DIMS)
      return kgrt_error_set(
          err, KGRT_STATUS_INVALID_ARGUMENT, "model %s: %s %s: bad dtype %d or rank %u",
          kgrt_table_name(table), kind, t->name, (int)t->dtype, t->rank);
    int64_t elems;
    kgrt_dtype_block(t->dtype, &elems);
    if (elems > 1 &&
        (strcmp(kind, "weight") != 0 || t->rank == 0 || t->dims[t->rank - 1].sym >= 0 ||
         t->dims[t->rank - 1].value % elems != 0))
      return kgrt_error_set(
          err, KGRT_STATUS_INVALID_ARGUMENT,
          "model %s: %s %s: a quantized dtype (%d) is for weights whose "
          "last dim is a constant multiple of %lld",
          kgrt_table_name(table), kind, t->name, (int)t->dtype, (long long)elems);
    if ((t->flags & ~(uint32_t)KGRT_TENSOR_STATE) != 0 ||
        ((t->flags & KGRT_TENSOR_STATE) && strcmp(kind, "input") != 0))
      return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                            "model %s: %s %s: bad flags 0x%x (state is for inputs)",
                            kgrt_table_name(table), kind, t->name, (unsigned)t->flags);
    for (uint32_t d = 0; d < t->rank; ++d) {
      const kgrt_dim_t *dim = &t->dims[d];
      if (dim->sym >= 0 ? (uint32_t)dim->sym >= table->num_syms ||
                              kgrt_sym_is_rank(table, (uint32_t)dim->sym)
                        : dim->value < 0)
        return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                              "model %s: %s %s: dim %u is bad", kgrt_table_name(table),
                              kind, t->name, d);
    }
    /* a split weight: parts that divide the ranks, along a constant dim whose
     * whole stays a dim */
    const uint32_t ranks = table->ranks > 1 ? table->ranks : 1;
    if (t->parts > 1 &&
        (strcmp(kind, "weight") != 0 || t->parts > ranks || ranks % t->parts != 0 ||
         t->split >= t->rank || t->dims[t->split].sym >= 0 ||
         t->dims[t->split].value < 1 || t->dims[t->split].value > INT32_MAX / t->parts))
      return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                            "model %s: %s %s: a split into %u parts along dim %u that %u "
                            "ranks cannot take",
                            kgrt_table_name(table), kind, t->name, t->parts, t->split,
                            ranks);
    size_t bytes;
    if (kgrt_tensor_size(t, max, &bytes) != 0 || bytes > KGRT_MAX_BUFFER_BYTES)
      return kgrt_error_set(err, KGRT_STATUS_OUT_OF_RANGE,
                            "model %s: %s %s: more than 2^48 bytes with every dim at its "
                            "max",
                            kgrt_table_name(table), kind, t->name);
  }
  return KGRT_STATUS_OK;
}

/* The triples whose code objects kgrt validates: 0 amdgcn (hsaco), 1 nvptx
 * (cubin); -1 for any other. */
#define KGRT_TRIPLE_AMDGCN "amdgcn-amd-amdhsa"
#define KGRT_TRIPLE_NVPTX "nvptx64-nvidia-cuda"
static int kgrt_triple_kind(const char *triple) {
  if (strcmp(triple, KGRT_TRIPLE_AMDGCN) == 0)
    return 0;
  if (strcmp(triple, KGRT_TRIPLE_NVPTX) == 0)
    return 1;
  return -1;
}

static int kgrt_is_pow2(uint64_t v) {
  return v != 0 && (v & (v - 1)) == 0;
}

/* The dims, before anything reads their maxima. */
static kgrt_status_t kgrt_check_syms(const kgrt_model_table_t *table, kgrt_error_t *err) {
  const char *name = kgrt_table_name(table);
  if (table->num_syms > 0 && table->syms == NULL)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "model %s: syms table is NULL", name);
  int rank_syms = 0;
  for (uint32_t i = 0; i < table->num_syms; ++i) {
    const kgrt_sym_t *s = &table->syms[i];
    if (s->name == NULL || s->max < 1)
      return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                            "model %s: dim %u has no name or a max below 1", name, i);
    /* the rank: one, of a split model, up to its last rank */
    if ((s->flags & ~(uint32_t)KGRT_SYM_RANK) != 0 ||
        ((s->flags & KGRT_SYM_RANK) &&
         (++rank_syms > 1 || table->ranks < 2 || s->max != (int64_t)table->ranks - 1)))
      return kgrt_error_set(
          err, KGRT_STATUS_INVALID_ARGUMENT,
          "model %s: dim %s: bad flags 0x%x (one rank of a split model, "
          "max ranks - 1)",
          name, s->name, (unsigned)s->flags);
  }
  return KGRT_STATUS_OK;
}

/* The inputs, weights and outputs, which every arch shares. */
static kgrt_status_t kgrt_check_interface(const kgrt_model_table_t *table,
                                          const int64_t *max, kgrt_error_t *err) {
  if (table->ranks > KGRT_MAX_RANKS)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "model %s: split over %u ranks, more than %d",
                          kgrt_table_name(table), table->ranks, KGRT_MAX_RANKS);
  KGRT_RETURN_IF_ERROR(
      kgrt_check_tensors(table, max, table->inputs, table->num_inputs, "input", err));
  KGRT_RETURN_IF_ERROR(
      kgrt_check_tensors(table, max, table->weights, table->num_weights, "weight", err));
  KGRT_RETURN_IF_ERROR(
      kgrt_check_tensors(table, max, table->outputs, table->num_outputs, "output", err));
  return KGRT_STATUS_OK;
}

/* The size at the dims' maxima of the buffer a step argument binds. */
static kgrt_status_t kgrt_space_capacity(const kgrt_model_table_t *table,
                                         const kgrt_arch_table_t *arch,
                                         const int64_t *max, const kgrt_step_arg_t *a,
                                         uint64_t *out, kgrt_error_t *err,
                                         const char *what) {
  const kgrt_tensor_info_t *t = NULL;
  uint32_t n = 0;
  switch (a->space) {
  case KGRT_SPACE_ARENA:
    *out = arch->arena_bytes;
    return KGRT_STATUS_OK;
  case KGRT_SPACE_INPUT:
    t = table->inputs, n = table->num_inputs;
    break;
  case KGRT_SPACE_WEIGHT:
    t = table->weights, n = table->num_weights;
    break;
  case KGRT_SPACE_OUTPUT:
    t = table->outputs, n = table->num_outputs;
    break;
  default:
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT, "model %s: %s: bad space %d",
                          kgrt_table_name(table), what, (int)a->space);
  }
  if (a->index >= n)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "model %s: %s: tensor index %u of %u", kgrt_table_name(table),
                          what, a->index, n);
  size_t bytes = 0;
  kgrt_tensor_size(&t[a->index], max, &bytes); /* checked by kgrt_check_interface */
  *out = bytes;
  return KGRT_STATUS_OK;
}

/* Everything in the picked arch table that does not need the code object. */
/* A collective step: a known kind of a float dtype (a broadcast's may be
 * i32), unselected, reading args[0] of `units` elements and writing args[1]
 * of as many (all_gather: ranks times as many), both inside their buffers
 * at the dims' maxima; a broadcast's root a rank, no other's. */
static kgrt_status_t kgrt_check_collective(const kgrt_model_table_t *table,
                                           const kgrt_arch_table_t *arch,
                                           const int64_t *max, uint32_t s,
                                           kgrt_error_t *err) {
  const char *name = kgrt_table_name(table);
  const kgrt_step_t *step = &arch->steps[s];
  const uint32_t ranks = table->ranks > 1 ? table->ranks : 1;
  const int broadcast = step->collective == KGRT_COLLECTIVE_BROADCAST;
  const int64_t size = step->dtype == KGRT_DTYPE_F32 ? 4
                       : step->dtype == KGRT_DTYPE_F16 || step->dtype == KGRT_DTYPE_BF16
                           ? 2
                       : step->dtype == KGRT_DTYPE_I32 && broadcast ? 4
                                                                    : 0;
  if ((step->collective != KGRT_COLLECTIVE_ALL_REDUCE &&
       step->collective != KGRT_COLLECTIVE_ALL_GATHER && !broadcast) ||
      size == 0 || step->per_block != 1 || step->repeat != 1 || step->select.scale != 0 ||
      step->args == NULL || (broadcast ? step->rank < 0 : step->rank != -1) ||
      step->rank >= (int64_t)ranks)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "model %s: %s: step %u: a bad collective (%d of dtype %d)",
                          name, arch->arch, s, (int)step->collective, (int)step->dtype);
  char what[96];
  int64_t units = 0;
  snprintf(what, sizeof what, "%s: step %u (collective) units", arch->arch, s);
  KGRT_RETURN_IF_ERROR(
      kgrt_check_expr(table, max, &step->units, 1, 0, &units, err, what));
  for (int i = 0; i < 2; ++i) {
    const kgrt_step_arg_t *a = &step->args[i];
    /* the same syms as units, its elements' bytes (args[1] of all_gather:
     * ranks times them) */
    const int64_t times =
        i == 1 && step->collective == KGRT_COLLECTIVE_ALL_GATHER ? (int64_t)ranks : 1;
    int same = step->units.scale <= INT64_MAX / size / times &&
               a->bytes.scale == step->units.scale * size * times;
    for (int k = 0; k < KGRT_EXPR_SYMS; ++k)
      same = same && a->bytes.sym[k] == step->units.sym[k];
    uint64_t capacity = 0;
    int64_t v = 0;
    snprintf(what, sizeof what, "%s: step %u (collective) argument %d", arch->arch, s, i);
    if (!same)
      return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                            "model %s: %s: its bytes are not its elements'", name, what);
    KGRT_RETURN_IF_ERROR(kgrt_check_expr(table, max, &a->bytes, 1, 0, &v, err, what));
    KGRT_RETURN_IF_ERROR(kgrt_space_capacity(table, arch, max, a, &capacity, err, what));
    if (a->offset > capacity || (uint64_t)v > capacity - a->offset)
      return kgrt_error_set(err, KGRT_STATUS_OUT_OF_RANGE,
                            "model %s: %s: %llu bytes at offset %llu pass the end of a "
                            "%llu-byte buffer",
                            name, what, (unsigned long long)v,
                            (unsigned long long)a->offset, (unsigned long long)capacity);
  }
  return KGRT_STATUS_OK;
}

static kgrt_status_t kgrt_check_arch(const kgrt_model_table_t *table,
                                     const kgrt_arch_table_t *arch, const int64_t *max,
                                     kgrt_error_t *err) {
  const char *name = kgrt_table_name(table);
  char what[96];
  if (arch->triple == NULL || !kgrt_is_pow2(arch->wave_size) || arch->wave_size > 64 ||
      (arch->arena_align != 0 && !kgrt_is_pow2(arch->arena_align)) ||
      arch->arena_zero_bytes > arch->arena_bytes)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "model %s: %s: bad triple, wave size or arena sizes", name,
                          arch->arch);
  /* Only code objects kgrt can validate reach a driver. */
  if (kgrt_triple_kind(arch->triple) < 0)
    return kgrt_error_set(
        err, KGRT_STATUS_INVALID_ARGUMENT,
        "model %s: %s: triple '%s' is not one kgrt validates (%s or %s)", name,
        arch->arch, arch->triple, KGRT_TRIPLE_AMDGCN, KGRT_TRIPLE_NVPTX);
  if (arch->arena_bytes > KGRT_MAX_BUFFER_BYTES)
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_RANGE,
                          "model %s: %s: an arena of %llu bytes is more than 2^48", name,
                          arch->arch, (unsigned long long)arch->arena_bytes);
  if ((arch->num_kernels > 0 && arch->kernels == NULL) ||
      (arch->num_steps > 0 && arch->steps == NULL))
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "model %s: %s: kernels or steps table is NULL", name,
                          arch->arch);
  for (uint32_t k = 0; k < arch->num_kernels; ++k) {
    const kgrt_kernel_t *kern = &arch->kernels[k];
    if (kern->name == NULL || kern->block_size == 0 || kern->block_size > 1024 ||
        kern->num_args > KGRT_CODEOBJ_MAX_ARGS ||
        (kern->num_args > 0 && kern->args == NULL))
      return kgrt_error_set(
          err, KGRT_STATUS_INVALID_ARGUMENT,
          "model %s: %s: kernel %u: no name, bad block size or bad args", name,
          arch->arch, k);
    if ((kern->flags & ~(uint32_t)KGRT_KERNEL_EARLY_LAUNCH) != 0)
      return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                            "model %s: %s: kernel %s: unknown flags 0x%x", name,
                            arch->arch, kern->name, (unsigned)kern->flags);
    for (uint32_t i = 0; i < kern->num_args; ++i) {
      const kgrt_kernel_arg_t *a = &kern->args[i];
      if ((a->kind != KGRT_ARG_BUFFER && a->kind != KGRT_ARG_I64) || a->size != 8 ||
          (uint64_t)a->offset + a->size > kern->kernarg_size)
        return kgrt_error_set(err, KGRT_STATUS_ABI_MISMATCH,
                              "model %s: %s: kernel %s: argument %u (kind %d, offset %u, "
                              "size %u) does not fit a kernarg segment of %u bytes",
                              name, arch->arch, kern->name, i, (int)a->kind, a->offset,
                              a->size, kern->kernarg_size);
    }
  }
  for (uint32_t s = 0; s < arch->num_steps; ++s) {
    const kgrt_step_t *step = &arch->steps[s];
    if (step->collective != KGRT_COLLECTIVE_NONE) {
      KGRT_RETURN_IF_ERROR(kgrt_check_collective(table, arch, max, s, err));
      continue;
    }
    if (step->kernel >= arch->num_kernels || step->per_block == 0 || step->repeat == 0 ||
        step->rank < -1 || step->rank >= (int64_t)(table->ranks > 1 ? table->ranks : 1))
      return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                            "model %s: %s: step %u: kernel %u of %u, per_block %u, "
                            "repeat %u, rank %d",
                            name, arch->arch, s, step->kernel, arch->num_kernels,
                            step->per_block, step->repeat, (int)step->rank);
    const kgrt_kernel_t *kern = &arch->kernels[step->kernel];
    if (kern->num_args > 0 && step->args == NULL)
      return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                            "model %s: %s: step %u has no args", name, arch->arch, s);
    int64_t units = 0;
    snprintf(what, sizeof what, "%s: step %u (%s) units", arch->arch, s, kern->name);
    KGRT_RETURN_IF_ERROR(
        kgrt_check_expr(table, max, &step->units, 1, 0, &units, err, what));
    snprintf(what, sizeof what, "%s: step %u (%s) select", arch->arch, s, kern->name);
    int64_t select = 0;
    if (step->select.scale != 0)
      KGRT_RETURN_IF_ERROR(
          kgrt_check_expr(table, max, &step->select, 0, 0, &select, err, what));
    /* workgroups and threads in 64 bits without wrapping: a grid that wraps
     * to a small number would launch too few workgroups and report OK */
    uint64_t grid = ((uint64_t)units + step->per_block - 1) / step->per_block, threads;
    if (__builtin_mul_overflow(grid, (uint64_t)step->repeat, &grid) ||
        __builtin_mul_overflow(grid, (uint64_t)kern->block_size, &threads) ||
        threads > UINT32_MAX)
      return kgrt_error_set(err, KGRT_STATUS_OUT_OF_RANGE,
                            "model %s: %s: step %u (%s): %lld units over %u per "
                            "workgroup, %u times, in workgroups of %u threads is more "
                            "than 2^32 - 1 threads",
                            name, arch->arch, s, kern->name, (long long)units,
                            step->per_block, step->repeat, kern->block_size);
    for (uint32_t i = 0; i < kern->num_args; ++i) {
      const kgrt_step_arg_t *a = &step->args[i];
      int64_t v = 0;
      snprintf(what, sizeof what, "%s: step %u (%s) argument %u", arch->arch, s,
               kern->name, i);
      if (kern->args[i].kind == KGRT_ARG_I64) {
        KGRT_RETURN_IF_ERROR(kgrt_check_expr(table, max, &a->value, 0, 1, &v, err, what));
        continue;
      }
      uint64_t capacity = 0;
      KGRT_RETURN_IF_ERROR(kgrt_check_expr(table, max, &a->bytes, 1, 0, &v, err, what));
      KGRT_RETURN_IF_ERROR(
          kgrt_space_capacity(table, arch, max, a, &capacity, err, what));
      if (a->offset > capacity || (uint64_t)v > capacity - a->offset)
        return kgrt_error_set(err, KGRT_STATUS_OUT_OF_RANGE,
                              "model %s: %s: %llu bytes at offset %llu pass the end of a "
                              "%llu-byte buffer",
                              name, what, (unsigned long long)v,
                              (unsigned long long)a->offset,
                              (unsigned long long)capacity);
    }
  }
  return KGRT_STATUS_OK;
}

/* Whether `table_arch` is `cubin_arch` with its architecture-specific
 * features ("sm_90a" of "sm_90"): NVRTC 13 writes an sm_90a cubin with the
 * e_flags of an sm_90 one (no EF_CUDA_ACCELERATORS), so the cubin cannot tell
 * the two apart. */
static int kgrt_arch_specific_of(const char *table_arch, const char *cubin_arch) {
  const size_t n = strlen(cubin_arch);
  return strncmp(table_arch, cubin_arch, n) == 0 && strcmp(table_arch + n, "a") == 0;
}

/* The code object against the table: ELF, machine, arch, kernels, layouts.
 * `cuda`: a cubin (EM_CUDA), whose parameters carry no kind, only offsets and
 * sizes; else an hsaco (EM_AMDGPU). */
static kgrt_status_t kgrt_check_codeobj(const kgrt_model_table_t *table,
                                        const kgrt_arch_table_t *arch, int cuda,
                                        const kgrt_allocator_t *alloc,
                                        kgrt_error_t *err) {
  const char *name = kgrt_table_name(table);
  const uint32_t machine = cuda ? 190 : 224;
  const char *const machine_name = cuda ? "CUDA" : "AMDGPU";
  if (arch->image == NULL || arch->image_size == 0)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_CODE_OBJECT,
                          "model %s: %s: no code object", name, arch->arch);
  const uint64_t hash = kgrt_hash64(arch->image, arch->image_size);
  if (hash != arch->image_hash)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_CODE_OBJECT,
                          "model %s: %s: the code object's %zu bytes hash to "
                          "0x%016llx, the table says 0x%016llx (a damaged table)",
                          name, arch->arch, arch->image_size, (unsigned long long)hash,
                          (unsigned long long)arch->image_hash);
  kgrt_codeobj_t co;
  char reason[256];
  memset(&co, 0, sizeof co);
  reason[0] = '\0';
  const int parsed =
      kgrt_codeobj_parse(arch->image, arch->image_size, alloc, &co, reason, sizeof reason);
  if (parsed != 0)
    return kgrt_error_set(err,
                          parsed == KGRT_CODEOBJ_NO_MEMORY ? KGRT_STATUS_OUT_OF_MEMORY
                                                           : KGRT_STATUS_INVALID_CODE_OBJECT,
                          "model %s: %s code object: %s", name, arch->arch, reason);

  kgrt_status_t st = KGRT_STATUS_OK;
  if (co.machine != machine)
    st = kgrt_error_set(err, KGRT_STATUS_INVALID_CODE_OBJECT,
                        "model %s: %s code object: e_machine is %u, not %s (%u)", name,
                        arch->arch, co.machine, machine_name, machine);
  else if (strcmp(co.arch, arch->arch) != 0 &&
           !(cuda && kgrt_arch_specific_of(arch->arch, co.arch)))
    st = kgrt_error_set(err, KGRT_STATUS_INVALID_CODE_OBJECT,
                        "model %s: %s code object is built for %s", name, arch->arch,
                        co.arch);
  for (uint32_t k = 0; st == KGRT_STATUS_OK && k < arch->num_kernels; ++k) {
    const kgrt_kernel_t *kern = &arch->kernels[k];
    const kgrt_codeobj_kernel_t *ck = kgrt_codeobj_find(&co, kern->name);
    if (ck == NULL || !ck->has_symbol) {
      st = kgrt_error_set(err, KGRT_STATUS_MISSING_KERNEL,
                          "model %s: %s: kernel %s is not in the code object%s", name,
                          arch->arch, kern->name,
                          ck == NULL ? ""
                          : cuda     ? " (no function symbol)"
                                     : " (no .kd symbol)");
      break;
    }
    if (ck->kernarg_size != kern->kernarg_size) {
      st = kgrt_error_set(err, KGRT_STATUS_ABI_MISMATCH,
                          "model %s: %s: kernel %s: kernarg segment is %u bytes in the "
                          "table, %u in the code object",
                          name, arch->arch, kern->name, kern->kernarg_size,
                          ck->kernarg_size);
      break;
    }
    if (ck->max_block_size != 0 && kern->block_size > ck->max_block_size) {
      st = kgrt_error_set(err, KGRT_STATUS_ABI_MISMATCH,
                          "model %s: %s: kernel %s: block size %u exceeds the code "
                          "object's max_flat_workgroup_size %u",
                          name, arch->arch, kern->name, kern->block_size,
                          ck->max_block_size);
      break;
    }
    if (ck->wave_size != 0 &&
        (ck->wave_size != arch->wave_size ||
         (kern->wave_size != 0 && kern->wave_size != ck->wave_size))) {
      st = kgrt_error_set(err, KGRT_STATUS_ABI_MISMATCH,
                          "model %s: %s: kernel %s: wave size %u in the code object, %u "
                          "in the table",
                          name, arch->arch, kern->name, ck->wave_size,
                          kern->wave_size ? kern->wave_size : arch->wave_size);
      break;
    }
    /* The explicit arguments, in order; hidden ones (value_kind hidden_*)
     * follow them and are the driver's business. */
    uint32_t n = 0;
    for (uint32_t i = 0; i < ck->num_args && st == KGRT_STATUS_OK; ++i) {
      const kgrt_codeobj_arg_t *ca = &ck->args[i];
      if (strncmp(ca->value_kind, "hidden_", 7) == 0)
        continue;
      if (n >= kern->num_args) {
        n++;
        continue;
      }
      const kgrt_kernel_arg_t *ta = &kern->args[n];
      const char *want = cuda                          ? "param"
                         : ta->kind == KGRT_ARG_BUFFER ? "global_buffer"
                                                       : "by_value";
      if (ca->offset != ta->offset || ca->size != ta->size ||
          (!cuda && strcmp(ca->value_kind, want) != 0))
        st =
            kgrt_error_set(err, KGRT_STATUS_ABI_MISMATCH,
                           "model %s: %s: kernel %s: argument %u is %s at offset %u size "
                           "%u in the table, %s at offset %u size %u in the code object",
                           name, arch->arch, kern->name, n, want, ta->offset, ta->size,
                           cuda ? want : ca->value_kind, ca->offset, ca->size);
      n++;
    }
    if (st == KGRT_STATUS_OK && n != kern->num_args)
      st =
          kgrt_error_set(err, KGRT_STATUS_ABI_MISMATCH,
                         "model %s: %s: kernel %s takes %u arguments in the table, %u in "
                         "the code object",
                         name, arch->arch, kern->name, kern->num_args, n);
  }
  kgrt_codeobj_free(&co, alloc);
  return st;
}

/* ---- models --------------------------------------------------------------- */

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
  int64_t *dims;     /* num_syms; 0: not set */
  int64_t *max_dims; /* num_syms */
  kgrt_tensor_buffer_t *inputs, *weights, *outputs;
  uint64_t arena_raw;  /* as allocated */
  uint64_t arena_addr; /* aligned to arena_align */
  unsigned char *kernarg;
  unsigned long long *arg_bytes;
  int has_run; /* a run succeeded since the dims last changed */
  /* graph replay: the plan's launches captured at graph_dims */
  int replay; /* kgrt_model_set_replay; starts as the device's */
  kgrt_device_graph_t *graph;
  int64_t *graph_dims; /* num_syms */
  /* the device-resident loop (kgrt_model_run_steps) */
  int32_t *links;      /* num_inputs: the output that feeds the input, or -1 */
  int64_t *step_dims;  /* num_syms: added to the dim between steps */
  int advance_pending; /* the last call was run_steps: links apply first */
  uint64_t collect_addr;
  size_t collect_capacity;
  /* a split model's communicator (kgrt_model_join), else NULL */
  kgrt_comm_t *comm;
  uint32_t rank;
  /* steps placed on ranks (pipeline parallel): inputs and weights are
   * allocated at join, each rank only those its steps read */
  int pipeline;
};

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
  if (model->collect_addr != 0)
    dev->vtable->buffer_free(dev, model->collect_addr);
  if (model->graph != NULL)
    dev->vtable->graph_destroy(dev, model->graph);
  if (model->comm != NULL)
    dev->vtable->comm_leave(dev, model->program);
  if (model->program != NULL)
    dev->vtable->program_unload(dev, model->program);
  kgrt_free(alloc, model->arg_bytes);
  kgrt_free(alloc, model->kernarg);
  kgrt_free(alloc, model->max_dims);
  kgrt_free(alloc, model->dims);
  kgrt_free(alloc, model->graph_dims);
  kgrt_free(alloc, model->step_dims);
  kgrt_free(alloc, model->links);
  kgrt_free(alloc, model);
}

static void kgrt_memory_of(const kgrt_model_table_t *table, const kgrt_arch_table_t *arch,
                           const int64_t *max, const kgrt_model_t *held,
                           kgrt_memory_t *out);

/* A device buffer for the model; when the device is out of memory, the
 * message says what the whole model needs beside what the device said. */
static kgrt_status_t kgrt_model_alloc(kgrt_model_t *model, size_t bytes, uint64_t *addr,
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
static kgrt_status_t kgrt_model_zero(kgrt_model_t *model, uint64_t addr, uint64_t bytes,
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
    if (arch->arena_bytes > SIZE_MAX - align) /* <= 2^48 + 2^31 (kgrt_check_arch) */
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
  KGRT_RETURN_IF_ERROR(kgrt_check_syms(table, err));
  int64_t *max = kgrt_calloc(&device->alloc, table->num_syms, sizeof *max);
  if (max == NULL)
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_MEMORY, "model %s: out of host memory",
                          kgrt_table_name(table));
  for (uint32_t i = 0; i < table->num_syms; ++i)
    max[i] = table->syms[i].max;
  kgrt_status_t st = kgrt_check_interface(table, max, err);
  if (st == KGRT_STATUS_OK)
    st = kgrt_check_arch(table, arch, max, err);
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
  model->graph_dims = kgrt_calloc(&device->alloc, table->num_syms, sizeof(int64_t));
  model->step_dims = kgrt_calloc(&device->alloc, table->num_syms, sizeof(int64_t));
  model->links = kgrt_calloc(&device->alloc, table->num_inputs, sizeof(int32_t));
  model->replay = device->replay && device->vtable->graph_begin != NULL;
  kgrt_status_t st = KGRT_STATUS_OK;
  if (model->dims == NULL || model->max_dims == NULL || model->graph_dims == NULL ||
      model->step_dims == NULL || model->links == NULL)
    st = kgrt_error_set(err, KGRT_STATUS_OUT_OF_MEMORY, "model %s: out of host memory",
                        name);
  if (st == KGRT_STATUS_OK)
    st = kgrt_check_syms(table, err);
  for (uint32_t i = 0; st == KGRT_STATUS_OK && i < table->num_syms; ++i)
    model->max_dims[i] = table->syms[i].max;
  for (uint32_t i = 0; st == KGRT_STATUS_OK && i < table->num_inputs; ++i)
    model->links[i] = -1;
  if (st == KGRT_STATUS_OK)
    st = kgrt_check_interface(table, model->max_dims, err);
  if (st == KGRT_STATUS_OK)
    st = kgrt_check_arch(table, arch, model->max_dims, err);
  if (st == KGRT_STATUS_OK) /* the triple is one of two (kgrt_check_arch) */
    st = kgrt_check_codeobj(table, arch, kgrt_triple_kind(arch->triple), &device->alloc,
                            err);
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
  if (model->graph != NULL) /* it holds the old address: capture anew */
    model->device->vtable->graph_destroy(model->device, model->graph);
  model->graph = NULL;
  model->has_run = 0;
  model->advance_pending = 0;
}

/* ---- dims and bindings ---------------------------------------------------- */

kgrt_status_t kgrt_model_set_dim(kgrt_model_t *model, const char *sym, int64_t value,
                                 kgrt_error_t *err) {
  kgrt_error_clear(err);
  if (model == NULL || sym == NULL)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "kgrt_model_set_dim: model or sym is NULL");
  const kgrt_model_table_t *table = model->table;
  for (uint32_t i = 0; i < table->num_syms; ++i) {
    if (strcmp(table->syms[i].name, sym) != 0)
      continue;
    if (kgrt_sym_is_rank(table, i))
      return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                            "model %s: dim %s is the model's rank, which kgrt_model_join "
                            "sets",
                            kgrt_table_name(table), sym);
    if (value < 1 || value > table->syms[i].max)
      return kgrt_error_set(err, KGRT_STATUS_OUT_OF_RANGE,
                            "model %s: dim %s = %lld is out of range 1..%lld",
                            kgrt_table_name(table), sym, (long long)value,
                            (long long)table->syms[i].max);
    if (model->dims[i] != value)
      model->has_run = 0;
    model->dims[i] = value;
    model->advance_pending = 0;
    return KGRT_STATUS_OK;
  }
  return kgrt_error_set(err, KGRT_STATUS_NOT_FOUND, "model %s has no dim %s",
                        kgrt_table_name(table), sym);
}

typedef enum kgrt_tensor_kind {
  KGRT_TENSOR_INPUT,
  KGRT_TENSOR_WEIGHT,
  KGRT_TENSOR_OUTPUT,
} kgrt_tensor_kind_t;

static const char *const kgrt_tensor_kind_names[] = {"input", "weight", "output"};

/* Finds tensor `name` of `kind`; fills its info and buffer. */
static int kgrt_tensor_find(const kgrt_model_t *model, kgrt_tensor_kind_t kind,
                            const char *name, const kgrt_tensor_info_t **out_info,
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
static kgrt_status_t kgrt_tensor_bytes_now(const kgrt_model_t *model,
                                           kgrt_tensor_kind_t kind,
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
  model->advance_pending = 0;
  if (bytes > 0 && !b->elsewhere) /* another rank's: nothing here reads it */
    KGRT_RETURN_IF_ERROR(model->device->vtable->buffer_write(
        model->device, model->program, b->addr, host, bytes, err));
  b->bound = 1;
  b->bound_bytes = bytes;
  return KGRT_STATUS_OK;
}

/* Rank r's part p = r * parts / ranks of the whole tensor at host, cut into
 * `parts` along dim `split` (kgrt_check_tensors: a constant dim, whose whole
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

/* ---- the plan ------------------------------------------------------------- */

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
    if (model->dims[i] == 0 && !kgrt_sym_is_rank(table, i))
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
                              kgrt_tensor_kind_names[kind], t[i].name);
      if (b[i].bound_bytes != now)
        return kgrt_error_set(err, KGRT_STATUS_FAILED_PRECONDITION,
                              "model %s: %s %s was bound with %zu bytes but is %zu bytes "
                              "with the dims set now; bind it again",
                              name, kgrt_tensor_kind_names[kind], t[i].name,
                              b[i].bound_bytes, now);
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
static kgrt_status_t kgrt_model_check_ready(const kgrt_model_t *model,
                                            kgrt_error_t *err) {
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
  int64_t units = 0, v = 0;
  kgrt_expr_eval(&step->units, model->dims, &units); /* bounded at load */
  if (units <= 0)
    return KGRT_STATUS_OK;
  if (step->select.scale != 0) {
    kgrt_expr_eval(&step->select, model->dims, &v);
    if (v < step->select_min || v > step->select_max)
      return KGRT_STATUS_OK;
  }
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
      .grid_x = (uint32_t)(((uint64_t)units + step->per_block - 1) / step->per_block *
                           step->repeat),
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
 * replayed, else captured now (and replayed), or, without replay, launched. */
static kgrt_status_t kgrt_model_launch_plan_(kgrt_model_t *model, int replay,
                                             kgrt_error_t *err) {
  kgrt_device_t *dev = model->device;
  const size_t dims_bytes = model->table->num_syms * sizeof *model->dims;
  if (!replay || !model->replay)
    return kgrt_model_launch_all(model, err);
  if (model->graph != NULL && memcmp(model->graph_dims, model->dims, dims_bytes) == 0)
    return dev->vtable->graph_launch(dev, model->program, model->graph, err);
  if (model->graph != NULL && dev->vtable->graph_update != NULL) {
    /* other dims, the same plan: the graph updated from a new capture */
    KGRT_RETURN_IF_ERROR(dev->vtable->graph_begin(dev, model->program, err));
    kgrt_status_t st = kgrt_model_launch_all(model, err);
    kgrt_error_t end_err;
    kgrt_device_graph_t *partial = NULL;
    kgrt_status_t end =
        st != KGRT_STATUS_OK
            ? dev->vtable->graph_end(dev, model->program, &partial, &end_err)
            : dev->vtable->graph_update(dev, model->program, model->graph, &end_err);
    dev->vtable->graph_destroy(dev, partial);
    if (st == KGRT_STATUS_OK && end == KGRT_STATUS_OK) {
      memcpy(model->graph_dims, model->dims, dims_bytes);
      return dev->vtable->graph_launch(dev, model->program, model->graph, err);
    }
    dev->vtable->graph_destroy(dev, model->graph);
    model->graph = NULL;
    if (st != KGRT_STATUS_OK)
      return st;
    if (err != NULL)
      *err = end_err;
    return end;
  }
  dev->vtable->graph_destroy(dev, model->graph);
  model->graph = NULL;
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
  model->graph = graph;
  memcpy(model->graph_dims, model->dims, dims_bytes);
  return dev->vtable->graph_launch(dev, model->program, graph, err);
}

/* The same; a rank that fails breaks its communicator, so that the other
 * ranks' collectives fail rather than wait for it. */
static kgrt_status_t kgrt_model_launch_plan(kgrt_model_t *model, int replay,
                                            kgrt_error_t *err) {
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
  model->advance_pending = 0;
  KGRT_RETURN_IF_ERROR(kgrt_model_check_ready(model, err));
  KGRT_RETURN_IF_ERROR(kgrt_model_launch_plan(model, 1, err));
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
  model->replay = replay != 0;
  if (!model->replay) {
    dev->vtable->graph_destroy(dev, model->graph);
    model->graph = NULL;
  }
  return KGRT_STATUS_OK;
}

int kgrt_model_replay(const kgrt_model_t *model) {
  return model != NULL && model->replay;
}

kgrt_status_t kgrt_model_reset_state(kgrt_model_t *model, kgrt_error_t *err) {
  kgrt_error_clear(err);
  if (model == NULL)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "kgrt_model_reset_state: model is NULL");
  return kgrt_model_zero_state(model, err);
}

/* ---- the device-resident loop -------------------------------------------- */

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
  model->links[ti - table->inputs] = (int32_t)(to - table->outputs);
  model->advance_pending = 0;
  return KGRT_STATUS_OK;
}

kgrt_status_t kgrt_model_step_dim(kgrt_model_t *model, const char *sym, int64_t delta,
                                  kgrt_error_t *err) {
  kgrt_error_clear(err);
  if (model == NULL || sym == NULL)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "kgrt_model_step_dim: model or sym is NULL");
  const kgrt_model_table_t *table = model->table;
  for (uint32_t i = 0; i < table->num_syms; ++i) {
    if (strcmp(table->syms[i].name, sym) != 0)
      continue;
    if (kgrt_sym_is_rank(table, i))
      return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                            "model %s: dim %s is the model's rank, which kgrt_model_join "
                            "sets",
                            kgrt_table_name(table), sym);
    if (delta < -table->syms[i].max || delta > table->syms[i].max)
      return kgrt_error_set(
          err, KGRT_STATUS_OUT_OF_RANGE, "model %s: a step of %lld for dim %s (max %lld)",
          kgrt_table_name(table), (long long)delta, sym, (long long)table->syms[i].max);
    model->step_dims[i] = delta;
    model->advance_pending = 0;
    return KGRT_STATUS_OK;
  }
  return kgrt_error_set(err, KGRT_STATUS_NOT_FOUND, "model %s has no dim %s",
                        kgrt_table_name(table), sym);
}

void kgrt_model_clear_links(kgrt_model_t *model) {
  if (model == NULL)
    return;
  for (uint32_t i = 0; i < model->table->num_inputs; ++i)
    model->links[i] = -1;
  memset(model->step_dims, 0, model->table->num_syms * sizeof *model->step_dims);
  model->advance_pending = 0;
}

/* Between two steps: each linked output copied into its input on the device
 * (sizes at the dims of the step that ran), then each stepped dim moved. */
static kgrt_status_t kgrt_model_advance(kgrt_model_t *model, kgrt_error_t *err) {
  const kgrt_model_table_t *table = model->table;
  kgrt_device_t *dev = model->device;
  for (uint32_t i = 0; i < table->num_inputs; ++i) {
    if (model->links[i] < 0)
      continue;
    const uint32_t o = (uint32_t)model->links[i];
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
    if (model->step_dims[i] != 0) {
      model->dims[i] += model->step_dims[i]; /* checked by kgrt_model_run_steps */
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
  const int pending = model->advance_pending;
  int stepped = 0;
  /* every dim stays in range through the last step */
  for (uint32_t i = 0; i < table->num_syms; ++i) {
    if (model->step_dims[i] == 0)
      continue;
    stepped = 1;
    if (model->dims[i] == 0)
      return kgrt_error_set(err, KGRT_STATUS_FAILED_PRECONDITION,
                            "model %s: dim %s is not set", name, table->syms[i].name);
    const int64_t last =
        model->dims[i] + model->step_dims[i] * ((int64_t)steps - 1 + pending);
    if (last < 1 || last > table->syms[i].max)
      return kgrt_error_set(
          err, KGRT_STATUS_OUT_OF_RANGE,
          "model %s: dim %s would reach %lld in %u steps (range 1..%lld)", name,
          table->syms[i].name, (long long)last, steps, (long long)table->syms[i].max);
  }
  const kgrt_tensor_info_t *ct = NULL;
  kgrt_tensor_buffer_t *cb = NULL;
  size_t per_step = 0;
  if (collect != NULL) {
    if (!kgrt_tensor_find(model, KGRT_TENSOR_OUTPUT, collect, &ct, &cb))
      return kgrt_error_set(err, KGRT_STATUS_NOT_FOUND, "model %s has no output %s", name,
                            collect);
    for (uint32_t d = 0; d < ct->rank; ++d)
      if (ct->dims[d].sym >= 0 && model->step_dims[ct->dims[d].sym] != 0)
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
    if (model->collect_capacity < bytes) {
      if (model->collect_addr != 0)
        dev->vtable->buffer_free(dev, model->collect_addr);
      model->collect_addr = 0;
      model->collect_capacity = 0;
      KGRT_RETURN_IF_ERROR(
          dev->vtable->buffer_alloc(dev, bytes, &model->collect_addr, err));
      model->collect_capacity = bytes;
    }
  }
  model->advance_pending = 0;
  for (uint32_t s = 0; s < steps; ++s) {
    model->has_run = 0;
    if (s > 0 || pending)
      KGRT_RETURN_IF_ERROR(kgrt_model_advance(model, err));
    KGRT_RETURN_IF_ERROR(kgrt_model_check_ready(model, err));
    /* dims that move every step: the graph updated every step where the
     * device can (else it would be captured and instantiated anew) */
    KGRT_RETURN_IF_ERROR(kgrt_model_launch_plan(
        model, !stepped || dev->vtable->graph_update != NULL, err));
    if (collect != NULL)
      KGRT_RETURN_IF_ERROR(dev->vtable->buffer_copy(
          dev, model->program, model->collect_addr + (uint64_t)s * per_step, cb->addr,
          per_step, err));
    model->has_run = 1;
  }
  model->advance_pending = 1;
  if (collect != NULL)
    KGRT_RETURN_IF_ERROR(dev->vtable->buffer_read(dev, model->program, host,
                                                  model->collect_addr, bytes, err));
  return KGRT_STATUS_OK;
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
  model->advance_pending = 0;
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
    kgrt_expr_eval(&step->units, model->dims, &units);
    if (units > 0 && step->select.scale != 0) {
      kgrt_expr_eval(&step->select, model->dims, &v);
      if (v < step->select_min || v > step->select_max)
        units = 0;
    }
    if (units <= 0 || !kgrt_model_runs(model, step))
      continue;
    out[s].launched = 1;
    out[s].workgroups = (uint32_t)(((uint64_t)units + step->per_block - 1) /
                                   step->per_block * step->repeat);
    for (uint32_t i = 0; i < kern->num_args; ++i)
      if (kern->args[i].kind == KGRT_ARG_BUFFER) {
        kgrt_expr_eval(&step->args[i].bytes, model->dims, &v);
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

/* ---- several GPUs ---------------------------------------------------------- */

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
  if (model->graph != NULL)
    dev->vtable->graph_destroy(dev, model->graph);
  model->graph = NULL;
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
