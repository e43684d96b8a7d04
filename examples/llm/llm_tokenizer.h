/* llm_tokenizer.h - the tokenizer a GGUF file carries (tokenizer.ggml.*):
 * "llama" (SentencePiece-style BPE: pieces with scores, '▁' for a space,
 * <0xNN> byte pieces) encodes and decodes; "gpt2" (the byte-level BPE of
 * Llama 3 and GPT-2) decodes (its encoder needs the merges and the
 * pre-tokenizer's regex: not yet, so such prompts are given as token ids).
 * Every string is copied out of the file and checked (a count that does not
 * match the vocabulary, an id out of range) before use. */
#ifndef LLM_TOKENIZER_H
#define LLM_TOKENIZER_H

#include <stddef.h>
#include <stdint.h>

#include "kgrt_weights.h"

typedef enum llm_tok_kind { LLM_TOK_SPM = 1, LLM_TOK_GPT2 = 2 } llm_tok_kind_t;

typedef struct llm_tokenizer {
  llm_tok_kind_t kind;
  int32_t n;        /* vocabulary */
  char **piece;     /* NUL-terminated copies */
  size_t *len;      /* their lengths */
  float *score;     /* SPM merge priority (0 where the file has none) */
  int32_t *sorted;  /* ids sorted by piece, for lookups */
  int32_t bos, eos; /* -1: none */
  int add_bos;
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
/* The bytes of one token as text (into buf, NUL-terminated): SPM's '▁'
 * becomes a space and <0xNN> its byte; byte-level BPE's characters map back
 * to their bytes. Returns the length. */
size_t llm_tokenizer_piece(const llm_tokenizer_t *tok, int32_t id, char *buf,
                           size_t size);

#endif /* LLM_TOKENIZER_H */
