/* llm_encode.h - the merges of one piece of text (no special tokens in it)
 * into ids, as llama.cpp's sessions do them (llm_tokenizer.c's encode
 * calls them for each piece between special tokens). Each appends to
 * ids[*out .. cap) and returns 0, or -1 when they do not fit, a byte has
 * no token or memory runs out. */
#ifndef LLM_ENCODE_H
#define LLM_ENCODE_H

#include "llm_tokenizer.h"

/* SentencePiece: text already escaped ("▁" for each space); the adjacent
 * pair that is the best-scored piece merges first (the leftmost of equal
 * ones), until no pair is a piece; what is left unmerged goes as <0xNN>
 * byte pieces. */
int llm_encode_spm(const llm_tokenizer_t *tok, const char *text, size_t len, int32_t *ids,
                   int cap, int *out);
/* Byte-level BPE: the pre-tokenizer's words, each word's bytes as the
 * byte-level alphabet (the last character with tok->suffix), then the
 * lowest-ranked merge first (the leftmost of equal ones); a symbol with no
 * token is tok->bpe_unk, or its bytes' tokens. */
int llm_encode_bpe(const llm_tokenizer_t *tok, const char *text, size_t len, int32_t *ids,
                   int cap, int *out);

#endif /* LLM_ENCODE_H */
