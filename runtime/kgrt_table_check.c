/* kgrt_table_check.c - a kernel table checked before anything reads it
 * further: its dims, its inputs, weights and outputs, the picked arch's
 * kernels and steps (every index, pointer and size, every expression
 * evaluated at the dims' maxima), and the code object against the table
 * (ELF, machine, arch, kernels, kernarg layouts, block and wave sizes; hsaco
 * for amdgcn triples, cubin for nvptx ones).
 *
 * Needs the table and the code object reader (kgrt_codeobj.h); pure
 * functions of them, with no device. Gives kgrt_table_check.h. */
#include "kgrt_table_check.h"

#include <stdio.h>
#include <string.h>

#include "kgrt_codeobj.h"
#include "kgrt_hash.h"

const char *kgrt_table_name(const kgrt_model_table_t *table) {
  return table->name != NULL ? table->name : "?";
}

static size_t kgrt_dtype_size(kgrt_dtype_t dtype) {
  int64_t elems;
  return kgrt_dtype_block(dtype, &elems);
}

/* scale * dims[sym[0]] * ...; -1 on overflow. Symbols were checked in range. */
int kgrt_expr_eval(const kgrt_expr_t *e, const int64_t *dims, int64_t *out) {
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
int kgrt_tensor_size(const kgrt_tensor_info_t *t, const int64_t *dims, size_t *out) {
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

int kgrt_sym_is_rank(const kgrt_model_table_t *table, uint32_t sym) {
  return (table->syms[sym].flags & KGRT_SYM_RANK) != 0;
}

int kgrt_sym_is_count(const kgrt_model_table_t *table, uint32_t sym) {
  return (table->syms[sym].flags & KGRT_SYM_COUNT) != 0;
}

/* Checks that an expression's symbols exist (the rank and counts only where
 * `special` allows: KGRT_SYM_RANK a kernel argument's value, KGRT_SYM_COUNT
 * that and a kernel step's units and select) and, with every dim at its max,
 * it neither overflows nor (when `nonneg`) goes below 0. */
static kgrt_status_t kgrt_table_check_expr(const kgrt_model_table_t *table,
                                           const int64_t *max, const kgrt_expr_t *e,
                                           int nonneg, uint32_t special, int64_t *out_max,
                                           kgrt_error_t *err, const char *what) {
  for (int i = 0; i < KGRT_EXPR_SYMS; ++i) {
    if (e->sym[i] < 0)
      continue;
    const int known = (uint32_t)e->sym[i] < table->num_syms;
    const uint32_t flags = known ? table->syms[e->sym[i]].flags : 0;
    if (!known || (flags & ~special) != 0)
      return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                            "model %s: %s uses dim %d of %u%s", kgrt_table_name(table),
                            what, e->sym[i], table->num_syms,
                            !known                  ? ""
                            : flags & KGRT_SYM_RANK ? " (the rank)"
                                                    : " (a count)");
  }
  if (kgrt_expr_eval(e, max, out_max) != 0)
    return kgrt_error_set(err, KGRT_STATUS_OUT_OF_RANGE,
                          "model %s: %s overflows with every dim at its max",
                          kgrt_table_name(table), what);
  if (nonneg && *out_max < 0)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT, "model %s: %s is negative",
                          kgrt_table_name(table), what);
  return KGRT_STATUS_OK;
}

static kgrt_status_t kgrt_table_check_tensors(const kgrt_model_table_t *table,
                                              const int64_t *max,
                                              const kgrt_tensor_info_t *t, uint32_t n,
                                              const char *kind, kgrt_error_t *err) {
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
                              kgrt_sym_is_rank(table, (uint32_t)dim->sym) ||
                              kgrt_sym_is_count(table, (uint32_t)dim->sym)
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
int kgrt_triple_kind(const char *triple) {
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
kgrt_status_t kgrt_table_check_syms(const kgrt_model_table_t *table, kgrt_error_t *err) {
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
    /* the rank: one, of a split model, up to its last rank; a count is no
     * rank */
    if ((s->flags & ~(uint32_t)(KGRT_SYM_RANK | KGRT_SYM_COUNT)) != 0 ||
        s->flags == (KGRT_SYM_RANK | KGRT_SYM_COUNT) ||
        ((s->flags & KGRT_SYM_RANK) &&
         (++rank_syms > 1 || table->ranks < 2 || s->max != (int64_t)table->ranks - 1)))
      return kgrt_error_set(
          err, KGRT_STATUS_INVALID_ARGUMENT,
          "model %s: dim %s: bad flags 0x%x (one rank of a split model, "
          "max ranks - 1; or a count)",
          name, s->name, (unsigned)s->flags);
  }
  return KGRT_STATUS_OK;
}

/* The inputs, weights and outputs, which every arch shares. */
kgrt_status_t kgrt_table_check_interface(const kgrt_model_table_t *table,
                                         const int64_t *max, kgrt_error_t *err) {
  if (table->ranks > KGRT_MAX_RANKS)
    return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                          "model %s: split over %u ranks, more than %d",
                          kgrt_table_name(table), table->ranks, KGRT_MAX_RANKS);
  KGRT_RETURN_IF_ERROR(kgrt_table_check_tensors(table, max, table->inputs,
                                                table->num_inputs, "input", err));
  KGRT_RETURN_IF_ERROR(kgrt_table_check_tensors(table, max, table->weights,
                                                table->num_weights, "weight", err));
  KGRT_RETURN_IF_ERROR(kgrt_table_check_tensors(table, max, table->outputs,
                                                table->num_outputs, "output", err));
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
  kgrt_tensor_size(&t[a->index], max, &bytes); /* checked by kgrt_table_check_interface */
  *out = bytes;
  return KGRT_STATUS_OK;
}

/* Whether name is NULL or an identifier shorter than KGRT_ARG_NAME_MAX. */
static int kgrt_arg_name_ok(const char *name) {
  if (name == NULL)
    return 1;
  size_t n = 0;
  for (; n < KGRT_ARG_NAME_MAX && name[n]; n++) {
    const char c = name[n];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
          (n > 0 && c >= '0' && c <= '9')))
      return 0;
  }
  return n > 0 && n < KGRT_ARG_NAME_MAX;
}

/* A kernel's argument names: identifiers, each once. */
static kgrt_status_t kgrt_check_arg_names(const char *name, const kgrt_arch_table_t *arch,
                                          const kgrt_kernel_t *kern, kgrt_error_t *err) {
  for (uint32_t i = 0; i < kern->num_args; ++i) {
    const char *n = kern->args[i].name;
    if (!kgrt_arg_name_ok(n))
      return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                            "model %s: %s: kernel %s: argument %u's name is not an "
                            "identifier of fewer than %d characters",
                            name, arch->arch, kern->name, i, KGRT_ARG_NAME_MAX);
    for (uint32_t j = 0; n && j < i; ++j)
      if (kern->args[j].name && strcmp(kern->args[j].name, n) == 0)
        return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                              "model %s: %s: kernel %s: arguments %u and %u are both "
                              "named '%s'",
                              name, arch->arch, kern->name, j, i, n);
  }
  return KGRT_STATUS_OK;
}

/* A step's arguments against its kernel's by name, where both are named:
 * an argument bound to another parameter (two swapped, say) is refused,
 * naming the parameter and the one the step's argument is for. */
static kgrt_status_t kgrt_check_step_names(const char *name,
                                           const kgrt_arch_table_t *arch, uint32_t s,
                                           const kgrt_kernel_t *kern,
                                           const kgrt_step_t *step, kgrt_error_t *err) {
  for (uint32_t i = 0; i < kern->num_args; ++i) {
    const char *want = kern->args[i].name, *got = step->args[i].name;
    if (!kgrt_arg_name_ok(got))
      return kgrt_error_set(err, KGRT_STATUS_INVALID_ARGUMENT,
                            "model %s: %s: step %u (%s): argument %u's name is not an "
                            "identifier of fewer than %d characters",
                            name, arch->arch, s, kern->name, i, KGRT_ARG_NAME_MAX);
    if (want == NULL || got == NULL || strcmp(want, got) == 0)
      continue;
    uint32_t j = 0;
    while (j < kern->num_args &&
           !(kern->args[j].name && strcmp(kern->args[j].name, got) == 0))
      j++;
    if (j < kern->num_args)
      return kgrt_error_set(
          err, KGRT_STATUS_ABI_MISMATCH,
          "model %s: %s: step %u (%s): argument %u is the kernel's '%s', "
          "but the step passes '%s' (argument %u) there: arguments out "
          "of order",
          name, arch->arch, s, kern->name, i, want, got, j);
    return kgrt_error_set(err, KGRT_STATUS_ABI_MISMATCH,
                          "model %s: %s: step %u (%s): argument %u is the kernel's '%s', "
                          "but the step passes '%s', which the kernel does not take",
                          name, arch->arch, s, kern->name, i, want, got);
  }
  return KGRT_STATUS_OK;
}

/* A collective step: a known kind of a float dtype (a broadcast's may be
 * i32), unselected, reading args[0] of `units` elements and writing args[1]
 * of as many (all_gather: ranks times as many), both inside their buffers
 * at the dims' maxima; a broadcast's root a rank, no other's. */
static kgrt_status_t kgrt_table_check_collective(const kgrt_model_table_t *table,
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
      kgrt_table_check_expr(table, max, &step->units, 1, 0, &units, err, what));
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
    KGRT_RETURN_IF_ERROR(
        kgrt_table_check_expr(table, max, &a->bytes, 1, 0, &v, err, what));
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

/* Everything in the picked arch table that does not need the code object. */
kgrt_status_t kgrt_table_check_arch(const kgrt_model_table_t *table,
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
    KGRT_RETURN_IF_ERROR(kgrt_check_arg_names(name, arch, kern, err));
    for (uint32_t i = 0; i < kern->num_args; ++i) {
      const kgrt_kernel_arg_t *a = &kern->args[i];
      /* kgen lays argument i at 8 * i, and the sim image's thunks read it
       * there whatever the code object's metadata claims (kgrt_sim_abi.h) */
      if ((a->kind != KGRT_ARG_BUFFER && a->kind != KGRT_ARG_I64) || a->size != 8 ||
          a->offset != 8 * i || (uint64_t)a->offset + a->size > kern->kernarg_size)
        return kgrt_error_set(err, KGRT_STATUS_ABI_MISMATCH,
                              "model %s: %s: kernel %s: argument %u (kind %d, offset %u, "
                              "size %u) is not 8 bytes at offset %u of a kernarg "
                              "segment of %u bytes",
                              name, arch->arch, kern->name, i, (int)a->kind, a->offset,
                              a->size, 8 * i, kern->kernarg_size);
    }
  }
  for (uint32_t s = 0; s < arch->num_steps; ++s) {
    const kgrt_step_t *step = &arch->steps[s];
    if (step->collective != KGRT_COLLECTIVE_NONE) {
      KGRT_RETURN_IF_ERROR(kgrt_table_check_collective(table, arch, max, s, err));
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
    KGRT_RETURN_IF_ERROR(kgrt_table_check_expr(table, max, &step->units, 1,
                                               KGRT_SYM_COUNT, &units, err, what));
    snprintf(what, sizeof what, "%s: step %u (%s) select", arch->arch, s, kern->name);
    int64_t select = 0;
    if (step->select.scale != 0)
      KGRT_RETURN_IF_ERROR(kgrt_table_check_expr(table, max, &step->select, 0,
                                                 KGRT_SYM_COUNT, &select, err, what));
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
    KGRT_RETURN_IF_ERROR(kgrt_check_step_names(name, arch, s, kern, step, err));
    for (uint32_t i = 0; i < kern->num_args; ++i) {
      const kgrt_step_arg_t *a = &step->args[i];
      int64_t v = 0;
      snprintf(what, sizeof what, "%s: step %u (%s) argument %u", arch->arch, s,
               kern->name, i);
      if (kern->args[i].kind == KGRT_ARG_I64) {
        KGRT_RETURN_IF_ERROR(kgrt_table_check_expr(
            table, max, &a->value, 0, KGRT_SYM_RANK | KGRT_SYM_COUNT, &v, err, what));
        continue;
      }
      uint64_t capacity = 0;
      if (a->moved.scale != 0)
        KGRT_RETURN_IF_ERROR(
            kgrt_table_check_expr(table, max, &a->moved, 1, 0, &v, err, what));
      KGRT_RETURN_IF_ERROR(
          kgrt_table_check_expr(table, max, &a->bytes, 1, 0, &v, err, what));
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
kgrt_status_t kgrt_table_check_codeobj(const kgrt_model_table_t *table,
                                       const kgrt_arch_table_t *arch, int cuda,
                                       const kgrt_allocator_t *alloc, kgrt_error_t *err) {
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
  const int parsed = kgrt_codeobj_parse(arch->image, arch->image_size, alloc, &co, reason,
                                        sizeof reason);
  if (parsed != 0)
    return kgrt_error_set(err,
                          parsed == KGRT_CODEOBJ_NO_MEMORY
                              ? KGRT_STATUS_OUT_OF_MEMORY
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
      if (ca->name[0] && ta->name && strcmp(ca->name, ta->name) != 0)
        st = kgrt_error_set(err, KGRT_STATUS_ABI_MISMATCH,
                            "model %s: %s: kernel %s: argument %u is '%s' in the table, "
                            "'%s' in the code object",
                            name, arch->arch, kern->name, n, ta->name, ca->name);
      else if (ca->offset != ta->offset || ca->size != ta->size ||
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
