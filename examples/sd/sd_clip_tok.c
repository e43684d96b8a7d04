/* sd_clip_tok.c - see sd_clip_tok.h: the files read into an
 * llm_tokenizer_t (kind LLM_TOK_BPE, pre-tokenizer LLM_PRE_CLIP, the end of
 * word suffix), the normaliser, the padded ids. */
#include "sd_clip_tok.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "llm_unicode.h"
#include "sd_unicode.h"

/* "file: what" into why; -1. */
static int fail(char *why, size_t size, const char *file, const char *fmt, ...) {
  char msg[320];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  snprintf(why, size, "%s: %s", file, msg);
  return -1;
}

static char *copy(const char *s, size_t n) {
  char *c = malloc(n + 1);
  if (c != NULL) {
    memcpy(c, s, n);
    c[n] = 0;
  }
  return c;
}

/* name in the folder path (is_dir) or in the folder of the file path. */
static char *beside(const char *path, const char *name, int is_dir) {
  const char *slash = strrchr(path, '/');
  if (!is_dir && slash == NULL)
    return copy(name, strlen(name));
  const size_t dl = is_dir ? strlen(path) : (size_t)(slash - path);
  char *p = malloc(dl + strlen(name) + 2);
  if (p != NULL)
    sprintf(p, "%.*s/%s", (int)dl, path, name);
  return p;
}

/* ---- the vocabulary and the merges ---------------------------------------- */

/* {"token": id, ...}: ids 0 .. n - 1, each once. */
static int read_vocab(llm_tokenizer_t *tok, json_t *vocab, const char *file,
                      const char *field, char *why, size_t size) {
  if (!json_is_object(vocab) || json_object_size(vocab) == 0 ||
      json_object_size(vocab) > (1u << 24))
    return fail(why, size, file, "%s is not an object of 1 to 2^24 tokens", field);
  tok->n = (int32_t)json_object_size(vocab);
  tok->piece = calloc((size_t)tok->n, sizeof *tok->piece);
  tok->len = calloc((size_t)tok->n, sizeof *tok->len);
  tok->type = calloc((size_t)tok->n, sizeof *tok->type);
  if (!tok->piece || !tok->len || !tok->type)
    return fail(why, size, file, "out of memory");
  const char *key;
  json_t *value;
  json_object_foreach(vocab, key, value) {
    const json_int_t id = json_is_integer(value) ? json_integer_value(value) : -1;
    if (id < 0 || id >= tok->n)
      return fail(why, size, file, "%s: \"%.40s\" has id %s%lld, not one of 0 .. %d",
                  field, key, json_is_integer(value) ? "" : "(not an integer) ",
                  (long long)id, tok->n - 1);
    if (tok->piece[id] != NULL)
      return fail(why, size, file, "%s: id %lld is given twice", field, (long long)id);
    tok->len[id] = strlen(key);
    tok->type[id] = LLM_TOKEN_NORMAL;
    if ((tok->piece[id] = copy(key, tok->len[id])) == NULL)
      return fail(why, size, file, "out of memory");
  }
  return 0;
}

/* Room for n merges. */
static int alloc_merges(llm_tokenizer_t *tok, size_t n) {
  tok->merge = calloc(n + 1, sizeof *tok->merge);
  tok->merge_len = calloc(n + 1, sizeof *tok->merge_len);
  tok->merge_left = calloc(n + 1, sizeof *tok->merge_left);
  return tok->merge && tok->merge_len && tok->merge_left ? 0 : -1;
}

/* The merge left[0 .. nl) + right[0 .. nr) as the next one ("left right"). */
static int add_merge(llm_tokenizer_t *tok, const char *left, size_t nl, const char *right,
                     size_t nr) {
  char *m = malloc(nl + nr + 2);
  if (m == NULL)
    return -1;
  memcpy(m, left, nl);
  m[nl] = ' ';
  memcpy(m + nl + 1, right, nr);
  m[nl + 1 + nr] = 0;
  const int32_t i = tok->n_merges++;
  tok->merge[i] = m;
  tok->merge_len[i] = nl + nr + 1;
  tok->merge_left[i] = nl;
  return 0;
}

/* A merge "left right" (split at the first space after the first byte)
 * or ["left", "right"]. */
static int json_merge(llm_tokenizer_t *tok, json_t *m, const char *file, size_t index,
                      char *why, size_t size) {
  const char *s, *sp;
  if (json_is_string(m) && (s = json_string_value(m))[0] != 0 &&
      (sp = strchr(s + 1, ' ')) != NULL && sp[1] != 0)
    return add_merge(tok, s, (size_t)(sp - s), sp + 1, strlen(sp + 1)) == 0
               ? 0
               : fail(why, size, file, "out of memory");
  json_t *l = json_array_get(m, 0), *r = json_array_get(m, 1);
  if (json_is_array(m) && json_array_size(m) == 2 && json_is_string(l) &&
      json_is_string(r) && json_string_length(l) > 0 && json_string_length(r) > 0)
    return add_merge(tok, json_string_value(l), json_string_length(l),
                     json_string_value(r), json_string_length(r)) == 0
               ? 0
               : fail(why, size, file, "out of memory");
  return fail(why, size, file, "model.merges[%zu] is not \"left right\" or [left, right]",
              index);
}

/* merges.txt: "#version: ..." first, then "left right" a line. */
static int read_merges_txt(llm_tokenizer_t *tok, const char *file, char *why,
                           size_t size) {
  FILE *f = fopen(file, "rb");
  if (f == NULL)
    return fail(why, size, file, "%s (the merges beside a vocab.json)", strerror(errno));
  char *text = NULL;
  long n = -1;
  if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
      (text = malloc((size_t)n + 1)) != NULL && fread(text, 1, (size_t)n, f) != (size_t)n)
    n = -1;
  fclose(f);
  if (text == NULL || n < 0) {
    free(text);
    return fail(why, size, file, "cannot be read");
  }
  text[n] = 0;
  size_t lines = 1;
  for (long i = 0; i < n; ++i)
    lines += text[i] == '\n';
  int rc = alloc_merges(tok, lines) == 0 ? 0 : fail(why, size, file, "out of memory");
  char *line = text;
  for (size_t k = 1; rc == 0 && line != NULL; ++k) {
    char *next = strchr(line, '\n');
    if (next != NULL)
      *next++ = 0;
    size_t l = strlen(line);
    if (l > 0 && line[l - 1] == '\r')
      line[--l] = 0;
    char *sp = l > 0 ? strchr(line + 1, ' ') : NULL;
    if ((k == 1 && strncmp(line, "#version", 8) == 0) || (l == 0 && next == NULL))
      ;
    else if (l != strlen(line) || sp == NULL || sp[1] == 0)
      rc = fail(why, size, file, "line %zu is not \"left right\"", k);
    else if (add_merge(tok, line, (size_t)(sp - line), sp + 1, strlen(sp + 1)) != 0)
      rc = fail(why, size, file, "out of memory");
    line = next;
  }
  free(text);
  return rc;
}

/* ---- the files ------------------------------------------------------------- */

static int32_t find_linear(const llm_tokenizer_t *tok, const char *s) {
  for (int32_t i = 0; i < tok->n; ++i)
    if (strcmp(tok->piece[i], s) == 0)
      return i;
  return -1;
}

/* tokenizer.json's model (its vocabulary, merges, suffix, unknown token),
 * added tokens and padding. */
static int read_tokenizer_json(sd_clip_tok_t *t, json_t *root, const char *file,
                               int32_t *unk, char *why, size_t size) {
  llm_tokenizer_t *tok = &t->bpe;
  json_t *model = json_object_get(root, "model");
  json_t *type = json_object_get(model, "type"),
         *merges = json_object_get(model, "merges");
  json_t *suffix = json_object_get(model, "end_of_word_suffix");
  json_t *unk_token = json_object_get(model, "unk_token");
  if (!json_is_string(type) || strcmp(json_string_value(type), "BPE") != 0)
    return fail(why, size, file, "model.type is not \"BPE\"");
  if (!json_is_string(suffix) || json_string_length(suffix) == 0 ||
      json_string_length(suffix) >= sizeof tok->suffix)
    return fail(why, size, file,
                "model.end_of_word_suffix is not a suffix of 1 to 15 bytes (CLIP's "
                "\"</w>\")");
  memcpy(tok->suffix, json_string_value(suffix), json_string_length(suffix) + 1);
  tok->suffix_len = json_string_length(suffix);
  if (read_vocab(tok, json_object_get(model, "vocab"), file, "model.vocab", why, size))
    return -1;
  if (!json_is_array(merges))
    return fail(why, size, file, "model.merges is not an array");
  if (alloc_merges(tok, json_array_size(merges)) != 0)
    return fail(why, size, file, "out of memory");
  size_t i;
  json_t *m;
  json_array_foreach(merges, i, m) {
    if (json_merge(tok, m, file, i, why, size) != 0)
      return -1;
  }
  if (unk_token != NULL && !json_is_null(unk_token) &&
      (!json_is_string(unk_token) ||
       (*unk = find_linear(tok, json_string_value(unk_token))) < 0))
    return fail(why, size, file, "model.unk_token is not a token of model.vocab");
  json_t *added = json_object_get(root, "added_tokens"), *a;
  json_array_foreach(added, i, a) {
    json_t *id = json_object_get(a, "id"), *content = json_object_get(a, "content");
    const json_int_t v = json_is_integer(id) ? json_integer_value(id) : -1;
    if (v < 0 || v >= tok->n || !json_is_string(content) ||
        strcmp(tok->piece[v], json_string_value(content)) != 0)
      return fail(why, size, file,
                  "added_tokens[%zu]: not a token of model.vocab (id %lld)", i,
                  (long long)v);
    tok->type[v] = json_is_true(json_object_get(a, "special")) ? LLM_TOKEN_CONTROL
                                                               : LLM_TOKEN_USER_DEFINED;
  }
  json_t *padding = json_object_get(root, "padding");
  if (json_is_object(padding)) {
    json_t *id = json_object_get(padding, "pad_id");
    const json_int_t v = json_is_integer(id) ? json_integer_value(id) : -1;
    if (v < 0 || v >= tok->n)
      return fail(why, size, file, "padding.pad_id is not one of 0 .. %d", tok->n - 1);
    t->pad = (int32_t)v;
  }
  return 0;
}

/* Each merge's sides and their pair are tokens (as Hugging Face's BPE
 * requires). */
static int check_merges(const llm_tokenizer_t *tok, const char *file, char *why,
                        size_t size) {
  for (int32_t i = 0; i < tok->n_merges; ++i) {
    const char *m = tok->merge[i];
    const size_t l = tok->merge_left[i], n = tok->merge_len[i];
    char *pair = copy(m, n);
    if (pair == NULL)
      return fail(why, size, file, "out of memory");
    memmove(pair + l, pair + l + 1, n - l); /* "left right" without the space */
    const int ok = llm_tokenizer_find(tok, m, l) >= 0 &&
                   llm_tokenizer_find(tok, m + l + 1, n - l - 1) >= 0 &&
                   llm_tokenizer_find(tok, pair, n - 1) >= 0;
    free(pair);
    if (!ok)
      return fail(why, size, file,
                  "merge %d (\"%.60s\"): a side or the pair is not in the vocabulary",
                  i + 1, m);
  }
  return 0;
}

/* Where the file gives no padding: "pad_token" of special_tokens_map.json,
 * else of tokenizer_config.json, beside it (SD 2.x's tokenizer/ folder pads
 * with "!"; a string, or an object with "content"), looked up in the
 * vocabulary. Neither file: no pad (-1). */
static int read_pad_token(sd_clip_tok_t *t, const char *file, char *why, size_t size) {
  static const char *const names[] = {"special_tokens_map.json", "tokenizer_config.json"};
  for (size_t i = 0; i < sizeof names / sizeof names[0] && t->pad < 0; ++i) {
    char *side = beside(file, names[i], 0);
    if (side == NULL)
      return fail(why, size, file, "out of memory");
    struct stat st;
    if (stat(side, &st) != 0) {
      free(side);
      continue;
    }
    json_error_t e;
    json_t *root = json_load_file(side, JSON_REJECT_DUPLICATES, &e);
    int rc = 0;
    if (root == NULL) {
      rc = fail(why, size, side, "line %d, column %d: %s", e.line, e.column, e.text);
    } else {
      json_t *pad = json_object_get(root, "pad_token");
      if (json_is_object(pad))
        pad = json_object_get(pad, "content");
      if (json_is_string(pad)) {
        const int32_t id =
            llm_tokenizer_find(&t->bpe, json_string_value(pad), json_string_length(pad));
        if (id < 0)
          rc = fail(why, size, side, "pad_token \"%.60s\" is not in the vocabulary",
                    json_string_value(pad));
        t->pad = id;
      } else if (pad != NULL && !json_is_null(pad)) {
        rc = fail(why, size, side, "pad_token is not a string or {\"content\": ...}");
      }
    }
    json_decref(root);
    free(side);
    if (rc != 0)
      return rc;
  }
  return 0;
}

static int load(sd_clip_tok_t *t, const char *path, char *why, size_t size) {
  llm_tokenizer_t *tok = &t->bpe;
  struct stat st;
  char *file = NULL, *merges = NULL;
  json_t *root = NULL;
  int rc = -1;
  int32_t unk = -1;
  if (stat(path, &st) != 0)
    return fail(why, size, path, "%s", strerror(errno));
  file =
      S_ISDIR(st.st_mode) ? beside(path, "tokenizer.json", 1) : copy(path, strlen(path));
  if (file != NULL && S_ISDIR(st.st_mode) && stat(file, &st) != 0) {
    free(file);
    file = beside(path, "vocab.json", 1);
  }
  if (file == NULL) {
    fail(why, size, path, "out of memory");
    goto done;
  }
  json_error_t e;
  if ((root = json_load_file(file, JSON_REJECT_DUPLICATES, &e)) == NULL) {
    fail(why, size, file, "line %d, column %d: %s", e.line, e.column, e.text);
    goto done;
  }
  if (json_is_object(json_object_get(root, "model"))) { /* (a vocab's "model" is an id) */
    if (read_tokenizer_json(t, root, file, &unk, why, size) != 0)
      goto done;
  } else { /* vocab.json and merges.txt: CLIP's suffix */
    memcpy(tok->suffix, "</w>", 5);
    tok->suffix_len = 4;
    if ((merges = beside(file, "merges.txt", 0)) == NULL ||
        read_vocab(tok, root, file, "the vocabulary", why, size) != 0 ||
        read_merges_txt(tok, merges, why, size) != 0)
      goto done;
  }
  tok->bos = find_linear(tok, "<|startoftext|>");
  tok->eos = find_linear(tok, "<|endoftext|>");
  if (tok->bos < 0 || tok->eos < 0) {
    fail(why, size, file, "no %s token",
         tok->bos < 0 ? "<|startoftext|>" : "<|endoftext|>");
    goto done;
  }
  tok->type[tok->bos] = tok->type[tok->eos] = LLM_TOKEN_CONTROL;
  tok->bpe_unk = unk >= 0 ? unk : tok->eos;
  tok->kind = LLM_TOK_BPE;
  tok->pre = LLM_PRE_CLIP;
  if (llm_tokenizer_index(tok) != 0) {
    fail(why, size, file, "out of memory");
    goto done;
  }
  if (check_merges(tok, merges ? merges : file, why, size) != 0)
    goto done;
  if (t->pad < 0 && read_pad_token(t, file, why, size) != 0)
    goto done;
  rc = 0;
done:
  json_decref(root);
  free(file);
  free(merges);
  return rc;
}

int sd_clip_tok_load(sd_clip_tok_t *t, const char *path, char *why, size_t why_size) {
  memset(t, 0, sizeof *t);
  t->bpe.bos = t->bpe.eos = t->bpe.bpe_unk = -1;
  t->pad = -1;
  if (load(t, path, why, why_size) != 0) {
    sd_clip_tok_free(t);
    return -1;
  }
  return 0;
}

void sd_clip_tok_free(sd_clip_tok_t *t) {
  llm_tokenizer_free(&t->bpe);
  t->pad = -1;
}

/* ---- encoding -------------------------------------------------------------- */

/* The code points of well-formed UTF-8 s[0 .. n) into cp; their count, or
 * -1 (an ill-formed sequence, an overlong form, a surrogate). */
static long utf8_decode(const unsigned char *s, size_t n, uint32_t *cp) {
  long count = 0;
  for (size_t i = 0; i < n;) {
    const unsigned b = s[i];
    const size_t l = b < 0x80                ? 1
                     : b >= 0xc2 && b < 0xe0 ? 2
                     : b >= 0xe0 && b < 0xf0 ? 3
                     : b >= 0xf0 && b < 0xf5 ? 4
                                             : 0;
    if (l == 0 || i + l > n)
      return -1;
    uint32_t c = l == 1 ? b : b & (0x7fu >> l);
    for (size_t k = 1; k < l; ++k) {
      if ((s[i + k] & 0xc0) != 0x80)
        return -1;
      c = c << 6 | (s[i + k] & 0x3fu);
    }
    if ((l == 3 && c < 0x800) || (l == 4 && (c < 0x10000 || c > 0x10ffff)) ||
        (c >= 0xd800 && c < 0xe000))
      return -1;
    cp[count++] = c;
    i += l;
  }
  return count;
}

int sd_clip_tok_encode(const sd_clip_tok_t *t, const char *text, size_t len, int32_t pad,
                       int32_t *ids, int len_ids, char *why, size_t why_size) {
  /* NFC: at most 4 code points a code point; lowercase: 2; UTF-8: 4 bytes */
  uint32_t *cp = malloc(sizeof *cp * (len + 1)),
           *nfc = malloc(sizeof *nfc * (4 * len + 1)),
           *low = malloc(sizeof *low * (8 * len + 1));
  char *norm = malloc(32 * len + 1);
  int32_t *tokens = NULL;
  int rc = -1;
  if (!cp || !nfc || !low || !norm) {
    snprintf(why, why_size, "out of memory");
    goto done;
  }
  const long n = utf8_decode((const unsigned char *)text, len, cp);
  if (n < 0) {
    snprintf(why, why_size, "the text is not UTF-8");
    goto done;
  }
  /* NFC, each run of white space one space, lowercase */
  size_t m = sd_nfc(cp, (size_t)n, nfc), w = 0;
  for (size_t i = 0, in_space = 0; i < m; ++i) {
    if (!llm_cp_space(nfc[i]) || !in_space)
      nfc[w++] = llm_cp_space(nfc[i]) ? ' ' : nfc[i];
    in_space = llm_cp_space(nfc[i]);
  }
  m = sd_lower(nfc, w, low);
  size_t nl = 0;
  for (size_t i = 0; i < m; ++i)
    nl += llm_utf8_put(low[i], norm + nl);
  /* a token is at least one byte of the text */
  tokens = malloc(sizeof *tokens * (nl + 1));
  const int count = tokens ? llm_tokenizer_encode(&t->bpe, norm, nl, LLM_ENCODE_SPECIAL,
                                                  tokens, (int)nl + 1)
                           : -1;
  if (count < 0) {
    snprintf(why, why_size, "out of memory");
    goto done;
  }
  const int keep = count < len_ids - 2 ? count : len_ids - 2;
  ids[0] = t->bpe.bos;
  memcpy(ids + 1, tokens, sizeof *ids * (size_t)keep);
  ids[keep + 1] = t->bpe.eos;
  for (int i = keep + 2; i < len_ids; ++i)
    ids[i] = pad;
  rc = keep + 2;
done:
  free(cp);
  free(nfc);
  free(low);
  free(norm);
  free(tokens);
  return rc;
}
