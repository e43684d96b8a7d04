/* kgrt_base.c - the runtime's leaf helpers: status names and messages,
 * device-spec options, arch lookups and dlsym tables (kgrt_base.h). Calls
 * into no other kgrt file. */
#include "kgrt_base.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *kgrt_status_name(kgrt_status_t status) {
  switch (status) {
  case KGRT_STATUS_OK:
    return "OK";
  case KGRT_STATUS_INVALID_ARGUMENT:
    return "INVALID_ARGUMENT";
  case KGRT_STATUS_UNAVAILABLE:
    return "UNAVAILABLE";
  case KGRT_STATUS_NOT_FOUND:
    return "NOT_FOUND";
  case KGRT_STATUS_NO_MATCHING_ARCH:
    return "NO_MATCHING_ARCH";
  case KGRT_STATUS_INVALID_CODE_OBJECT:
    return "INVALID_CODE_OBJECT";
  case KGRT_STATUS_MISSING_KERNEL:
    return "MISSING_KERNEL";
  case KGRT_STATUS_ABI_MISMATCH:
    return "ABI_MISMATCH";
  case KGRT_STATUS_OUT_OF_MEMORY:
    return "OUT_OF_MEMORY";
  case KGRT_STATUS_OUT_OF_RANGE:
    return "OUT_OF_RANGE";
  case KGRT_STATUS_FAILED_PRECONDITION:
    return "FAILED_PRECONDITION";
  case KGRT_STATUS_DEVICE_ERROR:
    return "DEVICE_ERROR";
  case KGRT_STATUS_INTERNAL:
    return "INTERNAL";
  }
  return "UNKNOWN";
}

void kgrt_printable(char *dst, size_t size, const char *src) {
  static const char hex[] = "0123456789abcdef";
  size_t n = 0;
  if (size == 0)
    return;
  for (; *src != '\0'; ++src) {
    const unsigned char c = (unsigned char)*src;
    const int plain = c >= 0x20 && c < 0x7f;
    if (n + (plain ? 1 : 4) >= size)
      break;
    if (plain) {
      dst[n++] = (char)c;
    } else {
      dst[n++] = '\\';
      dst[n++] = 'x';
      dst[n++] = hex[c >> 4];
      dst[n++] = hex[c & 15];
    }
  }
  dst[n] = '\0';
}

/* Messages carry names from tables, code objects, device specs and drivers:
 * every byte outside printable ASCII is written as \xNN, so a message is one
 * line that is safe to print. */
kgrt_status_t kgrt_error_set(kgrt_error_t *err, kgrt_status_t status, const char *fmt,
                             ...) {
  if (err != NULL) {
    char raw[KGRT_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    kgrt_printable(err->message, sizeof err->message, raw);
    err->status = status;
  }
  return status;
}

void kgrt_error_clear(kgrt_error_t *err) {
  if (err != NULL) {
    err->status = KGRT_STATUS_OK;
    err->message[0] = '\0';
  }
}

void *kgrt_program_calloc(const kgrt_allocator_t *alloc, size_t size, uint32_t count,
                          size_t slot, void **out_slots, const char *device_kind,
                          kgrt_error_t *err) {
  const size_t head = (size + 15) / 16 * 16;
  *out_slots = NULL;
  if (count != 0 && slot > (SIZE_MAX - head) / count) {
    kgrt_error_set(err, KGRT_STATUS_OUT_OF_MEMORY, "%s: out of host memory", device_kind);
    return NULL;
  }
  unsigned char *p = kgrt_calloc(alloc, 1, head + (size_t)count * slot);
  if (p == NULL) {
    kgrt_error_set(err, KGRT_STATUS_OUT_OF_MEMORY, "%s: out of host memory", device_kind);
    return NULL;
  }
  *out_slots = p + head;
  return p;
}

int kgrt_options_next(const char **s, char *key, size_t key_size, uint64_t *value) {
  const char *p = *s;
  size_t n = strcspn(p, "=,");
  if (n == 0 || n >= key_size || p[n] != '=')
    return -1;
  memcpy(key, p, n);
  key[n] = '\0';
  p += n + 1;
  if (*p < '0' || *p > '9')
    return -1;
  uint64_t v = 0;
  for (; *p >= '0' && *p <= '9'; ++p) {
    v = v * 10 + (uint64_t)(*p - '0');
    if (v > ((uint64_t)1 << 62))
      return -1;
  }
  if (*p != ',' && *p != '\0')
    return -1;
  if (*p == ',' && p[1] == '\0')
    return -1; /* a trailing comma */
  *value = v;
  *s = *p == ',' ? p + 1 : p;
  return 0;
}

int kgrt_spec_ordinal(const char *s, int has_part) {
  if (!has_part)
    return 0;
  if (*s == '\0' || strlen(s) > 4)
    return -1;
  int n = 0;
  for (; *s; ++s) {
    if (*s < '0' || *s > '9')
      return -1;
    n = n * 10 + (*s - '0');
  }
  return n;
}

const kgrt_arch_table_t *kgrt_table_find_arch(const kgrt_model_table_t *table,
                                              const char *arch) {
  for (uint32_t i = 0; i < table->num_arches; ++i)
    if (strcmp(table->arches[i]->arch, arch) == 0)
      return table->arches[i];
  return NULL;
}

kgrt_status_t kgrt_error_no_matching_arch(kgrt_error_t *err,
                                          const kgrt_model_table_t *table,
                                          const char *device_arch) {
  char list[256];
  size_t len = 0;
  list[0] = '\0';
  for (uint32_t i = 0; i < table->num_arches && len < sizeof list; ++i)
    len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "",
                            table->arches[i]->arch);
  return kgrt_error_set(err, KGRT_STATUS_NO_MATCHING_ARCH,
                        "model %s: built for %s; device is %s",
                        table->name != NULL ? table->name : "?", list, device_arch);
}

int kgrt_dl_resolve(void *library, const kgrt_dl_symbol_t *syms, size_t n, void *table,
                    const char **out_missing) {
  *out_missing = NULL;
  for (size_t i = 0; i < n; ++i) {
    void *sym = dlsym(library, syms[i].name);
    if (sym == NULL && !syms[i].optional) {
      *out_missing = syms[i].name;
      return -1;
    }
    /* POSIX: a function's address round-trips through void *. */
    memcpy((char *)table + syms[i].offset, &sym, sizeof sym);
  }
  return 0;
}

/* Bytes per block of `dtype` and the elements one block holds (*elems: 1 for
 * the plain dtypes, 32 or 256 weights for the GGUF block formats); 0 for a
 * dtype this runtime does not know. */
size_t kgrt_dtype_block(kgrt_dtype_t dtype, int64_t *elems) {
  *elems = 1;
  switch (dtype) {
  case KGRT_DTYPE_F32:
  case KGRT_DTYPE_I32:
    return 4;
  case KGRT_DTYPE_F16:
  case KGRT_DTYPE_BF16:
    return 2;
  case KGRT_DTYPE_Q8_0:
    *elems = 32;
    return 34;
  case KGRT_DTYPE_Q4_0:
    *elems = 32;
    return 18;
  case KGRT_DTYPE_Q4_K:
    *elems = 256;
    return 144;
  case KGRT_DTYPE_Q6_K:
    *elems = 256;
    return 210;
  }
  return 0;
}
