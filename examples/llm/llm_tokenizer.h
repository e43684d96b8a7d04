/* llm_tokenizer.h - the tokenizer a GGUF file carries (tokenizer.ggml.*):
 * "llama" (SentencePiece-style BPE: pieces with scores, '▁' for a space,
 * <0xNN> byte pieces) and "gpt2" (the byte-level BPE of Llama 3 and GPT-2:
 * tokenizer.ggml.merges in rank order, the text split into words first by
 * the pre-tokenizer tokenizer.ggml.pre names) encode and decode. Every
 * string is copied out of the file and checked (a count that does not match
 * the vocabulary, an id out of range) before use.
 * The pre-tokenizers are the regular expressions of GPT-2 ("gpt-2",
 * "default", or none given) and Llama 3 ("llama-bpe", "llama3", "smaug-bpe";
 * "qwen2": digits one at a time), matched by hand over code points. Their
 * Unicode classes (\p{L}, \p{N}, \s) are exact for ASCII and Latin-1 and
 * taken by ranges beyond: letters are every code point that is not a space,
 * a number, a mark or in a punctuation, symbol, emoji or private-use block,
 * so text in other scripts may split where a full Unicode table would not.
 * Other pre-tokenizers load but do not encode. */
#ifndef LLM_TOKENIZER_H
#define LLM_TOKENIZER_H

#include <stddef.h>
#include <stdint.h>

#include "kgrt_weights.h"

typedef enum llm_tok_kind { LLM_TOK_SPM = 1, LLM_TOK_GPT2 = 2 } llm_tok_kind_t;

/* A byte-level BPE's pre-tokenizer (tokenizer.ggml.pre). */
typedef enum llm_pre {
  LLM_PRE_UNKNOWN = 0, /* loads and decodes, does not encode */
  LLM_PRE_GPT2,
  LLM_PRE_LLAMA3,
  LLM_PRE_QWEN2, /* Llama 3's with \p{N} one at a time */
} llm_pre_t;

typedef struct llm_tokenizer {
  llm_tok_kind_t kind;
  int32_t n;        /* vocabulary */
  char **piece;     /* NUL-terminated copies */
  size_t *len;      /* their lengths */
  float *score;     /* SPM merge priority (0 where the file has none) */
  int32_t *sorted;  /* ids sorted by piece, for lookups */
  int32_t bos, eos; /* -1: none */
  int add_bos;
  /* byte-level BPE: the merges "left right" (copies) in rank order, their
   * ranks sorted by merge for lookups, and the pre-tokenizer */
  int32_t n_merges;
  char **merge;
  size_t *merge_len;
  int32_t *merge_sorted;
  llm_pre_t pre;
} llm_tokenizer_t;

/* 0 on success; -1 with why (a line) when the file has no usable tokenizer
 * or a malformed one. */
int llm_tokenizer_load(llm_tokenizer_t *tok, const kgrt_weights_t *w, char *why,
                       size_t why_size);
void llm_tokenizer_free(llm_tokenizer_t *tok);
/* Encodes text (with BOS first when the file asks for it) into ids[cap]:
 * the count, or -1 when it does not fit or the tokenizer cannot encode. */
int llm_tokenizer_encode(const llm_tokenizer_t *tok, const char *text, int32_t *ids,
                         int cap);
/* The pre-tokenizer's words of text[0 .. n): ends[i] is the byte where word i
 * ends (words are contiguous from 0). Returns the count, or -1 when more
 * than cap or pre cannot split. */
int llm_tokenizer_split(llm_pre_t pre, const char *text, size_t n, size_t *ends, int cap);
/* The bytes of one token as text (into buf, NUL-terminated): SPM's '▁'
 * becomes a space and <0xNN> its byte; byte-level BPE's characters map back
 * to their bytes. Returns the length. */
size_t llm_tokenizer_piece(const llm_tokenizer_t *tok, int32_t id, char *buf,
                           size_t size);

#endif /* LLM_TOKENIZER_H */
