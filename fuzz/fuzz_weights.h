/* fuzz_weights.h - the body both libFuzzer targets share: open the input as
 * one format from memory and, when it is accepted, touch everything the API
 * hands out (every tensor byte, name, alias, metadata value and array
 * element), so a header that passes the checks with a wrong range is caught
 * by ASan. Included by fuzz_gguf.c and fuzz_safetensors.c. */
#ifndef KG_FUZZ_WEIGHTS_H
#define KG_FUZZ_WEIGHTS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kgrt_weights.h"

static volatile unsigned fuzz_sink;

static void fuzz_touch(const void *p, size_t n) {
  const unsigned char *b = p;
  unsigned s = 0;
  for (size_t i = 0; i < n; ++i)
    s += b[i];
  fuzz_sink += s;
}

static int fuzz_weights(const uint8_t *data, size_t size, kgrt_weights_format_t format) {
  kgrt_weights_t *w = NULL;
  kgrt_error_t err;
  if (kgrt_weights_open_memory(data, size, format, "fuzz", NULL, &w, &err) !=
      KGRT_STATUS_OK) {
    fuzz_touch(err.message, strlen(err.message));
    return 0;
  }
  for (uint32_t i = 0; i < kgrt_weights_count(w); ++i) {
    const kgrt_weight_info_t *t = kgrt_weights_at(w, i);
    fuzz_touch(t->data, t->bytes);
    fuzz_touch(t->name, strlen(t->name));
    if (kgrt_weights_find(w, t->name) != t)
      __builtin_trap(); /* a name that does not find its own tensor */
    if (t->alias != NULL)
      fuzz_sink += kgrt_weights_find(w, t->alias) != NULL;
  }
  for (uint64_t k = 0; k < kgrt_weights_meta_count(w); ++k) {
    kgrt_meta_type_t type;
    const char *key = kgrt_weights_meta_key(w, k, &type);
    const char *s;
    size_t len;
    int64_t v;
    double f;
    kgrt_meta_array_t a;
    if (kgrt_weights_meta_string(w, key, &s, &len, NULL) == KGRT_STATUS_OK)
      fuzz_touch(s, len);
    kgrt_weights_meta_int(w, key, &v, NULL);
    kgrt_weights_meta_float(w, key, &f, NULL);
    if (kgrt_weights_meta_array(w, key, &a, NULL) == KGRT_STATUS_OK) {
      for (uint64_t e = 0; e < a.count && e < 4096; ++e) {
        kgrt_meta_array_int(&a, e, &v);
        kgrt_meta_array_float(&a, e, &f);
      }
      while (kgrt_meta_array_next_string(&a, &s, &len))
        fuzz_touch(s, len);
    }
  }
  int64_t vocab;
  kgrt_weights_vocab_size(w, &vocab, NULL);
  kgrt_weights_close(w);
  return 0;
}

#endif /* KG_FUZZ_WEIGHTS_H */
