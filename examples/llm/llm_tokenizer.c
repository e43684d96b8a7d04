/* llm_tokenizer.c - see llm_tokenizer.h. */
#include "llm_tokenizer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(char *why, size_t size, const char *msg) {
  snprintf(why, size, "%s", msg);
  return -1;
}

/* For qsort_r-free sorting: the tokenizer being sorted. */
static const llm_tokenizer_t *sorting;

static int cmp_piece(const char *a, size_t na, const char *b, size_t nb) {
  int c = memcmp(a, b, na < nb ? na : nb);
  return c != 0 ? c : (na > nb) - (na < nb);
}

static int cmp_ids(const void *x, const void *y) {
  int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
  int c =
      cmp_piece(sorting->piece[a], sorting->len[a], sorting->piece[b], sorting->len[b]);
  return c != 0 ? c : (a > b) - (a < b);
}

/* The id of the piece s[0 .. n), or -1. */
static int32_t find(const llm_tokenizer_t *tok, const char *s, size_t n) {
  int32_t lo = 0, hi = tok->n - 1;
  while (lo <= hi) {
    int32_t mid = lo + (hi - lo) / 2, id = tok->sorted[mid];
    int c = cmp_piece(tok->piece[id], tok->len[id], s, n);
    if (c == 0)
      return id;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}

static int32_t meta_id(const kgrt_weights_t *w, const char *key, int32_t n) {
  int64_t v;
  kgrt_error_t err;
  if (kgrt_weights_meta_int(w, key, &v, &err) != KGRT_STATUS_OK || v < 0 || v >= n)
    return -1;
  return (int32_t)v;
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
    tok->sorted[i] = i;
  }
  sorting = tok;
  qsort(tok->sorted, (size_t)tok->n, sizeof *tok->sorted, cmp_ids);
  sorting = NULL;
  tok->bos = meta_id(w, "tokenizer.ggml.bos_token_id", tok->n);
  tok->eos = meta_id(w, "tokenizer.ggml.eos_token_id", tok->n);
  /* SentencePiece vocabularies add BOS unless the file says otherwise */
  int64_t add = tok->kind == LLM_TOK_SPM, v;
  if (kgrt_weights_meta_int(w, "tokenizer.ggml.add_bos_token", &v, &err) ==
      KGRT_STATUS_OK)
    add = v;
  tok->add_bos = add != 0 && tok->bos >= 0;
  return 0;
}

void llm_tokenizer_free(llm_tokenizer_t *tok) {
  for (int32_t i = 0; tok->piece != NULL && i < tok->n; ++i)
    free(tok->piece[i]);
  free(tok->piece);
  free(tok->len);
  free(tok->score);
  free(tok->sorted);
  memset(tok, 0, sizeof *tok);
}

static size_t utf8_len(unsigned char c) {
  return c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
}

int llm_tokenizer_encode(const llm_tokenizer_t *tok, const char *text, int32_t *ids,
                         int cap) {
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
    len[best] += len[best + 1];
    memmove(start + best + 1, start + best + 2,
            sizeof *start * (size_t)(count - best - 2));
    memmove(len + best + 1, len + best + 2, sizeof *len * (size_t)(count - best - 2));
    --count;
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
