/* kgrt_external.h - what kgrt_external.c (the caller's device memory bound to
 * a model's inputs and outputs, and the wait for a model's runs) reads and
 * changes of a loaded model; kgrt_model.c gives these (internal).
 *
 * Needs kgrt_device.h. `output` 0 names input `index`, 1 output `index`;
 * the caller checked the index against the table. */
#ifndef KGRT_EXTERNAL_H
#define KGRT_EXTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "kgrt_device.h"

KGRT_INTERNAL kgrt_device_t *kgrt_model_device(const kgrt_model_t *model);
KGRT_INTERNAL kgrt_device_program_t *kgrt_model_program(const kgrt_model_t *model);
/* The dims set now, one per sym of the table (0: not set), for
 * kgrt_expr_eval. */
KGRT_INTERNAL const int64_t *kgrt_model_dims(const kgrt_model_t *model);
/* The address runs read or write the tensor at: its own buffer's, or the
 * caller's memory bound in its place. */
KGRT_INTERNAL uint64_t kgrt_model_buffer_addr(const kgrt_model_t *model, int output,
                                              uint32_t index);
/* From the next run on, the tensor lives at device address `addr`, bound
 * (an input) at `bytes`, its size at the dims set now; addr 0: back in the
 * model's own buffer (an input unbound). The model's graph is dropped and
 * its outputs need a new run. */
KGRT_INTERNAL void kgrt_model_set_buffer(kgrt_model_t *model, int output, uint32_t index,
                                         uint64_t addr, size_t bytes);

#endif /* KGRT_EXTERNAL_H */
