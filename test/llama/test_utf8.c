/* test_utf8.c - examples/llm's UTF-8 stream (llm_utf8.h): byte tokens split
 * across steps come out as whole characters, once; ill-formed sequences
 * come out as one U+FFFD each (the expected texts are Python's
 * bytes.decode("utf-8", "replace")); every split of an input gives the same
 * text as the whole input at once, and that text is well-formed UTF-8. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "llm_utf8.h"
#include "test.h"

#define R "\xef\xbf\xbd" /* U+FFFD */

/* The text of in[0 .. n) pushed in pieces at the cuts (ascending, < n)
 * and flushed. */
static size_t stream(const char *in, size_t n, const size_t *cuts, int n_cuts, char *out,
                     size_t cap) {
  llm_utf8_t u = {0};
  size_t o = 0, from = 0;
  for (int i = 0; i <= n_cuts; ++i) {
    const size_t to = i < n_cuts ? cuts[i] : n;
    o += llm_utf8_push(&u, in + from, to - from, out + o, cap - o);
    from = to;
  }
  o += llm_utf8_flush(&u, out + o, cap - o);
  out[o] = 0;
  return o;
}

/* Whether s[0 .. n) is well-formed UTF-8 (Unicode's table 3-7). */
static int well_formed(const unsigned char *s, size_t n) {
  for (size_t i = 0; i < n;) {
    const unsigned b = s[i];
    size_t l = b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : 4;
    if (b >= 0x80 && (b < 0xc2 || b > 0xf4))
      return 0;
    if (i + l > n)
      return 0;
    for (size_t k = 1; k < l; ++k)
      if ((s[i + k] & 0xc0) != 0x80)
        return 0;
    const unsigned c = l > 1 ? s[i + 1] : 0;
    if ((b == 0xe0 && c < 0xa0) || (b == 0xed && c > 0x9f) || (b == 0xf0 && c < 0x90) ||
        (b == 0xf4 && c > 0x8f))
      return 0;
    i += l;
  }
  return 1;
}

static void test_cases(void) {
  static const struct {
    const char *in, *want;
  } cases[] = {
      {"\xc3\xa9", "\xc3\xa9"}, /* é */
      {"a\xf0\x9f\xa6\x99"
       "b",
       "a\xf0\x9f\xa6\x99"
       "b"},       /* 🦙 */
      {"\xa9", R}, /* a lone continuation byte */
      {"\xc3"
       "a",
       R "a"},                       /* a lead cut short */
      {"\xe0\x80", R R},             /* overlong: E0 80 is no prefix */
      {"\xed\xa0\x80", R R R},       /* a surrogate */
      {"\xf0\x9f\x98", R},           /* cut short at the end: once */
      {"\xf4\x90\x80\x80", R R R R}, /* past U+10FFFF */
      {"\xc0\xaf", R R},             /* C0 starts nothing */
      {"\xe2\x82x", R "x"},          /* a maximal subpart of two */
      {"\xff", R},
      {"\xf8\x88\x80\x80\x80", R R R R R},
      {"a\xf0\x9f\xa6\x99"
       "b\xe2\x82",
       "a\xf0\x9f\xa6\x99"
       "b" R},
  };
  char out[128];
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    const size_t n = strlen(cases[c].in);
    stream(cases[c].in, n, NULL, 0, out, sizeof out);
    CHECK_STR(out, cases[c].want);
    /* every split into single bytes, and every split into two */
    size_t cuts[16];
    for (size_t i = 1; i < n; ++i)
      cuts[i - 1] = i;
    stream(cases[c].in, n, cuts, (int)n - 1, out, sizeof out);
    CHECK_STR(out, cases[c].want);
    for (size_t i = 1; i < n; ++i) {
      stream(cases[c].in, n, &i, 1, out, sizeof out);
      CHECK_STR(out, cases[c].want);
    }
  }
}

/* Byte tokens of "é", "🦙" and "語" across decode steps: nothing comes out
 * until a character is whole, then it comes out once. */
static void test_steps(void) {
  llm_utf8_t u = {0};
  char out[32];
  CHECK_EQ(llm_utf8_push(&u, "\xc3", 1, out, sizeof out), 0);
  CHECK_EQ(llm_utf8_push(&u, "\xa9", 1, out, sizeof out), 2);
  CHECK(memcmp(out, "\xc3\xa9", 2) == 0);
  CHECK_EQ(llm_utf8_push(&u, "\xf0\x9f", 2, out, sizeof out), 0);
  CHECK_EQ(llm_utf8_push(&u, "\xa6", 1, out, sizeof out), 0);
  CHECK_EQ(llm_utf8_push(&u, "\x99 \xe8", 3, out, sizeof out), 5);
  CHECK(memcmp(out, "\xf0\x9f\xa6\x99 ", 5) == 0);
  CHECK_EQ(llm_utf8_push(&u, "\xaa\x9e", 2, out, sizeof out), 3);
  CHECK(memcmp(out, "\xe8\xaa\x9e", 3) == 0);
  CHECK_EQ(llm_utf8_flush(&u, out, sizeof out), 0);
  /* a step of an invalid byte after a held lead: the lead's U+FFFD, then
   * the byte's */
  CHECK_EQ(llm_utf8_push(&u, "\xe8", 1, out, sizeof out), 0);
  CHECK_EQ(llm_utf8_push(&u, "\xff", 1, out, sizeof out), 6);
  CHECK(memcmp(out, R R, 6) == 0);
}

/* Random bytes (biased to UTF-8's leads and continuations), split at random:
 * well-formed output, the same for every split, and valid input unchanged. */
static void test_random(void) {
  uint64_t s = 0x9e3779b97f4a7c15ull;
  unsigned char in[64];
  char whole[256], split[256];
  int bad = 0, changed = 0;
  for (int t = 0; t < 20000; ++t) {
    size_t n = 1 + (size_t)(t % 40);
    for (size_t i = 0; i < n; ++i) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      const unsigned r = (unsigned)(s >> 33);
      const unsigned char pick[] = {0x41, 0x80, 0xbf, 0x9f, 0xa0, 0xc2, 0xdf, 0xe0,
                                    0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xc0, 0x90, 0x8f};
      in[i] = r % 3 == 0 ? (unsigned char)(r >> 8) : pick[(r >> 8) % 16];
    }
    const size_t a = stream((const char *)in, n, NULL, 0, whole, sizeof whole);
    size_t cuts[64];
    int nc = 0;
    for (size_t i = 1; i < n; ++i)
      if ((s >> (i % 60)) & 1)
        cuts[nc++] = i;
    const size_t b = stream((const char *)in, n, cuts, nc, split, sizeof split);
    bad +=
        a != b || memcmp(whole, split, a) != 0 || !well_formed((unsigned char *)whole, a);
    changed += well_formed(in, n) && (a != n || memcmp(whole, in, n) != 0);
  }
  CHECK_EQ(bad, 0);
  CHECK_EQ(changed, 0);
}

int main(void) {
  test_cases();
  test_steps();
  test_random();
  return TEST_DONE();
}
