/* llm_tokenizer.c - see llm_tokenizer.h: loading a GGUF file's tokenizer,
 * splitting the text at its special tokens, decoding. The merges are
 * llm_encode.c's. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memmem */
#endif
#include "llm_tokenizer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llm_encode.h"
#include "llm_unicode.h"

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

/* order[0 .. n) = the indices of str[] (lengths len[]) in string order,
 * equal strings by index. */
static void sort_strs(char *const *str, const size_t *len, int32_t *order, int32_t n) {
  for (int32_t i = 0; i < n; ++i)
    order[i] = i;
  sorting_str = str;
  sorting_len = len;
  qsort(order, (size_t)n, sizeof *order, cmp_strs);
  sorting_str = NULL;
  sorting_len = NULL;
}

/* The last index (the highest of equal strings) of s[0 .. n) among the
 * n_str strings sort_strs ordered, or -1. */
static int32_t lookup(char *const *str, const size_t *len, const int32_t *order,
                      int32_t n_str, const char *s, size_t n) {
  int32_t lo = 0, hi = n_str; /* the first string after s */
  while (lo < hi) {
    const int32_t mid = lo + (hi - lo) / 2, id = order[mid];
    if (cmp_piece(str[id], len[id], s, n) <= 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0)
    return -1;
  const int32_t id = order[lo - 1];
  return cmp_piece(str[id], len[id], s, n) == 0 ? id : -1;
}

int32_t llm_tokenizer_find(const llm_tokenizer_t *tok, const char *s, size_t n) {
  return lookup(tok->piece, tok->len, tok->sorted, tok->n, s, n);
}

int32_t llm_tokenizer_merge_rank(const llm_tokenizer_t *tok, const char *a, size_t na,
                                 const char *b, size_t nb) {
  if (tok->n_merges == 0 || na + nb + 1 > 1024)
    return -1;
  char key[1024];
  memcpy(key, a, na);
  key[na] = ' ';
  memcpy(key + na + 1, b, nb);
  const int32_t r = lookup(tok->merge, tok->merge_len, tok->merge_sorted, tok->n_merges,
                           key, na + nb + 1);
  return r >= 0 && tok->merge_left[r] == na ? r : -1; /* "a b c": "a" + "b c" only */
}

static int32_t meta_id(const kgrt_weights_t *w, const char *key, int32_t n) {
  int64_t v;
  kgrt_error_t err;
  if (kgrt_weights_meta_int(w, key, &v, &err) != KGRT_STATUS_OK || v < 0 || v >= n)
    return -1;
  return (int32_t)v;
}

static int meta_flag(const kgrt_weights_t *w, const char *key, int dflt) {
  int64_t v;
  kgrt_error_t err;
  return kgrt_weights_meta_int(w, key, &v, &err) == KGRT_STATUS_OK ? v != 0 : dflt;
}

/* GPT-2's byte-level alphabet: bytes 33-126, 161-172 and 174-255 are their
 * own code points, the other 68 are 256, 257, ... in byte order. */
static void byte_alphabet(llm_tokenizer_t *tok) {
  uint32_t next = 256;
  for (unsigned b = 0; b < 256; ++b) {
    const int own = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174;
    const uint32_t c = own ? b : next++;
    char *o = tok->byte_char[b];
    if (c < 0x80) {
      o[0] = (char)c;
      o[1] = 0;
    } else {
      o[0] = (char)(0xc0 | c >> 6);
      o[1] = (char)(0x80 | (c & 0x3f));
      o[2] = 0;
    }
  }
}

/* The byte of byte-level character c, or -1. */
static int alphabet_byte(uint32_t c) {
  if ((c >= 33 && c <= 126) || (c >= 161 && c <= 172) || (c >= 174 && c <= 255))
    return (int)c;
  if (c < 256 || c >= 256 + 68)
    return -1;
  uint32_t k = c - 256;
  for (int b = 0; b < 256; ++b) {
    const int own = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174;
    if (!own && k-- == 0)
      return b;
  }
  return -1;
}

/* A byte-level BPE's merges and pre-tokenizer. */
static int load_bpe(llm_tokenizer_t *tok, const kgrt_weights_t *w, char *why,
                    size_t why_size) {
  kgrt_error_t err;
  const char *pre;
  size_t pre_len;
  int add_bos = 0;
  byte_alphabet(tok);
  tok->pre = LLM_PRE_DEFAULT; /* no pre-tokenizer named: llama.cpp's default */
  if (kgrt_weights_meta_string(w, "tokenizer.ggml.pre", &pre, &pre_len, &err) ==
      KGRT_STATUS_OK) {
    tok->pre = llm_pretok_find(pre, pre_len, &tok->ignore_merges, &add_bos);
    if (tok->pre == LLM_PRE_UNKNOWN) {
      snprintf(
          why, why_size,
          "tokenizer.ggml.pre is \"%.*s\", a pre-tokenizer kgen's tokenizer does not "
          "know (see examples/llm/llm_pretok.h)",
          (int)(pre_len < 64 ? pre_len : 64), pre);
      return -1;
    }
  }
  tok->add_bos = add_bos;
  kgrt_meta_array_t merges;
  if (kgrt_weights_meta_array(w, "tokenizer.ggml.merges", &merges, &err) !=
      KGRT_STATUS_OK)
    return fail(why, why_size, "a byte-level BPE without tokenizer.ggml.merges");
  if (merges.count > (1u << 24))
    return fail(why, why_size, "tokenizer.ggml.merges has more than 2^24 merges");
  tok->n_merges = (int32_t)merges.count;
  tok->merge = calloc((size_t)tok->n_merges + 1, sizeof *tok->merge);
  tok->merge_len = calloc((size_t)tok->n_merges + 1, sizeof *tok->merge_len);
  tok->merge_left = calloc((size_t)tok->n_merges + 1, sizeof *tok->merge_left);
  tok->merge_sorted = malloc(sizeof *tok->merge_sorted * ((size_t)tok->n_merges + 1));
  if (!tok->merge || !tok->merge_len || !tok->merge_left || !tok->merge_sorted)
    return fail(why, why_size, "out of memory");
  for (int32_t i = 0; i < tok->n_merges; ++i) {
    const char *s, *sp;
    size_t n;
    /* "left right": the first space after the first byte splits it */
    if (!kgrt_meta_array_next_string(&merges, &s, &n) || n < 3 ||
        (sp = memchr(s + 1, ' ', n - 1)) == NULL ||
        (tok->merge[i] = malloc(n + 1)) == NULL)
      return fail(why, why_size,
                  "tokenizer.ggml.merges is short or has a merge without a space");
    memcpy(tok->merge[i], s, n);
    tok->merge[i][n] = 0;
    tok->merge_len[i] = n;
    tok->merge_left[i] = (size_t)(sp - s);
  }
  sort_strs(tok->merge, tok->merge_len, tok->merge_sorted, tok->n_merges);
  return 0;
}

static const size_t *special_lens; /* for qsort: the tokens' lengths */
static int cmp_special(const void *x, const void *y) {
  const int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
  const size_t la = special_lens[a], lb = special_lens[b];
  return la != lb ? (la < lb) - (la > lb) : (a > b) - (a < b);
}

/* The special tokens (control, unknown, user-defined; not empty), longest
 * first. */
static int list_special(llm_tokenizer_t *tok) {
  int32_t n_special = 0;
  for (int32_t i = 0; i < tok->n; ++i)
    n_special +=
        (tok->type[i] == LLM_TOKEN_CONTROL || tok->type[i] == LLM_TOKEN_UNKNOWN ||
         tok->type[i] == LLM_TOKEN_USER_DEFINED) &&
        tok->len[i] > 0;
  tok->special = malloc(sizeof *tok->special * ((size_t)n_special + 1));
  if (tok->special == NULL)
    return -1;
  for (int32_t i = 0; i < tok->n; ++i)
    if ((tok->type[i] == LLM_TOKEN_CONTROL || tok->type[i] == LLM_TOKEN_UNKNOWN ||
         tok->type[i] == LLM_TOKEN_USER_DEFINED) &&
        tok->len[i] > 0)
      tok->special[tok->n_special++] = i;
  special_lens = tok->len;
  qsort(tok->special, (size_t)tok->n_special, sizeof *tok->special, cmp_special);
  special_lens = NULL;
  return 0;
}

/* Token types (or their stand-ins where the file has none), the special
 * tokens longest first, and the tokens that end a generation. */
static int load_types(llm_tokenizer_t *tok, const kgrt_weights_t *w, char *why,
                      size_t why_size) {
  kgrt_error_t err;
  kgrt_meta_array_t types;
  const int has_types = kgrt_weights_meta_array(w, "tokenizer.ggml.token_type", &types,
                                                &err) == KGRT_STATUS_OK;
  if (has_types && types.count != (uint64_t)tok->n)
    return fail(why, why_size,
                "tokenizer.ggml.token_type does not have one type a token");
  for (int32_t i = 0; i < tok->n; ++i) {
    int64_t t = LLM_TOKEN_NORMAL;
    if (has_types &&
        (kgrt_meta_array_int(&types, (uint64_t)i, &t) != 0 || t < 0 || t > 6))
      t = LLM_TOKEN_UNDEFINED;
    /* without types: SentencePiece's <0xNN> pieces are bytes, BOS and EOS
     * control tokens */
    if (!has_types && tok->kind == LLM_TOK_SPM && tok->len[i] == 6 &&
        memcmp(tok->piece[i], "<0x", 3) == 0 && tok->piece[i][5] == '>')
      t = LLM_TOKEN_BYTE;
    if (!has_types && (i == tok->bos || i == tok->eos))
      t = LLM_TOKEN_CONTROL;
    tok->type[i] = (uint8_t)t;
  }
  /* end of generation: EOS, EOT, EOM and the tokens named as llama.cpp
   * names them */
  static const char *const eog_text[] = {"<|eot_id|>",    "<|im_end|>",    "<|end|>",
                                         "<end_of_turn>", "<|endoftext|>", "<|eom_id|>",
                                         "<EOT>"};
  const int32_t eog_ids[] = {tok->eos, meta_id(w, "tokenizer.ggml.eot_token_id", tok->n),
                             meta_id(w, "tokenizer.ggml.eom_token_id", tok->n)};
  for (size_t k = 0; k < 3 + sizeof eog_text / sizeof eog_text[0]; ++k) {
    const int32_t id =
        k < 3 ? eog_ids[k]
              : llm_tokenizer_find(tok, eog_text[k - 3], strlen(eog_text[k - 3]));
    if (id >= 0 && !llm_tokenizer_is_eog(tok, id) && tok->n_eog < LLM_MAX_EOG) {
      tok->eog[tok->n_eog++] = id;
      if (k >= 3)
        tok->type[id] = LLM_TOKEN_CONTROL;
    }
  }
  return list_special(tok) == 0 ? 0 : fail(why, why_size, "out of memory");
}

/* The vocabularies llama.cpp knows that this tokenizer does not encode. */
static const char *refused_kind(const char *model, size_t len) {
  static const struct {
    const char *name, *what;
  } kinds[] = {{"bert", "WordPiece (BERT's)"},
               {"t5", "Unigram (T5's)"},
               {"rwkv", "RWKV's"},
               {"no_vocab", "none"},
               {"none", "none"}};
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; ++i)
    if (len == strlen(kinds[i].name) && memcmp(model, kinds[i].name, len) == 0)
      return kinds[i].what;
  return NULL;
}

static int load(llm_tokenizer_t *tok, const kgrt_weights_t *w, char *why,
                size_t why_size) {
  kgrt_error_t err;
  const char *model;
  size_t model_len;
  if (kgrt_weights_meta_string(w, "tokenizer.ggml.model", &model, &model_len, &err) !=
      KGRT_STATUS_OK)
    return fail(why, why_size, "the file has no tokenizer (tokenizer.ggml.model)");
  if (model_len == 5 && memcmp(model, "llama", 5) == 0) {
    tok->kind = LLM_TOK_SPM;
  } else if (model_len == 4 && memcmp(model, "gpt2", 4) == 0) {
    tok->kind = LLM_TOK_BPE;
  } else {
    const char *what = refused_kind(model, model_len);
    snprintf(why, why_size,
             "tokenizer.ggml.model is \"%.*s\"%s%s%s: kgen's tokenizer encodes "
             "SentencePiece (\"llama\") and byte-level BPE (\"gpt2\") vocabularies",
             (int)(model_len < 32 ? model_len : 32), model, what ? " (" : "",
             what ? what : "", what ? " vocabulary)" : "");
    return -1;
  }
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
  tok->type = calloc((size_t)tok->n, sizeof *tok->type);
  tok->sorted = malloc(sizeof *tok->sorted * (size_t)tok->n);
  if (!tok->piece || !tok->len || !tok->score || !tok->type || !tok->sorted)
    return fail(why, why_size, "out of memory");
  for (int32_t i = 0; i < tok->n; ++i) {
    const char *s;
    size_t n;
    double sc = 0;
    if (!kgrt_meta_array_next_string(&tokens, &s, &n) ||
        (tok->piece[i] = malloc(n + 1)) == NULL)
      return fail(why, why_size, "tokenizer.ggml.tokens is short");
    memcpy(tok->piece[i], s, n);
    tok->piece[i][n] = 0;
    tok->len[i] = n;
    if (has_scores && kgrt_meta_array_float(&scores, (uint64_t)i, &sc) == 0)
      tok->score[i] = (float)sc;
  }
  sort_strs(tok->piece, tok->len, tok->sorted, tok->n);
  tok->bos = meta_id(w, "tokenizer.ggml.bos_token_id", tok->n);
  tok->eos = meta_id(w, "tokenizer.ggml.eos_token_id", tok->n);
  if (tok->kind == LLM_TOK_BPE && load_bpe(tok, w, why, why_size) != 0)
    return -1;
  /* SentencePiece: BOS and a space before the text unless the file says
   * otherwise; byte-level BPE: as its pre-tokenizer has it */
  tok->add_bos = meta_flag(w, "tokenizer.ggml.add_bos_token",
                           tok->kind == LLM_TOK_SPM || tok->add_bos) &&
                 tok->bos >= 0;
  tok->add_eos = meta_flag(w, "tokenizer.ggml.add_eos_token", 0) && tok->eos >= 0;
  tok->add_space_prefix =
      meta_flag(w, "tokenizer.ggml.add_space_prefix", tok->kind == LLM_TOK_SPM);
  return load_types(tok, w, why, why_size);
}

int llm_tokenizer_load(llm_tokenizer_t *tok, const kgrt_weights_t *w, char *why,
                       size_t why_size) {
  memset(tok, 0, sizeof *tok);
  tok->bos = tok->eos = tok->bpe_unk = -1;
  if (load(tok, w, why, why_size) != 0) {
    llm_tokenizer_free(tok);
    return -1;
  }
  return 0;
}

int llm_tokenizer_index(llm_tokenizer_t *tok) {
  tok->sorted = malloc(sizeof *tok->sorted * ((size_t)tok->n + 1));
  tok->merge_sorted = malloc(sizeof *tok->merge_sorted * ((size_t)tok->n_merges + 1));
  if (tok->sorted == NULL || tok->merge_sorted == NULL)
    return -1;
  sort_strs(tok->piece, tok->len, tok->sorted, tok->n);
  sort_strs(tok->merge, tok->merge_len, tok->merge_sorted, tok->n_merges);
  byte_alphabet(tok);
  return list_special(tok);
}

void llm_tokenizer_free(llm_tokenizer_t *tok) {
  for (int32_t i = 0; tok->piece != NULL && i < tok->n; ++i)
    free(tok->piece[i]);
  free(tok->piece);
  free(tok->len);
  free(tok->score);
  free(tok->type);
  free(tok->sorted);
  free(tok->special);
  for (int32_t i = 0; tok->merge != NULL && i < tok->n_merges; ++i)
    free(tok->merge[i]);
  free(tok->merge);
  free(tok->merge_len);
  free(tok->merge_left);
  free(tok->merge_sorted);
  memset(tok, 0, sizeof *tok);
}

int llm_tokenizer_is_eog(const llm_tokenizer_t *tok, int32_t id) {
  for (int i = 0; i < tok->n_eog; ++i)
    if (tok->eog[i] == id)
      return 1;
  return 0;
}

/* ---- encoding: the text split at special tokens, then merged ---- */

/* A piece of the text (id < 0: text[off .. off + len)) or a special token. */
typedef struct frag {
  int32_t id;
  size_t off, len;
} frag_t;

/* Splits the text pieces of frags[0 .. *n) at each occurrence of each
 * special token in turn (longest first), as llama.cpp's
 * tokenizer_st_partition; control and unknown tokens only when special. */
static int partition(const llm_tokenizer_t *tok, const char *text, size_t len,
                     frag_t **frags, int *n, int special) {
  for (int32_t s = 0; s < tok->n_special; ++s) {
    const int32_t id = tok->special[s];
    if (!special && tok->type[id] != LLM_TOKEN_USER_DEFINED)
      continue;
    const char *p = tok->piece[id];
    const size_t pl = tok->len[id];
    if (pl > len)
      continue;    /* (longest first: most are, for a short text) */
    int count = 0; /* the pieces after splitting at this token */
    for (int f = 0; f < *n; ++f) {
      count++;
      if ((*frags)[f].id >= 0)
        continue;
      const char *at = text + (*frags)[f].off, *end = at + (*frags)[f].len, *hit;
      while ((hit = memmem(at, (size_t)(end - at), p, pl)) != NULL) {
        count += 1 + (hit > at);
        at = hit + pl;
      }
    }
    if (count == *n)
      continue;
    frag_t *out = malloc(sizeof *out * (size_t)count);
    if (out == NULL)
      return -1;
    int o = 0;
    for (int f = 0; f < *n; ++f) {
      const frag_t fr = (*frags)[f];
      if (fr.id >= 0) {
        out[o++] = fr;
        continue;
      }
      const char *at = text + fr.off, *end = at + fr.len, *hit;
      while ((hit = memmem(at, (size_t)(end - at), p, pl)) != NULL) {
        if (hit > at)
          out[o++] = (frag_t){-1, (size_t)(at - text), (size_t)(hit - at)};
        out[o++] = (frag_t){id, 0, 0};
        at = hit + pl;
      }
      if (end > at)
        out[o++] = (frag_t){-1, (size_t)(at - text), (size_t)(end - at)};
    }
    free(*frags);
    *frags = out;
    *n = o;
  }
  return 0;
}

static int push(int32_t *ids, int cap, int *out, int32_t id) {
  if (*out >= cap)
    return -1;
  ids[(*out)++] = id;
  return 0;
}

int llm_tokenizer_encode(const llm_tokenizer_t *tok, const char *text, size_t len,
                         unsigned flags, int32_t *ids, int cap) {
  int out = 0, n = len > 0, rc = 0;
  frag_t *frags = malloc(sizeof *frags);
  if (frags == NULL)
    return -1;
  frags[0] = (frag_t){-1, 0, len};
  if (partition(tok, text, len, &frags, &n, (flags & LLM_ENCODE_SPECIAL) != 0) != 0) {
    free(frags);
    return -1;
  }
  if ((flags & LLM_ENCODE_BOS) && tok->add_bos)
    rc = push(ids, cap, &out, tok->bos);
  int prev_special = 1; /* SentencePiece: a space before the text and after a special */
  char *buf = NULL;
  for (int f = 0; f < n && rc == 0; ++f) {
    if (frags[f].id >= 0) {
      rc = push(ids, cap, &out, frags[f].id);
      prev_special = 1;
      continue;
    }
    const char *s = text + frags[f].off;
    const size_t sl = frags[f].len;
    if (tok->kind == LLM_TOK_BPE) {
      rc = llm_encode_bpe(tok, s, sl, ids, cap, &out);
      continue;
    }
    /* SentencePiece: "▁" for each space */
    free(buf);
    if ((buf = malloc(3 * (sl + 1))) == NULL) {
      rc = -1;
      break;
    }
    size_t bl = 0;
    if (tok->add_space_prefix && prev_special) {
      memcpy(buf, "\xe2\x96\x81", 3);
      bl = 3;
    }
    for (size_t i = 0; i < sl; ++i) {
      if (s[i] == ' ') {
        memcpy(buf + bl, "\xe2\x96\x81", 3);
        bl += 3;
      } else {
        buf[bl++] = s[i];
      }
    }
    rc = llm_encode_spm(tok, buf, bl, ids, cap, &out);
    prev_special = 0;
  }
  if (rc == 0 && (flags & LLM_ENCODE_BOS) && tok->add_eos)
    rc = push(ids, cap, &out, tok->eos);
  free(buf);
  free(frags);
  return rc == 0 ? out : -1;
}

/* ---- decoding ---- */

static size_t put(char *buf, size_t size, size_t o, const char *s, size_t n) {
  for (size_t i = 0; i < n; ++i, ++o)
    if (o + 1 < size)
      buf[o] = s[i];
  return o;
}

size_t llm_tokenizer_piece(const llm_tokenizer_t *tok, int32_t id, int special, char *buf,
                           size_t size) {
  size_t o = 0;
  if (size > 0)
    buf[0] = 0;
  if (id < 0 || id >= tok->n)
    return 0;
  const char *p = tok->piece[id];
  const size_t n = tok->len[id];
  switch ((llm_token_type_t)tok->type[id]) {
  case LLM_TOKEN_CONTROL:
  case LLM_TOKEN_UNKNOWN:
    if (special)
      o = put(buf, size, o, p, n);
    break;
  case LLM_TOKEN_USER_DEFINED:
    o = put(buf, size, o, p, n);
    break;
  case LLM_TOKEN_BYTE: {
    unsigned v;
    char b;
    if (n == 6 && memcmp(p, "<0x", 3) == 0 && sscanf(p + 3, "%2x", &v) == 1) {
      b = (char)v;
      o = put(buf, size, o, &b, 1);
    }
    break;
  }
  case LLM_TOKEN_NORMAL:
    if (tok->kind == LLM_TOK_SPM) {
      for (size_t i = 0; i < n; ++i) {
        if (i + 2 < n && memcmp(p + i, "\xe2\x96\x81", 3) == 0) {
          o = put(buf, size, o, " ", 1);
          i += 2;
        } else {
          o = put(buf, size, o, p + i, 1);
        }
      }
      break;
    }
    /* byte-level: each character its byte; one outside the alphabet as it is */
    for (size_t i = 0, l; i < n; i += l) {
      const uint32_t c = llm_utf8_next((const unsigned char *)p, n, i, &l);
      const int b = alphabet_byte(c);
      char ch = (char)b;
      o = b >= 0 ? put(buf, size, o, &ch, 1) : put(buf, size, o, p + i, l);
    }
    break;
  case LLM_TOKEN_UNDEFINED:
  case LLM_TOKEN_UNUSED:
    break;
  }
  if (size > 0)
    buf[o < size ? o : size - 1] = 0;
  return o;
}
