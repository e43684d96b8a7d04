/* llm_unicode.c - see llm_unicode.h. */
#include "llm_unicode.h"

llm_cp_class_t llm_cp_class(uint32_t c) {
  if (c > 0x10ffff)
    return LLM_CP_UNASSIGNED;
  int lo = 0, hi = llm_cp_num_runs - 1; /* the last run starting at or before c */
  while (lo < hi) {
    const int mid = lo + (hi - lo + 1) / 2;
    if (llm_cp_runs[mid] >> 4 <= c)
      lo = mid;
    else
      hi = mid - 1;
  }
  return (llm_cp_class_t)(llm_cp_runs[lo] & 15);
}

int llm_cp_space(uint32_t c) {
  return (c >= 9 && c <= 13) || c == ' ' || c == 0x85 || c == 0xa0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 || c == 0x202f ||
         c == 0x205f || c == 0x3000;
}

uint32_t llm_utf8_next(const unsigned char *s, size_t n, size_t i, size_t *len) {
  const unsigned b = s[i];
  *len = 1;
  if (b < 0x80)
    return b;
  /* the lead's length by its high bits, as llama.cpp reads it: 110xxxxx,
   * 1110xxxx, 11110xxx, then continuation bytes 10xxxxxx */
  const size_t l = (b & 0xe0) == 0xc0   ? 2
                   : (b & 0xf0) == 0xe0 ? 3
                   : (b & 0xf8) == 0xf0 ? 4
                                        : 0;
  if (l == 0 || i + l > n)
    return 0xfffd;
  uint32_t c = b & (0x7fu >> l);
  for (size_t k = 1; k < l; ++k) {
    if ((s[i + k] & 0xc0) != 0x80)
      return 0xfffd;
    c = c << 6 | (s[i + k] & 0x3fu);
  }
  *len = l;
  return c;
}

size_t llm_utf8_len(unsigned char b) {
  static const unsigned char len[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4};
  return len[b >> 4];
}

size_t llm_utf8_put(uint32_t c, char *out) {
  if (c > 0x10ffff)
    c = 0xfffd;
  if (c < 0x80) {
    out[0] = (char)c;
    return 1;
  }
  if (c < 0x800) {
    out[0] = (char)(0xc0 | c >> 6);
    out[1] = (char)(0x80 | (c & 0x3f));
    return 2;
  }
  if (c < 0x10000) {
    out[0] = (char)(0xe0 | c >> 12);
    out[1] = (char)(0x80 | (c >> 6 & 0x3f));
    out[2] = (char)(0x80 | (c & 0x3f));
    return 3;
  }
  out[0] = (char)(0xf0 | c >> 18);
  out[1] = (char)(0x80 | (c >> 12 & 0x3f));
  out[2] = (char)(0x80 | (c >> 6 & 0x3f));
  out[3] = (char)(0x80 | (c & 0x3f));
  return 4;
}
