/* llm_chat.h - a chat's messages as the prompt text a model was trained on,
 * in one of the common formats of the chat templates GGUF files carry
 * (tokenizer.chat_template, a Jinja template this code does not run: it
 * recognises the format, as llama.cpp's llm_chat_detect_template does, and
 * writes that format's text). The text holds the format's control tokens
 * as text: encode it with LLM_ENCODE_SPECIAL and LLM_ENCODE_BOS (BOS is the
 * tokenizer's to add). Shared by the products (llm --chat; a server). */
#ifndef LLM_CHAT_H
#define LLM_CHAT_H

#include <stddef.h>

typedef enum llm_chat_format {
  LLM_CHAT_UNKNOWN = 0,
  LLM_CHAT_LLAMA3,     /* <|start_header_id|>role<|end_header_id|>\n\n...<|eot_id|> */
  LLM_CHAT_CHATML,     /* <|im_start|>role\n...<|im_end|>\n (Qwen, ...) */
  LLM_CHAT_LLAMA2,     /* [INST] ... [/INST] */
  LLM_CHAT_LLAMA2_SYS, /* the same with <<SYS>> for the system message */
  LLM_CHAT_MISTRAL_V1, /*  [INST] ... [/INST] */
  LLM_CHAT_MISTRAL_V3, /* [INST] ... [/INST] */
  LLM_CHAT_MISTRAL_V3_TEKKEN, /* [INST]...[/INST] */
  LLM_CHAT_MISTRAL_V7,        /* [SYSTEM_PROMPT] ...[/SYSTEM_PROMPT][INST] ...[/INST] */
} llm_chat_format_t;

typedef struct llm_chat_msg {
  const char *role; /* "system", "user" or "assistant" */
  const char *content;
} llm_chat_msg_t;

/* The format named (llama3, chatml, llama2, llama2-sys, mistral-v1,
 * mistral-v3, mistral-v3-tekken, mistral-v7), or LLM_CHAT_UNKNOWN. */
llm_chat_format_t llm_chat_format_named(const char *name);
const char *llm_chat_format_name(llm_chat_format_t f);
/* The names, for a message: "llama3, chatml, ...". */
const char *llm_chat_format_list(void);
/* The format of a chat template (its text, or a format's name), or
 * LLM_CHAT_UNKNOWN. */
llm_chat_format_t llm_chat_detect(const char *tmpl, size_t len);
/* The prompt of msgs[0 .. n) in format f, with the assistant's header last
 * where add_assistant (and the format has one), into out (NUL-terminated,
 * cut at cap). Returns the whole length (as snprintf), or 0 for
 * LLM_CHAT_UNKNOWN. */
size_t llm_chat_apply(llm_chat_format_t f, const llm_chat_msg_t *msgs, size_t n,
                      int add_assistant, char *out, size_t cap);

#endif /* LLM_CHAT_H */
