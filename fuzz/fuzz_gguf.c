/* fuzz_gguf.c - libFuzzer target: the GGUF parser on arbitrary bytes. */
#include "fuzz_weights.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return fuzz_weights(data, size, KGRT_WEIGHTS_FORMAT_GGUF);
}
