/* llm_chat.c - see llm_chat.h. The formats and how a template is told
 * apart are llama.cpp's (src/llama-chat.cpp), for these formats. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memmem */
#endif
#include "llm_chat.h"

#include <string.h>

static const struct {
  const char *name;
  llm_chat_format_t f;
} formats[] = {
    {"llama3", LLM_CHAT_LLAMA3},
    {"chatml", LLM_CHAT_CHATML},
    {"llama2", LLM_CHAT_LLAMA2},
    {"llama2-sys", LLM_CHAT_LLAMA2_SYS},
    {"mistral-v1", LLM_CHAT_MISTRAL_V1},
    {"mistral-v3", LLM_CHAT_MISTRAL_V3},
    {"mistral-v3-tekken", LLM_CHAT_MISTRAL_V3_TEKKEN},
    {"mistral-v7", LLM_CHAT_MISTRAL_V7},
};

llm_chat_format_t llm_chat_format_named(const char *name) {
  for (size_t i = 0; i < sizeof formats / sizeof formats[0]; ++i)
    if (strcmp(name, formats[i].name) == 0)
      return formats[i].f;
  return LLM_CHAT_UNKNOWN;
}

const char *llm_chat_format_name(llm_chat_format_t f) {
  for (size_t i = 0; i < sizeof formats / sizeof formats[0]; ++i)
    if (formats[i].f == f)
      return formats[i].name;
  return "unknown";
}

const char *llm_chat_format_list(void) {
  return "llama3, chatml, llama2, llama2-sys, mistral-v1, mistral-v3, mistral-v3-tekken, "
         "mistral-v7";
}

/* Whether s[0 .. n) holds the NUL-terminated needle. */
static int has(const char *s, size_t n, const char *needle) {
  return memmem(s, n, needle, strlen(needle)) != NULL;
}

llm_chat_format_t llm_chat_detect(const char *t, size_t n) {
  for (size_t i = 0; i < sizeof formats / sizeof formats[0]; ++i)
    if (n == strlen(formats[i].name) && memcmp(t, formats[i].name, n) == 0)
      return formats[i].f;
  if (has(t, n, "<|im_start|>"))
    return has(t, n, "<|im_sep|>") ? LLM_CHAT_UNKNOWN
                                   : LLM_CHAT_CHATML; /* Phi-4's: not */
  if ((n >= 7 && memcmp(t, "mistral", 7) == 0) || has(t, n, "[INST]")) {
    if (has(t, n, "[SYSTEM_PROMPT]"))
      return LLM_CHAT_MISTRAL_V7;
    if (has(t, n, "' [INST] ' + system_message") || has(t, n, "[AVAILABLE_TOOLS]"))
      return has(t, n, " [INST]")      ? LLM_CHAT_MISTRAL_V1
             : has(t, n, "\"[INST]\"") ? LLM_CHAT_MISTRAL_V3_TEKKEN
                                       : LLM_CHAT_MISTRAL_V3;
    /* Llama 2's; its variants that put BOS inside the history or strip the
     * messages are not this code's */
    if (has(t, n, "bos_token + '[INST]") || has(t, n, "content.strip()"))
      return LLM_CHAT_UNKNOWN;
    return has(t, n, "<<SYS>>") ? LLM_CHAT_LLAMA2_SYS : LLM_CHAT_LLAMA2;
  }
  if (has(t, n, "<|start_header_id|>") && has(t, n, "<|end_header_id|>"))
    return LLM_CHAT_LLAMA3;
  return LLM_CHAT_UNKNOWN;
}

/* The text written so far: out[0 .. cap), its whole length in len. */
typedef struct text {
  char *out;
  size_t cap, len;
} text_t;

static void put_n(text_t *t, const char *s, size_t n) {
  for (size_t i = 0; i < n; ++i, ++t->len)
    if (t->len + 1 < t->cap)
      t->out[t->len] = s[i];
}

static void put(text_t *t, const char *s) {
  put_n(t, s, strlen(s));
}

static int white(char c) {
  return c == ' ' || (c >= '\t' && c <= '\r');
}

/* s without its leading and trailing white space. */
static void put_trimmed(text_t *t, const char *s) {
  size_t n = strlen(s);
  while (n > 0 && white(*s))
    s++, n--;
  while (n > 0 && white(s[n - 1]))
    n--;
  put_n(t, s, n);
}

size_t llm_chat_apply(llm_chat_format_t f, const llm_chat_msg_t *msgs, size_t n,
                      int add_assistant, char *out, size_t cap) {
  text_t t = {out, cap, 0};
  if (f == LLM_CHAT_UNKNOWN)
    return 0;
  int in_turn = 0;
  if (f == LLM_CHAT_LLAMA2 || f == LLM_CHAT_LLAMA2_SYS) {
    put(&t, "[INST] ");
    in_turn = 1;
  }
  for (size_t i = 0; i < n; ++i) {
    const char *role = msgs[i].role, *c = msgs[i].content;
    const int system = strcmp(role, "system") == 0, user = strcmp(role, "user") == 0;
    switch (f) {
    case LLM_CHAT_LLAMA3:
      put(&t, "<|start_header_id|>");
      put(&t, role);
      put(&t, "<|end_header_id|>\n\n");
      put_trimmed(&t, c);
      put(&t, "<|eot_id|>");
      break;
    case LLM_CHAT_CHATML:
      put(&t, "<|im_start|>");
      put(&t, role);
      put(&t, "\n");
      put(&t, c);
      put(&t, "<|im_end|>\n");
      break;
    case LLM_CHAT_LLAMA2:
    case LLM_CHAT_LLAMA2_SYS:
      if (!in_turn)
        put(&t, "[INST] ");
      in_turn = 1;
      if (system && f == LLM_CHAT_LLAMA2_SYS) {
        put(&t, "<<SYS>>\n");
        put(&t, c);
        put(&t, "\n<</SYS>>\n\n");
      } else if (system) {
        put(&t, c);
        put(&t, "\n");
      } else if (user) {
        put(&t, c);
        put(&t, " [/INST]");
      } else {
        put(&t, c);
        put(&t, "</s>");
        in_turn = 0;
      }
      break;
    case LLM_CHAT_MISTRAL_V1:
    case LLM_CHAT_MISTRAL_V3:
    case LLM_CHAT_MISTRAL_V3_TEKKEN: {
      const char *lead = f == LLM_CHAT_MISTRAL_V1 ? " " : "";
      const char *trail = f == LLM_CHAT_MISTRAL_V3_TEKKEN ? "" : " ";
      if (!in_turn) {
        put(&t, lead);
        put(&t, "[INST]");
        put(&t, trail);
        in_turn = 1;
      }
      if (system) {
        put(&t, c);
        put(&t, "\n\n");
      } else if (user) {
        put(&t, c);
        put(&t, lead);
        put(&t, "[/INST]");
      } else {
        put(&t, trail);
        if (f == LLM_CHAT_MISTRAL_V3)
          put_trimmed(&t, c);
        else
          put(&t, c);
        put(&t, "</s>");
        in_turn = 0;
      }
      break;
    }
    case LLM_CHAT_MISTRAL_V7:
      if (system) {
        put(&t, "[SYSTEM_PROMPT] ");
        put(&t, c);
        put(&t, "[/SYSTEM_PROMPT]");
      } else if (user) {
        put(&t, "[INST] ");
        put(&t, c);
        put(&t, "[/INST]");
      } else {
        put(&t, " ");
        put(&t, c);
        put(&t, "</s>");
      }
      break;
    case LLM_CHAT_UNKNOWN:
      break;
    }
  }
  if (add_assistant && f == LLM_CHAT_LLAMA3)
    put(&t, "<|start_header_id|>assistant<|end_header_id|>\n\n");
  else if (add_assistant && f == LLM_CHAT_CHATML)
    put(&t, "<|im_start|>assistant\n");
  if (cap > 0)
    out[t.len < cap ? t.len : cap - 1] = 0;
  return t.len;
}
