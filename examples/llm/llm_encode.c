/* llm_encode.c - see llm_encode.h. Both merge loops keep the text's
 * symbols as a linked list and the candidate pairs in a heap (best first,
 * the leftmost of equal ones); a pair is stale once either symbol has
 * merged since it was pushed (its size no longer adds up). */
#include "llm_encode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llm_unicode.h"

typedef struct sym {
  size_t off, n; /* bytes of the text; n = 0: merged into the one before */
  int prev, next;
} sym_t;

typedef struct pair {
  double key; /* lower first: -score (SPM) or the merge's rank (BPE) */
  int left, right;
  size_t size;
} pair_t;

typedef struct session {
  const llm_tokenizer_t *tok;
  const char *text;
  sym_t *sym;
  pair_t *heap;
  int n_heap, cap_heap;
} session_t;

static int before(const pair_t *a, const pair_t *b) {
  return a->key < b->key || (a->key == b->key && a->left < b->left);
}

static int heap_push(session_t *s, pair_t p) {
  if (s->n_heap == s->cap_heap) {
    const int cap = s->cap_heap ? 2 * s->cap_heap : 64;
    pair_t *h = realloc(s->heap, sizeof *h * (size_t)cap);
    if (h == NULL)
      return -1;
    s->heap = h;
    s->cap_heap = cap;
  }
  int i = s->n_heap++;
  while (i > 0 && before(&p, &s->heap[(i - 1) / 2])) {
    s->heap[i] = s->heap[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  s->heap[i] = p;
  return 0;
}

static pair_t heap_pop(session_t *s) {
  const pair_t top = s->heap[0], last = s->heap[--s->n_heap];
  int i = 0;
  for (;;) {
    int c = 2 * i + 1;
    if (c >= s->n_heap)
      break;
    if (c + 1 < s->n_heap && before(&s->heap[c + 1], &s->heap[c]))
      c++;
    if (!before(&s->heap[c], &last))
      break;
    s->heap[i] = s->heap[c];
    i = c;
  }
  if (s->n_heap > 0)
    s->heap[i] = last;
  return top;
}

/* Pushes the pair (left, right) when it merges: SPM when the two are a
 * piece, BPE when they are a merge. */
static int try_pair(session_t *s, int left, int right) {
  if (left < 0 || right < 0)
    return 0;
  const sym_t *l = &s->sym[left], *r = &s->sym[right];
  double key;
  if (s->tok->kind == LLM_TOK_SPM) {
    const int32_t id = llm_tokenizer_find(s->tok, s->text + l->off, l->n + r->n);
    if (id < 0)
      return 0;
    key = -(double)s->tok->score[id];
  } else {
    const int32_t rank =
        llm_tokenizer_merge_rank(s->tok, s->text + l->off, l->n, s->text + r->off, r->n);
    if (rank < 0)
      return 0;
    key = rank;
  }
  return heap_push(s, (pair_t){key, left, right, l->n + r->n});
}

/* Merges the symbols of text[0 .. len) (one a UTF-8 character, the last
 * with the tail bytes after it, or one for the whole text when whole)
 * until no pair merges. */
static int merge(session_t *s, size_t len, size_t tail, int whole) {
  int count = 0;
  for (size_t i = 0; i < len; count++) {
    size_t l = whole ? len : llm_utf8_len((unsigned char)s->text[i]);
    if (i + l + tail >= len)
      l = len - i;
    s->sym[count] = (sym_t){i, l, count - 1, i + l < len ? count + 1 : -1};
    i += l;
  }
  s->n_heap = 0;
  for (int i = 1; i < count; ++i)
    if (try_pair(s, i - 1, i))
      return -1;
  while (s->n_heap > 0) {
    const pair_t p = heap_pop(s);
    sym_t *l = &s->sym[p.left], *r = &s->sym[p.right];
    if (l->n == 0 || r->n == 0 || l->n + r->n != p.size)
      continue; /* stale */
    l->n += r->n;
    r->n = 0;
    l->next = r->next;
    if (r->next >= 0)
      s->sym[r->next].prev = p.left;
    if (try_pair(s, l->prev, p.left) || try_pair(s, p.left, l->next))
      return -1;
  }
  return count;
}

static int push(int32_t *ids, int cap, int *out, int32_t id) {
  if (*out >= cap)
    return -1;
  ids[(*out)++] = id;
  return 0;
}

int llm_encode_spm(const llm_tokenizer_t *tok, const char *text, size_t len, int32_t *ids,
                   int cap, int *out) {
  session_t s = {tok, text, malloc(sizeof(sym_t) * (len + 1)), NULL, 0, 0};
  int rc = s.sym ? 0 : -1, count = rc == 0 ? merge(&s, len, 0, 0) : -1;
  rc = count < 0 ? -1 : 0;
  for (int i = 0; rc == 0 && count > 0 && i != -1; i = s.sym[i].next) {
    const sym_t *y = &s.sym[i];
    int32_t id = llm_tokenizer_find(tok, text + y->off, y->n);
    if (id >= 0) {
      rc = push(ids, cap, out, id);
      continue;
    }
    for (size_t b = 0; b < y->n && rc == 0; ++b) { /* no piece: its bytes */
      char name[8];
      snprintf(name, sizeof name, "<0x%02X>", (unsigned char)text[y->off + b]);
      id = llm_tokenizer_find(tok, name, 6);
      if (id < 0)
        id = llm_tokenizer_find(tok, text + y->off + b, 1);
      rc = id < 0 ? -1 : push(ids, cap, out, id);
    }
  }
  free(s.sym);
  free(s.heap);
  return rc;
}

int llm_encode_bpe(const llm_tokenizer_t *tok, const char *text, size_t len, int32_t *ids,
                   int cap, int *out) {
  /* code points (a byte that starts no well-formed sequence is U+FFFD, as
   * llama.cpp reads them), then the words, each as UTF-8 again */
  uint32_t *cp = malloc(sizeof *cp * (len + 1));
  size_t *ends = malloc(sizeof *ends * (len + 1)), n = 0;
  /* a byte is at most 2 alphabet bytes */
  char *word = malloc(2 * 4 * len + tok->suffix_len + 1);
  session_t s = {tok, word, malloc(sizeof(sym_t) * (4 * len + 1)), NULL, 0, 0};
  int rc = cp && ends && word && s.sym ? 0 : -1, words = 0;
  for (size_t i = 0, l; rc == 0 && i < len; i += l)
    cp[n++] = llm_utf8_next((const unsigned char *)text, len, i, &l);
  if (rc == 0 && (words = llm_pretok_split(tok->pre, cp, n, ends, (int)n + 1)) < 0)
    rc = -1;
  size_t from = 0;
  for (int w = 0; rc == 0 && w < words; from = ends[w++]) {
    if (tok->pre == LLM_PRE_CLIP && llm_cp_space(cp[from]))
      continue; /* CLIP keeps only its pre-tokenizer's matches */
    size_t wl = 0;
    for (size_t k = from; k < ends[w]; ++k) {
      char u[4];
      const size_t ul = llm_utf8_put(cp[k], u);
      for (size_t b = 0; b < ul; ++b) {
        const char *c = tok->byte_char[(unsigned char)u[b]];
        const size_t cl = c[1] ? 2 : 1;
        memcpy(word + wl, c, cl);
        wl += cl;
      }
    }
    memcpy(word + wl, tok->suffix, tok->suffix_len);
    wl += tok->suffix_len;
    const int whole = tok->ignore_merges && llm_tokenizer_find(tok, word, wl) >= 0;
    const int count = merge(&s, wl, tok->suffix_len, whole);
    if (count < 0)
      rc = -1;
    for (int i = 0; rc == 0 && count > 0 && i != -1; i = s.sym[i].next) {
      const sym_t *y = &s.sym[i];
      const int32_t id = llm_tokenizer_find(tok, word + y->off, y->n);
      if (id >= 0 || tok->bpe_unk >= 0) {
        rc = push(ids, cap, out, id >= 0 ? id : tok->bpe_unk);
        continue;
      }
      for (size_t b = 0; b < y->n && rc == 0;
           ++b) { /* as llama.cpp: bytes with a token */
        const int32_t bid = llm_tokenizer_find(tok, word + y->off + b, 1);
        if (bid >= 0)
          rc = push(ids, cap, out, bid);
      }
    }
  }
  free(cp);
  free(ends);
  free(word);
  free(s.sym);
  free(s.heap);
  return rc;
}
