/* sd_unicode.c - see sd_unicode.h. NFC as Unicode's UAX #15 describes it
 * (its reference composition loop); lowercase as Python's str.lower. */
#include "sd_unicode.h"

/* Hangul syllables: L V (T) jamo, composed and decomposed by arithmetic */
enum {
  S_BASE = 0xAC00,
  L_BASE = 0x1100,
  V_BASE = 0x1161,
  T_BASE = 0x11A7,
  L_COUNT = 19,
  V_COUNT = 21,
  T_COUNT = 28,
  N_COUNT = V_COUNT * T_COUNT,
  S_COUNT = L_COUNT * N_COUNT,
};

/* The value of the run holding c in runs[] (first << shift | value). */
static uint32_t run_value(const uint32_t *runs, int n, int shift, uint32_t c) {
  int lo = 0, hi = n - 1; /* the last run starting at or before c */
  while (lo < hi) {
    const int mid = lo + (hi - lo + 1) / 2;
    if (runs[mid] >> shift <= c)
      lo = mid;
    else
      hi = mid - 1;
  }
  return runs[lo] & ((1u << shift) - 1);
}

static unsigned ccc(uint32_t c) {
  return c < 0x300 ? 0 : run_value(sd_ccc_runs, sd_num_ccc_runs, 8, c);
}

static const sd_decomp_t *find_decomp(uint32_t c) {
  int lo = 0, hi = sd_num_decomps - 1;
  while (lo <= hi) {
    const int mid = lo + (hi - lo) / 2;
    if (sd_decomps[mid].c == c)
      return &sd_decomps[mid];
    if (sd_decomps[mid].c < c)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return NULL;
}

/* The full canonical decomposition of c appended at out; its length. */
static size_t decompose(uint32_t c, uint32_t *out) {
  if (c >= S_BASE && c < S_BASE + S_COUNT) {
    const uint32_t s = c - S_BASE;
    out[0] = L_BASE + s / N_COUNT;
    out[1] = V_BASE + s % N_COUNT / T_COUNT;
    out[2] = T_BASE + s % T_COUNT;
    return out[2] == T_BASE ? 2 : 3;
  }
  const sd_decomp_t *d = c < 0xC0 ? NULL : find_decomp(c);
  if (d == NULL) {
    out[0] = c;
    return 1;
  }
  const size_t n = decompose(d->first, out);
  return d->second != 0 ? n + decompose(d->second, out + n) : n;
}

/* The primary composite of a and b, or 0. */
static uint32_t compose(uint32_t a, uint32_t b) {
  if (a >= L_BASE && a < L_BASE + L_COUNT && b >= V_BASE && b < V_BASE + V_COUNT)
    return S_BASE + ((a - L_BASE) * V_COUNT + (b - V_BASE)) * T_COUNT;
  if (a >= S_BASE && a < S_BASE + S_COUNT && (a - S_BASE) % T_COUNT == 0 && b > T_BASE &&
      b < T_BASE + T_COUNT)
    return a + (b - T_BASE);
  int lo = 0, hi = sd_num_comps - 1;
  while (lo <= hi) {
    const int mid = lo + (hi - lo) / 2;
    const sd_comp_t *p = &sd_comps[mid];
    if (p->first == a && p->second == b)
      return p->c;
    if (p->first < a || (p->first == a && p->second < b))
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return 0;
}

size_t sd_nfc(const uint32_t *in, size_t n, uint32_t *out) {
  size_t m = 0;
  for (size_t i = 0; i < n; ++i) /* decomposed */
    m += decompose(in[i], out + m);
  for (size_t i = 1; i < m; ++i) /* each run of non-starters by class, stably */
    for (size_t j = i; j > 0 && ccc(out[j]) != 0 && ccc(out[j - 1]) > ccc(out[j]); --j) {
      const uint32_t t = out[j];
      out[j] = out[j - 1];
      out[j - 1] = t;
    }
  if (m == 0)
    return 0;
  /* composed: each character with the last starter, unless a character
   * of its class or a starter comes between them */
  size_t starter = 0, o = 1;
  unsigned last = ccc(out[0]) != 0 ? 256 : 0;
  for (size_t i = 1; i < m; ++i) {
    const uint32_t c = out[i];
    const unsigned k = ccc(c);
    const uint32_t composite = compose(out[starter], c);
    if (composite != 0 && (last < k || last == 0)) {
      out[starter] = composite;
      continue;
    }
    if (k == 0)
      starter = o;
    last = k;
    out[o++] = c;
  }
  return o;
}

static int cased(uint32_t c) {
  return run_value(sd_case_runs, sd_num_case_runs, 2, c) & 1;
}
static int case_ignorable(uint32_t c) {
  return run_value(sd_case_runs, sd_num_case_runs, 2, c) >> 1 & 1;
}

/* Capital sigma at in[i] ends a word: a cased letter before it and none
 * after it (case-ignorable ones skipped), as Unicode's Final_Sigma. */
static int final_sigma(const uint32_t *in, size_t n, size_t i) {
  size_t j = i;
  while (j > 0 && case_ignorable(in[j - 1]))
    j--;
  if (j == 0 || !cased(in[j - 1]))
    return 0;
  for (j = i + 1; j < n && case_ignorable(in[j]);)
    j++;
  return j == n || !cased(in[j]);
}

size_t sd_lower(const uint32_t *in, size_t n, uint32_t *out) {
  size_t o = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint32_t c = in[i];
    if (c == 0x130) { /* I with a dot: i and a combining dot */
      out[o++] = 'i';
      out[o++] = 0x307;
      continue;
    }
    if (c == 0x3A3 && final_sigma(in, n, i)) {
      out[o++] = 0x3C2;
      continue;
    }
    uint32_t l = c;
    int lo = 0, hi = sd_num_lower_runs - 1;
    while (lo <= hi) {
      const int mid = lo + (hi - lo) / 2;
      const sd_lower_run_t *r = &sd_lower_runs[mid];
      if (c < r->first) {
        hi = mid - 1;
      } else if (c > r->last) {
        lo = mid + 1;
      } else {
        if ((c - r->first) % r->stride == 0)
          l = (uint32_t)((int32_t)c + r->delta);
        break;
      }
    }
    out[o++] = l;
  }
  return o;
}
