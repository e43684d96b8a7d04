/* test_sd_unicode.c - examples/sd's NFC and lowercase (sd_unicode.h) as a
 * filter for check_unicode.py: each line of stdin is code points in hex,
 * space-separated; each line out is their NFC form, ";", their lowercase. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "sd_unicode.h"

enum { MAX = 64 };

static void put(const uint32_t *cp, size_t n) {
  for (size_t i = 0; i < n; ++i)
    printf(i ? " %X" : "%X", (unsigned)cp[i]);
}

int main(void) {
  char line[1024];
  while (fgets(line, sizeof line, stdin) != NULL) {
    uint32_t in[MAX], nfc[4 * MAX], low[2 * MAX];
    size_t n = 0;
    for (char *s = line, *end; n < MAX; s = end) {
      const unsigned long v = strtoul(s, &end, 16);
      if (end == s)
        break;
      in[n++] = (uint32_t)v;
    }
    put(nfc, sd_nfc(in, n, nfc));
    putchar(';');
    put(low, sd_lower(in, n, low));
    putchar('\n');
  }
  return 0;
}
