/* llm_tokenizer.c - see llm_tokenizer.h. */
#include "llm_tokenizer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(char *why, size_t size, const char *msg) {
  snprintf(why, size, "%s", msg);
  return -1;
}

static int cmp_piece(const char *a, size_t na, const char *b, size_t nb) {
  int c = memcmp(a, b, na < nb ? na : nb);
  return c != 0 ? c : (na > nb) - (na < nb);
}

/* For qsort_r-free sorting: the strings being sorted (sort_strs). */
static char *const *sorting_str;
static const size_t *sorting_len;

static int cmp_strs(const void *x, const void *y) {
  int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
  int c = cmp_piece(sorting_str[a], sorting_len[a], sorting_str[b], sorting_len[b]);
  return c != 0 ? c : (a > b) - (a < b);
}

/* order[0 .. n) = the indices of str[] (lengths len[]) in string order. */
static void sort_strs(char *const *str, const size_t *len, int32_t *order, int32_t n) {
  for (int32_t i = 0; i < n; ++i)
    order[i] = i;
  sorting_str = str;
  sorting_len = len;
  qsort(order, (size_t)n, sizeof *order, cmp_strs);
  sorting_str = NULL;
  sorting_len = NULL;
}

/* The index of s[0 .. n) among the n_str strings sort_strs ordered, or -1. */
static int32_t lookup(char *const *str, const size_t *len, const int32_t *order,
                      int32_t n_str, const char *s, size_t n) {
  int32_t lo = 0, hi = n_str - 1;
  while (lo <= hi) {
    int32_t mid = lo + (hi - lo) / 2, id = order[mid];
    int c = cmp_piece(str[id], len[id], s, n);
    if (c == 0)
      return id;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}

/* The id of the piece s[0 .. n), or -1. */
static int32_t find(const llm_tokenizer_t *tok, const char *s, size_t n) {
  return lookup(tok->piece, tok->len, tok->sorted, tok->n, s, n);
}

static int32_t meta_id(const kgrt_weights_t *w, const char *key, int32_t n) {
  int64_t v;
  kgrt_error_t err;
  if (kgrt_weights_meta_int(w, key, &v, &err) != KGRT_STATUS_OK || v < 0 || v >= n)
    return -1;
  return (int32_t)v;
}

/* The rank of merge s[0 .. n) ("left right"), or -1. */
static int32_t merge_rank(const llm_tokenizer_t *tok, const char *s, size_t n) {
  return lookup(tok->merge, tok->merge_len, tok->merge_sorted, tok->n_merges, s, n);
}

/* A byte-level BPE's merges and pre-tokenizer. */
static int load_bpe(llm_tokenizer_t *tok, const kgrt_weights_t *w, char *why,
                    size_t why_size) {
  kgrt_error_t err;
  const char *pre;
  size_t pre_len;
  tok->pre = LLM_PRE_GPT2; /* no pre-tokenizer named: GPT-2's */
  if (kgrt_weights_meta_string(w, "tokenizer.ggml.pre", &pre, &pre_len, &err) ==
      KGRT_STATUS_OK) {
    static const struct {
      const char *name;
      llm_pre_t pre;
    } known[] = {{"gpt-2", LLM_PRE_GPT2},       {"default", LLM_PRE_GPT2},
                 {"llama-bpe", LLM_PRE_LLAMA3}, {"llama3", LLM_PRE_LLAMA3},
                 {"smaug-bpe", LLM_PRE_LLAMA3}, {"qwen2", LLM_PRE_QWEN2}};
    tok->pre = LLM_PRE_UNKNOWN;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; ++i)
      if (pre_len == strlen(known[i].name) && memcmp(pre, known[i].name, pre_len) == 0)
        tok->pre = known[i].pre;
  }
  kgrt_meta_array_t merges;
  if (kgrt_weights_meta_array(w, "tokenizer.ggml.merges", &merges, &err) !=
      KGRT_STATUS_OK)
    return 0; /* decodes; encodes bytes only */
  if (merges.count > (1u << 24)) {
    llm_tokenizer_free(tok);
    return fail(why, why_size, "tokenizer.ggml.merges has more than 2^24 merges");
  }
  tok->n_merges = (int32_t)merges.count;
  tok->merge = calloc((size_t)tok->n_merges + 1, sizeof *tok->merge);
  tok->merge_len = calloc((size_t)tok->n_merges + 1, sizeof *tok->merge_len);
  tok->merge_sorted = malloc(sizeof *tok->merge_sorted * ((size_t)tok->n_merges + 1));
  if (!tok->merge || !tok->merge_len || !tok->merge_sorted) {
    llm_tokenizer_free(tok);
    return fail(why, why_size, "out of memory");
  }
  for (int32_t i = 0; i < tok->n_merges; ++i) {
    const char *s;
    size_t n;
    if (!kgrt_meta_array_next_string(&merges, &s, &n) || memchr(s, ' ', n) == NULL ||
        (tok->merge[i] = malloc(n + 1)) == NULL) {
      llm_tokenizer_free(tok);
      return fail(why, why_size,
                  "tokenizer.ggml.merges is short or has a merge without a space");
    }
    memcpy(tok->merge[i], s, n);
    tok->merge[i][n] = 0;
    tok->merge_len[i] = n;
  }
  sort_strs(tok->merge, tok->merge_len, tok->merge_sorted, tok->n_merges);
  return 0;
}

int llm_tokenizer_load(llm_tokenizer_t *tok, const kgrt_weights_t *w, char *why,
                       size_t why_size) {
  memset(tok, 0, sizeof *tok);
  tok->bos = tok->eos = -1;
  kgrt_error_t err;
  const char *model;
  size_t model_len;
  if (kgrt_weights_meta_string(w, "tokenizer.ggml.model", &model, &model_len, &err) !=
      KGRT_STATUS_OK)
    return fail(why, why_size, "the file has no tokenizer (tokenizer.ggml.model)");
  if (model_len == 5 && memcmp(model, "llama", 5) == 0)
    tok->kind = LLM_TOK_SPM;
  else if (model_len == 4 && memcmp(model, "gpt2", 4) == 0)
    tok->kind = LLM_TOK_GPT2;
  else
    return fail(why, why_size, "tokenizer.ggml.model is neither \"llama\" nor \"gpt2\"");
  kgrt_meta_array_t tokens, scores;
  if (kgrt_weights_meta_array(w, "tokenizer.ggml.tokens", &tokens, &err) !=
          KGRT_STATUS_OK ||
      tokens.count == 0 || tokens.count > (1u << 24))
    return fail(why, why_size, "tokenizer.ggml.tokens is missing or has no tokens");
  int has_scores = kgrt_weights_meta_array(w, "tokenizer.ggml.scores", &scores, &err) ==
                   KGRT_STATUS_OK;
  if (has_scores && scores.count != tokens.count)
    return fail(why, why_size, "tokenizer.ggml.scores does not have one score a token");
  tok->n = (int32_t)tokens.count;
  tok->piece = calloc((size_t)tok->n, sizeof *tok->piece);
  tok->len = calloc((size_t)tok->n, sizeof *tok->len);
  tok->score = calloc((size_t)tok->n, sizeof *tok->score);
  tok->sorted = malloc(sizeof *tok->sorted * (size_t)tok->n);
  if (!tok->piece || !tok->len || !tok->score || !tok->sorted) {
    llm_tokenizer_free(tok);
    return fail(why, why_size, "out of memory");
  }
  for (int32_t i = 0; i < tok->n; ++i) {
    const char *s;
    size_t n;
    double sc = 0;
    if (!kgrt_meta_array_next_string(&tokens, &s, &n) ||
        (tok->piece[i] = malloc(n + 1)) == NULL) {
      llm_tokenizer_free(tok);
      return fail(why, why_size, "tokenizer.ggml.tokens is short");
    }
    memcpy(tok->piece[i], s, n);
    tok->piece[i][n] = 0;
    tok->len[i] = n;
    if (has_scores && kgrt_meta_array_float(&scores, (uint64_t)i, &sc) == 0)
      tok->score[i] = (float)sc;
  }
  sort_strs(tok->piece, tok->len, tok->sorted, tok->n);
  tok->bos = meta_id(w, "tokenizer.ggml.bos_token_id", tok->n);
  tok->eos = meta_id(w, "tokenizer.ggml.eos_token_id", tok->n);
  /* SentencePiece vocabularies add BOS unless the file says otherwise */
  int64_t add = tok->kind == LLM_TOK_SPM, v;
  if (kgrt_weights_meta_int(w, "tokenizer.ggml.add_bos_token", &v, &err) ==
      KGRT_STATUS_OK)
    add = v;
  tok->add_bos = add != 0 && tok->bos >= 0;
  if (tok->kind == LLM_TOK_GPT2)
    return load_bpe(tok, w, why, why_size);
  return 0;
}

void llm_tokenizer_free(llm_tokenizer_t *tok) {
  for (int32_t i = 0; tok->piece != NULL && i < tok->n; ++i)
    free(tok->piece[i]);
  free(tok->piece);
  free(tok->len);
  free(tok->score);
  free(tok->sorted);
  for (int32_t i = 0; tok->merge != NULL && i < tok->n_merges; ++i)
    free(tok->merge[i]);
  free(tok->merge);
  free(tok->merge_len);
  free(tok->merge_sorted);
  memset(tok, 0, sizeof *tok);
}

static size_t utf8_len(unsigned char c) {
  return c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
}

/* Joins symbols i and i + 1 of the count (start[], len[], contiguous text);
 * returns the new count. */
static int join_symbols(size_t *start, size_t *len, int count, int i) {
  len[i] += len[i + 1];
  memmove(start + i + 1, start + i + 2, sizeof *start * (size_t)(count - i - 2));
  memmove(len + i + 1, len + i + 2, sizeof *len * (size_t)(count - i - 2));
  return count - 1;
}

static int encode_bpe(const llm_tokenizer_t *tok, const char *text, int32_t *ids,
                      int cap);

int llm_tokenizer_encode(const llm_tokenizer_t *tok, const char *text, int32_t *ids,
                         int cap) {
  if (tok->kind == LLM_TOK_GPT2)
    return encode_bpe(tok, text, ids, cap);
  if (tok->kind != LLM_TOK_SPM)
    return -1;
  /* "▁" before the text and for every space */
  size_t tl = strlen(text), n = 0;
  char *s = malloc(3 * (tl + 1) + 1);
  size_t *start = malloc(sizeof *start * (tl + 2)), *len = malloc(sizeof *len * (tl + 2));
  int count = 0, out = 0;
  if (!s || !start || !len)
    goto fail;
  memcpy(s, "\xe2\x96\x81", 3);
  n = 3;
  for (size_t i = 0; i < tl; ++i) {
    if (text[i] == ' ') {
      memcpy(s + n, "\xe2\x96\x81", 3);
      n += 3;
    } else {
      s[n++] = text[i];
    }
  }
  /* symbols: the UTF-8 characters */
  for (size_t i = 0; i < n; i += len[count++]) {
    start[count] = i;
    len[count] = utf8_len((unsigned char)s[i]);
    if (i + len[count] > n)
      len[count] = n - i;
  }
  /* merge the best-scored adjacent pair that is a piece, until none is */
  for (;;) {
    int best = -1;
    float best_score = 0;
    for (int i = 0; i + 1 < count; ++i) {
      int32_t id = find(tok, s + start[i], len[i] + len[i + 1]);
      if (id >= 0 && (best < 0 || tok->score[id] > best_score)) {
        best = i;
        best_score = tok->score[id];
      }
    }
    if (best < 0)
      break;
    count = join_symbols(start, len, count, best);
  }
  if (tok->add_bos) {
    if (out >= cap)
      goto fail;
    ids[out++] = tok->bos;
  }
  for (int i = 0; i < count; ++i) {
    int32_t id = find(tok, s + start[i], len[i]);
    if (id >= 0) {
      if (out >= cap)
        goto fail;
      ids[out++] = id;
      continue;
    }
    for (size_t b = 0; b < len[i]; ++b) { /* no piece: its bytes */
      char name[8];
      snprintf(name, sizeof name, "<0x%02X>", (unsigned char)s[start[i] + b]);
      id = find(tok, name, 6);
      if (id < 0 || out >= cap)
        goto fail;
      ids[out++] = id;
    }
  }
  free(s);
  free(start);
  free(len);
  return out;
fail:
  free(s);
  free(start);
  free(len);
  return -1;
}

/* GPT-2's byte-level alphabet: bytes 33-126, 161-172 and 174-255 are their
 * own code points, the other 68 are 256, 257, ... in byte order. */
static int gpt2_byte(uint32_t cp) {
  if ((cp >= 33 && cp <= 126) || (cp >= 161 && cp <= 172) || (cp >= 174 && cp <= 255))
    return (int)cp;
  if (cp < 256 || cp >= 256 + 68)
    return -1;
  uint32_t k = cp - 256;
  for (int b = 0; b < 256; ++b) {
    int own = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
    if (!own && k-- == 0)
      return b;
  }
  return -1;
}

size_t llm_tokenizer_piece(const llm_tokenizer_t *tok, int32_t id, char *buf,
                           size_t size) {
  size_t o = 0;
  if (size == 0)
    return 0;
  if (id < 0 || id >= tok->n) {
    buf[0] = 0;
    return 0;
  }
  const unsigned char *p = (const unsigned char *)tok->piece[id];
  size_t n = tok->len[id];
  if (tok->kind == LLM_TOK_SPM && n == 6 && memcmp(p, "<0x", 3) == 0 && p[5] == '>') {
    unsigned v;
    if (sscanf((const char *)p + 3, "%2x", &v) == 1 && o + 1 < size)
      buf[o++] = (char)v;
  } else if (tok->kind == LLM_TOK_SPM) {
    for (size_t i = 0; i < n && o + 1 < size; ++i) {
      if (i + 2 < n && p[i] == 0xe2 && p[i + 1] == 0x96 && p[i + 2] == 0x81) {
        buf[o++] = ' ';
        i += 2;
      } else {
        buf[o++] = (char)p[i];
      }
    }
  } else {
    for (size_t i = 0; i < n && o + 1 < size;) {
      uint32_t cp = p[i];
      size_t l = utf8_len(p[i]);
      if (l > 1 && i + l <= n) {
        cp = p[i] & (0x7f >> l);
        for (size_t k = 1; k < l; ++k)
          cp = cp << 6 | (p[i + k] & 0x3f);
      }
      int b = gpt2_byte(cp);
      if (b >= 0)
        buf[o++] = (char)b;
      i += l;
    }
  }
  buf[o] = 0;
  return o;
}

/* ---- byte-level BPE: the pre-tokenizer and the merges ---- */

/* The code point at s[i .. n) and its length; a byte that starts no valid
 * sequence is itself, as U+FFFD's class (neither letter, number nor space). */
static uint32_t next_cp(const unsigned char *s, size_t n, size_t i, size_t *len) {
  size_t l = utf8_len(s[i]);
  *len = 1;
  if (l == 1 || i + l > n)
    return s[i] < 0x80 ? s[i] : 0xfffd;
  uint32_t cp = s[i] & (0x7fu >> l);
  for (size_t k = 1; k < l; ++k) {
    if ((s[i + k] & 0xc0) != 0x80)
      return 0xfffd;
    cp = cp << 6 | (s[i + k] & 0x3fu);
  }
  *len = l;
  return cp;
}

static int is_space(uint32_t c) {
  return c == ' ' || (c >= 9 && c <= 13) || c == 0x85 || c == 0xa0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 || c == 0x202f ||
         c == 0x205f || c == 0x3000;
}

static int is_number(uint32_t c) {
  return (c >= '0' && c <= '9') || c == 0xb2 || c == 0xb3 || c == 0xb9 ||
         (c >= 0xbc && c <= 0xbe) || (c >= 0x660 && c <= 0x669) ||
         (c >= 0x6f0 && c <= 0x6f9) || (c >= 0x966 && c <= 0x96f) ||
         (c >= 0x2070 && c <= 0x2079) || (c >= 0x2080 && c <= 0x2089) ||
         (c >= 0x2150 && c <= 0x2189) || (c >= 0x2460 && c <= 0x249b) || c == 0x3007 ||
         (c >= 0x3021 && c <= 0x3029) || (c >= 0xff10 && c <= 0xff19);
}

static int is_letter(uint32_t c) {
  if (c < 0x80)
    return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
  if (c < 0xc0) /* Latin-1's signs; ª µ º are letters */
    return c == 0xaa || c == 0xb5 || c == 0xba;
  if (c == 0xd7 || c == 0xf7 || is_space(c) || is_number(c))
    return 0;
  return !((c >= 0x300 && c <= 0x36f) ||   /* combining marks */
           (c >= 0x2000 && c <= 0x2bff) || /* punctuation .. symbols and arrows */
           (c >= 0x2e00 && c <= 0x2e7f) || (c >= 0x3000 && c <= 0x303f) ||
           (c >= 0xd800 && c <= 0xf8ff) || /* surrogates, private use */
           (c >= 0xfe00 && c <= 0xfe6f) || (c >= 0xff00 && c <= 0xff20) ||
           (c >= 0xff3b && c <= 0xff40) || (c >= 0xff5b && c <= 0xff65) || c == 0xfffd ||
           (c >= 0x1f000 && c <= 0x1faff) || c > 0x10ffff);
}

/* The length in code points of the word at cp[i] (i < n): the first of the
 * pre-tokenizer's alternatives that matches there. */
static size_t word_at(llm_pre_t pre, const uint32_t *cp, size_t n, size_t i) {
  const int llama3 = pre == LLM_PRE_LLAMA3 || pre == LLM_PRE_QWEN2;
  const uint32_t c = cp[i];
  /* 's 't 're 've 'm 'll 'd (Llama 3: any case) */
  if (c == '\'' && i + 1 < n) {
    uint32_t a = cp[i + 1], b = i + 2 < n ? cp[i + 2] : 0;
    if (llama3 && a < 0x80)
      a |= 0x20, b = b < 0x80 ? (b | 0x20) : b;
    if (a == 's' || a == 't' || a == 'm' || a == 'd')
      return 2;
    if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l'))
      return 3;
  }
  size_t j = i;
  if (llama3) {
    /* [^\r\n\p{L}\p{N}]?\p{L}+ */
    if (!is_letter(c) && c != '\r' && c != '\n' && !is_number(c) && i + 1 < n &&
        is_letter(cp[i + 1]))
      j++;
    if (is_letter(cp[j])) {
      while (j < n && is_letter(cp[j]))
        j++;
      return j - i;
    }
    /* \p{N}{1,3} (qwen2: \p{N}) */
    if (is_number(c)) {
      const size_t most = pre == LLM_PRE_QWEN2 ? 1 : 3;
      while (j < n && j - i < most && is_number(cp[j]))
        j++;
      return j - i;
    }
  } else {
    /* ' ?\p{L}+', ' ?\p{N}+' */
    j += c == ' ' && i + 1 < n;
    if (is_letter(cp[j]) || is_number(cp[j])) {
      const int letters = is_letter(cp[j]);
      while (j < n && (letters ? is_letter(cp[j]) : is_number(cp[j])))
        j++;
      return j - i;
    }
    j = i;
  }
  /* ' ?[^\s\p{L}\p{N}]+' (Llama 3: then [\r\n]*) */
  j = i + (c == ' ' && i + 1 < n);
  if (!is_space(cp[j]) && !is_letter(cp[j]) && !is_number(cp[j])) {
    while (j < n && !is_space(cp[j]) && !is_letter(cp[j]) && !is_number(cp[j]))
      j++;
    while (llama3 && j < n && (cp[j] == '\r' || cp[j] == '\n'))
      j++;
    return j - i;
  }
  /* whitespace: i .. e */
  size_t e = i;
  while (e < n && is_space(cp[e]))
    e++;
  if (e == i)
    return 1;   /* (unreachable: every code point is in one class) */
  if (llama3) { /* \s*[\r\n]+: up to the run's last line break */
    for (size_t k = e; k > i; --k)
      if (cp[k - 1] == '\r' || cp[k - 1] == '\n')
        return k - i;
  }
  /* \s+(?!\S), else \s+ */
  if (e == n || e - i == 1)
    return e - i;
  return e - 1 - i;
}

int llm_tokenizer_split(llm_pre_t pre, const char *text, size_t n, size_t *ends,
                        int cap) {
  if (pre == LLM_PRE_UNKNOWN)
    return -1;
  const unsigned char *s = (const unsigned char *)text;
  uint32_t *cp = malloc(sizeof *cp * (n + 1));
  size_t *at = malloc(sizeof *at * (n + 1)); /* each code point's first byte */
  size_t count = 0;
  int words = 0;
  if (!cp || !at)
    goto fail;
  for (size_t i = 0, l; i < n; i += l) {
    at[count] = i;
    cp[count++] = next_cp(s, n, i, &l);
  }
  at[count] = n;
  for (size_t i = 0; i < count;) {
    i += word_at(pre, cp, count, i);
    if (words >= cap)
      goto fail;
    ends[words++] = at[i];
  }
  free(cp);
  free(at);
  return words;
fail:
  free(cp);
  free(at);
  return -1;
}

/* GPT-2's byte-level alphabet, the other way: byte b's code point. */
static uint32_t gpt2_char(unsigned b) {
  if ((b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255))
    return b;
  uint32_t k = 0;
  for (unsigned o = 0; o < b; ++o)
    k += !((o >= 33 && o <= 126) || (o >= 161 && o <= 172) || (o >= 174 && o <= 255));
  return 256 + k;
}

static size_t put_utf8(uint32_t c, char *out) {
  if (c < 0x80) {
    out[0] = (char)c;
    return 1;
  }
  out[0] = (char)(0xc0 | c >> 6); /* < 0x800: every gpt2_char */
  out[1] = (char)(0x80 | (c & 0x3f));
  return 2;
}

/* One word's ids: its bytes as byte-level characters, merged pair by pair
 * (the lowest-ranked merge first) until no adjacent pair is a merge. */
static int encode_word(const llm_tokenizer_t *tok, const unsigned char *w, size_t n,
                       int32_t *ids, int cap, int out) {
  char *s = malloc(2 * n + 1), *key = malloc(4 * n + 2);
  size_t *start = malloc(sizeof *start * (n + 1)), *len = malloc(sizeof *len * (n + 1));
  size_t m = 0;
  int count = 0;
  if (!s || !key || !start || !len) {
    out = -1;
    goto done;
  }
  for (size_t i = 0; i < n; ++i) {
    start[count] = m;
    len[count] = put_utf8(gpt2_char(w[i]), s + m);
    m += len[count++];
  }
  for (;;) {
    int best = -1;
    int32_t best_rank = 0;
    for (int i = 0; i + 1 < count; ++i) {
      memcpy(key, s + start[i], len[i]);
      key[len[i]] = ' ';
      memcpy(key + len[i] + 1, s + start[i + 1], len[i + 1]);
      int32_t r = merge_rank(tok, key, len[i] + 1 + len[i + 1]);
      if (r >= 0 && (best < 0 || r < best_rank)) {
        best = i;
        best_rank = r;
      }
    }
    if (best < 0)
      break;
    count = join_symbols(start, len, count, best);
  }
  for (int i = 0; i < count && out >= 0; ++i) {
    int32_t id = find(tok, s + start[i], len[i]);
    if (id < 0 || out >= cap)
      out = -1;
    else
      ids[out++] = id;
  }
done:
  free(s);
  free(key);
  free(start);
  free(len);
  return out;
}

static int encode_bpe(const llm_tokenizer_t *tok, const char *text, int32_t *ids,
                      int cap) {
  const size_t n = strlen(text);
  size_t *ends = malloc(sizeof *ends * (n + 1));
  int out = 0;
  const int words = ends ? llm_tokenizer_split(tok->pre, text, n, ends, (int)n + 1) : -1;
  if (words < 0) {
    free(ends);
    return -1;
  }
  if (tok->add_bos) {
    if (out >= cap)
      out = -1;
    else
      ids[out++] = tok->bos;
  }
  size_t from = 0;
  for (int i = 0; i < words && out >= 0; from = ends[i++])
    out = encode_word(tok, (const unsigned char *)text + from, ends[i] - from, ids, cap,
                      out);
  free(ends);
  return out;
}
