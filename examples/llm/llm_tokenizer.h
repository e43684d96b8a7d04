/* llm_tokenizer.h - the tokenizer a GGUF file carries (tokenizer.ggml.*),
 * encoding and decoding as llama.cpp's does (src/llama-vocab.cpp; its
 * test-tokenizer-0 cases pass, test/llama/test_tokenizer_cases.c):
 * - "llama": SentencePiece-style BPE (pieces merged by score, "▁" for a
 *   space and one before the text, <0xNN> byte pieces for the rest);
 * - "gpt2": byte-level BPE (GPT-2, Llama 3, Qwen2, ...): the text split
 *   into words by the pre-tokenizer tokenizer.ggml.pre names
 *   (llm_pretok.h), each word's bytes merged by tokenizer.ggml.merges in
 *   rank order; with Llama 3's pre-tokenizer a word that is a token is
 *   that token.
 * Token types (tokenizer.ggml.token_type): control and user-defined tokens
 * are matched in the text before anything else (control ones only when
 * asked, LLM_ENCODE_SPECIAL), and decode as their text (control ones only
 * when asked); byte tokens decode as their byte. Other vocabularies
 * ("bert": WordPiece, "t5": Unigram, "rwkv", unknown pre-tokenizers) are
 * refused by name. Every string is copied out of the file and checked (a
 * count that does not match the vocabulary, an id out of range) before
 * use. */
#ifndef LLM_TOKENIZER_H
#define LLM_TOKENIZER_H

#include <stddef.h>
#include <stdint.h>

#include "kgrt_weights.h"
#include "llm_pretok.h"

typedef enum llm_tok_kind { LLM_TOK_SPM = 1, LLM_TOK_BPE = 2 } llm_tok_kind_t;

/* GGUF's token types (tokenizer.ggml.token_type). */
typedef enum llm_token_type {
  LLM_TOKEN_UNDEFINED = 0,
  LLM_TOKEN_NORMAL = 1,
  LLM_TOKEN_UNKNOWN = 2,
  LLM_TOKEN_CONTROL = 3,
  LLM_TOKEN_USER_DEFINED = 4,
  LLM_TOKEN_UNUSED = 5,
  LLM_TOKEN_BYTE = 6,
} llm_token_type_t;

enum { LLM_MAX_EOG = 16 };

typedef struct llm_tokenizer {
  llm_tok_kind_t kind;
  int32_t n;        /* vocabulary */
  char **piece;     /* NUL-terminated copies */
  size_t *len;      /* their lengths */
  float *score;     /* SPM merge priority (0 where the file has none) */
  uint8_t *type;    /* llm_token_type_t */
  int32_t *sorted;  /* ids sorted by piece, for lookups */
  int32_t *special; /* control, user-defined and unknown tokens, longest first */
  int32_t n_special;
  int32_t bos, eos;         /* -1: none */
  int32_t eog[LLM_MAX_EOG]; /* the tokens that end a generation (EOS, EOT, ...) */
  int n_eog;
  int add_bos, add_eos, add_space_prefix, ignore_merges;
  /* byte-level BPE: the merges "left right" (copies) in rank order, where
   * left ends, their ranks sorted by merge for lookups, the pre-tokenizer,
   * and each byte's character (UTF-8, NUL-terminated) */
  int32_t n_merges;
  char **merge;
  size_t *merge_len, *merge_left;
  int32_t *merge_sorted;
  llm_pre_t pre;
  char byte_char[256][3];
  /* byte-level BPE as Hugging Face's tokenizer.json has it (examples/sd's
   * CLIP): the suffix the last symbol of each word carries ("</w>"; empty:
   * none), and the token of a symbol not in the vocabulary (-1: its
   * bytes' tokens, as llama.cpp) */
  char suffix[16];
  size_t suffix_len;
  int32_t bpe_unk;
} llm_tokenizer_t;

/* 0 on success; -1 with why (a line) when the file has no usable tokenizer,
 * a malformed one, or one of a kind this tokenizer does not encode. */
int llm_tokenizer_load(llm_tokenizer_t *tok, const kgrt_weights_t *w, char *why,
                       size_t why_size);
void llm_tokenizer_free(llm_tokenizer_t *tok);
/* For a byte-level BPE another reader filled in (n, piece, len, type,
 * bos, eos, the merges with merge_left, pre, suffix, bpe_unk; kind
 * LLM_TOK_BPE): sorts the pieces and merges for lookups, lists the special
 * tokens, sets the byte alphabet. 0, or -1 when memory runs out. */
int llm_tokenizer_index(llm_tokenizer_t *tok);

enum {
  LLM_ENCODE_BOS = 1,     /* BOS first (EOS last) where the file asks for it */
  LLM_ENCODE_SPECIAL = 2, /* control tokens' text in the text is the token */
};
/* Encodes text[0 .. len) into ids[cap]: the count, or -1 when it does not
 * fit (or a byte has no token). */
int llm_tokenizer_encode(const llm_tokenizer_t *tok, const char *text, size_t len,
                         unsigned flags, int32_t *ids, int cap);
/* The bytes of token id as text, into buf (NUL-terminated, cut at size):
 * SPM's "▁" becomes a space and <0xNN> its byte; byte-level BPE's
 * characters map back to their bytes; control and unknown tokens are empty
 * unless special. Returns the whole length (as snprintf). */
size_t llm_tokenizer_piece(const llm_tokenizer_t *tok, int32_t id, int special, char *buf,
                           size_t size);
/* Whether id ends a generation (EOS, end of turn, ...). */
int llm_tokenizer_is_eog(const llm_tokenizer_t *tok, int32_t id);
/* The id of the piece s[0 .. n) (the last of equal ones, as llama.cpp's
 * map keeps), or -1. */
int32_t llm_tokenizer_find(const llm_tokenizer_t *tok, const char *s, size_t n);
/* The rank of the merge of a[0 .. na) and b[0 .. nb), or -1. */
int32_t llm_tokenizer_merge_rank(const llm_tokenizer_t *tok, const char *a, size_t na,
                                 const char *b, size_t nb);

#endif /* LLM_TOKENIZER_H */
