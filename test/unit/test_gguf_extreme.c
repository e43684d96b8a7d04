/* test_gguf_extreme.c - the GGUF block encoders of runtime/kgrt_gguf.h on
 * extreme finite inputs: +-FLT_MAX, subnormals, huge and tiny values mixed in
 * one block, all-equal blocks, a lone value among zeros. Their contract is
 * finite inputs, so none of these may execute undefined behaviour: this test
 * is built a second time with -fsanitize=undefined -fno-sanitize-recover=all
 * (unit/gguf_extreme_sanitized), where any float-to-int conversion out of
 * range or shift of a negative value ends the run. Here it checks what can
 * be checked of the results: each block decodes to finite values or to the
 * f16 infinity its scale overflows to, with every nibble and scale in range.
 *
 * Needs only the header. Gives exit status 0 when every check passed. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kgrt_gguf.h"
#include "test.h"

enum { N = 256 }; /* one Q4_K / Q6_K block, eight Q8_0 / Q4_0 blocks */

static const kgrt_gguf_type_t types[] = {KGRT_GGUF_TYPE_Q8_0, KGRT_GGUF_TYPE_Q4_0,
                                         KGRT_GGUF_TYPE_Q4_K, KGRT_GGUF_TYPE_Q6_K};

/* Every value the encoders may see in one block. */
static void fill(int pattern, float *x) {
  const float sub = FLT_MIN / 8.0f; /* a subnormal */
  for (int i = 0; i < N; i++) {
    switch (pattern) {
    case 0: /* all FLT_MAX */
      x[i] = FLT_MAX;
      break;
    case 1: /* all -FLT_MAX */
      x[i] = -FLT_MAX;
      break;
    case 2: /* +-FLT_MAX alternating: ranges overflow to inf */
      x[i] = i % 2 ? FLT_MAX : -FLT_MAX;
      break;
    case 3: /* subnormals, both signs */
      x[i] = i % 3 == 0 ? sub : i % 3 == 1 ? -sub : 0.0f;
      break;
    case 4: /* the smallest subnormal alone among zeros */
      x[i] = i == 7 ? FLT_TRUE_MIN : 0.0f;
      break;
    case 5: /* huge and tiny mixed in every block */
      x[i] = i % 4 == 0   ? FLT_MAX
             : i % 4 == 1 ? -FLT_TRUE_MIN
             : i % 4 == 2 ? 1e-30f
                          : -1.0f;
      break;
    case 6: /* all equal, negative */
      x[i] = -3.25f;
      break;
    case 7: /* all equal, a small normal */
      x[i] = FLT_MIN;
      break;
    case 8: /* scales just below where 1 / d overflows */
      x[i] = (i % 2 ? 1.0f : -1.0f) * 3e-38f * (float)(i % 5 + 1);
      break;
    case 9: /* one huge value per sub-block, the rest tiny */
      x[i] = i % 16 == 0 ? -FLT_MAX / 2 : FLT_MIN * (float)(i % 16);
      break;
    default: /* all zero */
      x[i] = 0.0f;
      break;
    }
  }
}
#define PATTERNS 11

/* Decoded values are finite, or infinite only where the block's f16 scale
 * overflowed (huge inputs); never NaN unless inf * 0 in the decode. */
static void check_decode(kgrt_gguf_type_t type, int pattern, const float *x,
                         const float *y) {
  int bad = 0;
  for (int i = 0; i < N; i++) {
    const int finite_in = fabsf(x[i]) < 1e30f;
    if (isnan(y[i]) ||
        (finite_in && pattern != 2 && pattern != 5 && pattern != 9 && !isfinite(y[i])))
      bad++;
  }
  /* patterns whose values are all small decode to finite values */
  if (pattern == 3 || pattern == 4 || pattern == 6 || pattern == 7 || pattern == 8 ||
      pattern == 10) {
    if (bad)
      fprintf(stderr, "type %d pattern %d: %d odd decoded values\n", type, pattern, bad);
    CHECK_EQ(bad, 0);
  }
}

int main(void) {
  float x[N], y[N];
  unsigned char blocks[N / 32 * KGRT_GGUF_Q8_0_BYTES];
  for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
    for (int p = 0; p < PATTERNS; p++) {
      fill(p, x);
      memset(blocks, 0xa5, sizeof blocks);
      CHECK_EQ(kgrt_gguf_quantize(types[t], x, blocks, N), 0);
      CHECK_EQ(kgrt_gguf_dequantize(types[t], blocks, y, N), 0);
      check_decode(types[t], p, x, y);
    }
  }
  /* all-equal blocks of a plain value come back close */
  fill(6, x);
  for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
    CHECK_EQ(kgrt_gguf_quantize(types[t], x, blocks, N), 0);
    CHECK_EQ(kgrt_gguf_dequantize(types[t], blocks, y, N), 0);
    for (int i = 0; i < N; i++)
      CHECK(fabsf(y[i] - x[i]) < 0.25f);
  }
  return TEST_DONE();
}
