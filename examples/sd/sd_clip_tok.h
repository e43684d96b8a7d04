/* sd_clip_tok.h - CLIP's tokenizer (SD's text encoder's): a prompt as the
 * token ids Hugging Face's CLIPTokenizerFast gives with padding to the
 * encoder's length, read from
 * - a tokenizer.json (openai/clip-vit-large-patch14's): a BPE model with
 *   "vocab", "merges" (strings "a b" or pairs), "end_of_word_suffix"
 *   ("</w>"), "unk_token"; "added_tokens" and "padding" ({"pad_id": N})
 *   if there; or
 * - a vocab.json ({"token": id, ...}) with merges.txt beside it (SD 1.x's
 *   tokenizer/ folder; "#version" first line, then "a b" lines);
 * - or a folder holding either.
 * Where the file gives no padding, the pad is the "pad_token" of a
 * special_tokens_map.json or tokenizer_config.json beside it (SD 2.x's
 * tokenizer/ folder: "!", id 0), if there.
 * The text is normalised (NFC, each run of white space one space,
 * lowercase), split by CLIP's pre-tokenizer (llm_pretok.h's LLM_PRE_CLIP;
 * <|startoftext|> and <|endoftext|> in the text are those tokens), and
 * merged by examples/llm's byte-level BPE, the last symbol of each word
 * carrying the suffix; a symbol not in the vocabulary is unk_token
 * (<|endoftext|> where the file names none). Then <|startoftext|> first,
 * <|endoftext|> last, cut to the length with <|endoftext|> kept, padded.
 * Every id the file gives is checked: the vocabulary's ids are 0 .. n - 1
 * each once; merges, added tokens and the pad are within it.
 *
 * Needs examples/llm's llm_text (the BPE, Unicode classes) and jansson. */
#ifndef SD_CLIP_TOK_H
#define SD_CLIP_TOK_H

#include <stddef.h>
#include <stdint.h>

#include "llm_tokenizer.h"

typedef struct sd_clip_tok {
  llm_tokenizer_t bpe; /* bpe.n: the vocabulary; bpe.bos, bpe.eos */
  int32_t pad;         /* the file's padding pad_id or pad_token; -1: none given */
} sd_clip_tok_t;

/* 0 on success; -1 with why (one line naming the file) otherwise. */
int sd_clip_tok_load(sd_clip_tok_t *t, const char *path, char *why, size_t why_size);
void sd_clip_tok_free(sd_clip_tok_t *t);

/* text[0 .. len) (UTF-8) as len_ids ids (len_ids >= 2): BOS, its tokens,
 * EOS, then pad up to len_ids. Returns the count before the padding (at
 * most len_ids: longer texts lose their last tokens), or -1 with why
 * (text that is not UTF-8; memory). */
int sd_clip_tok_encode(const sd_clip_tok_t *t, const char *text, size_t len, int32_t pad,
                       int32_t *ids, int len_ids, char *why, size_t why_size);

#endif /* SD_CLIP_TOK_H */
