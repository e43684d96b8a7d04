/* kgrt_base.h - the runtime's leaf helpers (internal): status messages,
 * device-spec options, table lookups and dlsym tables that the model files,
 * the devices and the weight readers share. Calls into no other kgrt file.
 *
 * Needs kgrt.h. Gives kgrt_error_set and friends, kgrt_options_next, the
 * arch lookups and kgrt_dl_resolve. */
#ifndef KGRT_BASE_H
#define KGRT_BASE_H

#include <stddef.h>
#include <stdint.h>

#include "kgrt.h"

#if defined(__GNUC__)
#define KGRT_INTERNAL __attribute__((visibility("hidden")))
#define KGRT_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define KGRT_INTERNAL
#define KGRT_PRINTF(f, a)
#endif

#define KGRT_RETURN_IF_ERROR(expr)                                                       \
  do {                                                                                   \
    kgrt_status_t kgrt_status_ = (expr);                                                 \
    if (kgrt_status_ != KGRT_STATUS_OK)                                                  \
      return kgrt_status_;                                                               \
  } while (0)

/* Copies the string src into dst (size bytes, always terminated, truncated
 * where it does not fit) with every byte outside printable ASCII (0x20 ..
 * 0x7e) written as \xNN. */
KGRT_INTERNAL void kgrt_printable(char *dst, size_t size, const char *src);

/* Fills *err (when not NULL) with the message in printable ASCII (see
 * kgrt_printable) and returns `status`. */
KGRT_INTERNAL kgrt_status_t kgrt_error_set(kgrt_error_t *err, kgrt_status_t status,
                                           const char *fmt, ...) KGRT_PRINTF(3, 4);
/* *err = OK with an empty message (err may be NULL). */
KGRT_INTERNAL void kgrt_error_clear(kgrt_error_t *err);

/* Bytes per block of `dtype` and the elements one block holds (*elems: 1 for
 * the plain dtypes, 32 or 256 weights for the GGUF block formats); 0 for a
 * dtype this runtime does not know. */
KGRT_INTERNAL size_t kgrt_dtype_block(kgrt_dtype_t dtype, int64_t *elems);

/* One zeroed allocation from `alloc` holding a device's program struct of
 * `size` bytes and, after it, `count` per-kernel slots of `slot` bytes
 * (*out_slots points at them). NULL with OUT_OF_MEMORY in *err (the message
 * names `device_kind`) when it cannot be had. Freed with one kgrt_free. */
KGRT_INTERNAL void *kgrt_program_calloc(const kgrt_allocator_t *alloc, size_t size,
                                        uint32_t count, size_t slot, void **out_slots,
                                        const char *device_kind, kgrt_error_t *err);

/* One "key=N" item of a device spec's option list: at *s (not at its end),
 * fills key (up to `key_size` bytes, terminated) and *value (a decimal number
 * up to 2^62) and moves *s past the item and its comma. 0, or -1 when the
 * item is not of that form (an empty item, no '=', no digits, too long). */
KGRT_INTERNAL int kgrt_options_next(const char **s, char *key, size_t key_size,
                                    uint64_t *value);

/* "" (has_part 0) -> 0; "N" -> N (up to 4 digits); -1 otherwise. */
KGRT_INTERNAL int kgrt_spec_ordinal(const char *part, int has_part);

/* The arch table called `arch` ("gfx1100"), or NULL. */
KGRT_INTERNAL const kgrt_arch_table_t *
kgrt_table_find_arch(const kgrt_model_table_t *table, const char *arch);

/* KGRT_STATUS_NO_MATCHING_ARCH with "model NAME: built for A, B; device is ARCH". */
KGRT_INTERNAL kgrt_status_t kgrt_error_no_matching_arch(kgrt_error_t *err,
                                                        const kgrt_model_table_t *table,
                                                        const char *device_arch);

/* One entry point of a driver library: its name, the offset of its pointer in
 * the caller's table of function pointers, and whether it may be absent. */
typedef struct kgrt_dl_symbol {
  const char *name;
  size_t offset;
  int optional;
} kgrt_dl_symbol_t;

/* dlsym's every symbol of `syms` into `table` (absent optional ones as NULL).
 * 0, or -1 with *out_missing naming the first required one absent. */
KGRT_INTERNAL int kgrt_dl_resolve(void *library, const kgrt_dl_symbol_t *syms, size_t n,
                                  void *table, const char **out_missing);

#endif /* KGRT_BASE_H */
