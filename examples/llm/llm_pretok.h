/* llm_pretok.h - the pre-tokenizers of byte-level BPE vocabularies
 * (tokenizer.ggml.pre), as llama.cpp runs them: text split into words
 * before the merges, by the model's regular expressions. Each is written
 * by hand over code points (llm_unicode.h's classes for \p{L}, \p{N},
 * \p{P}, \s), as a list of stages: a stage splits every piece the stage
 * before it left into its matches and the text between them.
 * Known: GPT-2's ("gpt-2", "mpt", "olmo", ...), "default" (llama.cpp's for
 * an unnamed one), Llama 3's ("llama-bpe", "llama3", "llama-v3", ...),
 * Qwen2's ("qwen2", "deepseek-r1-qwen", ...), "deepseek-llm",
 * "deepseek-coder", "falcon", StarCoder's ("starcoder", "refact",
 * "command-r", ...), BLOOM's ("bloom", "poro-chat", "gpt3-finnish") and
 * "viking". Others ("deepseek-v3", "tekken", "chameleon", ...) are
 * refused by name. CLIP's (no GGUF name: examples/sd's tokenizer.json
 * reader sets it) keeps only its matches: the white space between them is
 * a word of its own, which the encoder drops. */
#ifndef LLM_PRETOK_H
#define LLM_PRETOK_H

#include <stddef.h>
#include <stdint.h>

typedef enum llm_pre {
  LLM_PRE_UNKNOWN = 0,
  LLM_PRE_DEFAULT,
  LLM_PRE_GPT2,
  LLM_PRE_LLAMA3,
  LLM_PRE_QWEN2, /* Llama 3's with \p{N} one at a time */
  LLM_PRE_DEEPSEEK_LLM,
  LLM_PRE_DEEPSEEK_CODER,
  LLM_PRE_FALCON,
  LLM_PRE_STARCODER,
  LLM_PRE_BLOOM,
  LLM_PRE_VIKING,
  LLM_PRE_CLIP, /* white space split off and dropped; text already lowercase */
} llm_pre_t;

/* What a tokenizer.ggml.pre name selects; LLM_PRE_UNKNOWN when kgen does
 * not know it. *ignore_merges: a word that is a token is that token
 * (Llama 3's); *add_bos: BOS first unless the file says otherwise. */
llm_pre_t llm_pretok_find(const char *name, size_t len, int *ignore_merges, int *add_bos);
/* The words of cp[0 .. n): ends[i] is the code point where word i ends
 * (words are contiguous from 0). The count, or -1 when more than cap or
 * pre is unknown. */
int llm_pretok_split(llm_pre_t pre, const uint32_t *cp, size_t n, size_t *ends, int cap);

#endif /* LLM_PRETOK_H */
