/* kgrt_table_check.h - the checks of a kernel table before a model is
 * loaded from it, and the table arithmetic the rest of kgrt shares
 * (internal; kgrt_table_check.c).
 *
 * Needs kgrt_table.h and kgrt_base.h. The checks run in this order, each
 * trusting what the ones before it checked: syms, interface, arch, code
 * object. The arithmetic trusts a table that passed them. */
#ifndef KGRT_TABLE_CHECK_H
#define KGRT_TABLE_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "kgrt_alloc.h"
#include "kgrt_base.h"
#include "kgrt_table.h"

/* The table's name for messages ("?" when it has none). */
KGRT_INTERNAL const char *kgrt_table_name(const kgrt_model_table_t *table);

/* scale * dims[sym[0]] * ...; -1 on overflow. Symbols were checked in range. */
KGRT_INTERNAL int kgrt_expr_eval(const kgrt_expr_t *e, const int64_t *dims, int64_t *out);

/* Byte size of a tensor with `dims`; -1 on overflow. A quantized tensor's
 * last dim counts its blocks (checked a constant multiple of the block). */
KGRT_INTERNAL int kgrt_tensor_size(const kgrt_tensor_info_t *t, const int64_t *dims,
                                   size_t *out);

/* Whether dim `sym` is the model's rank (KGRT_SYM_RANK). */
KGRT_INTERNAL int kgrt_sym_is_rank(const kgrt_model_table_t *table, uint32_t sym);
/* Whether dim `sym` is a count (KGRT_SYM_COUNT: 0 .. max, no tensor's). */
KGRT_INTERNAL int kgrt_sym_is_count(const kgrt_model_table_t *table, uint32_t sym);

/* The kind of code object a triple names: 0 amdgcn (hsaco), 1 nvptx
 * (cubin), -1 one kgrt does not validate. */
KGRT_INTERNAL int kgrt_triple_kind(const char *triple);

/* The dims, before anything reads their maxima. */
KGRT_INTERNAL kgrt_status_t kgrt_table_check_syms(const kgrt_model_table_t *table,
                                                  kgrt_error_t *err);
/* The inputs, weights and outputs, which every arch shares, at the dims'
 * maxima `max`. */
KGRT_INTERNAL kgrt_status_t kgrt_table_check_interface(const kgrt_model_table_t *table,
                                                       const int64_t *max,
                                                       kgrt_error_t *err);
/* Everything in the picked arch table that does not need the code object. */
KGRT_INTERNAL kgrt_status_t kgrt_table_check_arch(const kgrt_model_table_t *table,
                                                  const kgrt_arch_table_t *arch,
                                                  const int64_t *max, kgrt_error_t *err);
/* The code object against the table: ELF, machine, arch, kernels, layouts.
 * `cuda`: a cubin (EM_CUDA), else an hsaco (EM_AMDGPU). */
KGRT_INTERNAL kgrt_status_t kgrt_table_check_codeobj(const kgrt_model_table_t *table,
                                                     const kgrt_arch_table_t *arch,
                                                     int cuda,
                                                     const kgrt_allocator_t *alloc,
                                                     kgrt_error_t *err);

#endif /* KGRT_TABLE_CHECK_H */
