/* llm_utf8.c - see llm_utf8.h. */
#include "llm_utf8.h"

#include <string.h>

/* The length of the character lead byte b starts (2 .. 4), or 0 when b
 * starts none (a continuation byte, C0, C1, F5 .. FF). */
static int lead_len(unsigned char b) {
  return b >= 0xc2 && b <= 0xdf   ? 2
         : b >= 0xe0 && b <= 0xef ? 3
         : b >= 0xf0 && b <= 0xf4 ? 4
                                  : 0;
}

/* Whether b may follow held[0 .. k) (k >= 1) in a well-formed character:
 * the second byte's range depends on the lead (no overlong forms, no
 * surrogates, nothing past U+10FFFF), the others are 80 .. BF. */
static int fits(const unsigned char *held, int k, unsigned char b) {
  unsigned char lo = 0x80, hi = 0xbf;
  if (k == 1) {
    if (held[0] == 0xe0)
      lo = 0xa0;
    else if (held[0] == 0xed)
      hi = 0x9f;
    else if (held[0] == 0xf0)
      lo = 0x90;
    else if (held[0] == 0xf4)
      hi = 0x8f;
  }
  return b >= lo && b <= hi;
}

static size_t put(char *out, size_t o, size_t cap, const void *p, size_t n) {
  if (o + n <= cap)
    memcpy(out + o, p, n);
  return o + n <= cap ? o + n : o;
}

static const char replacement[3] = {'\xef', '\xbf', '\xbd'};

size_t llm_utf8_push(llm_utf8_t *u, const char *in, size_t n, char *out, size_t cap) {
  size_t o = 0;
  for (size_t i = 0; i < n; ++i) {
    const unsigned char b = (unsigned char)in[i];
    if (u->n_held > 0) {
      if (fits(u->held, u->n_held, b)) {
        u->held[u->n_held++] = b;
        if (u->n_held == lead_len(u->held[0])) {
          o = put(out, o, cap, u->held, (size_t)u->n_held);
          u->n_held = 0;
        }
        continue;
      }
      /* the held bytes are a maximal subpart: one U+FFFD; b starts afresh */
      o = put(out, o, cap, replacement, 3);
      u->n_held = 0;
    }
    if (b < 0x80)
      o = put(out, o, cap, &b, 1);
    else if (lead_len(b) == 0)
      o = put(out, o, cap, replacement, 3);
    else
      u->held[u->n_held++] = b;
  }
  return o;
}

size_t llm_utf8_flush(llm_utf8_t *u, char *out, size_t cap) {
  size_t o = 0;
  if (u->n_held > 0)
    o = put(out, o, cap, replacement, 3);
  u->n_held = 0;
  return o;
}
