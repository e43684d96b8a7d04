/* test_chat.c - examples/llm's chat formats (llm_chat.h): a six-message
 * conversation in each format, the text llama.cpp's
 * llama_chat_apply_template writes for it (its test-chat-template's
 * conversation); formats told from template text (snippets of the real
 * templates) and names; an unknown template is unknown; a short buffer gets
 * a cut, NUL-terminated text and the whole length. */
#include <stdio.h>
#include <string.h>

#include "llm_chat.h"
#include "test.h"

static const llm_chat_msg_t chat[] = {
    {"system", "You are a helpful assistant"},
    {"user", "Hello"},
    {"assistant", "Hi there"},
    {"user", "Who are you"},
    {"assistant", "   I am an assistant   "},
    {"user", "Another question"},
};

static void test_apply(void) {
  static const struct {
    const char *name, *want;
  } cases[] = {
      {"llama3",
       "<|start_header_id|>system<|end_header_id|>\n\nYou are a helpful "
       "assistant<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nHello<|eot_"
       "id|><|start_header_id|>assistant<|end_header_id|>\n\nHi "
       "there<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nWho are "
       "you<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\nI am an "
       "assistant<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nAnother "
       "question<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n"},
      {"chatml", "<|im_start|>system\nYou are a helpful "
                 "assistant<|im_end|>\n<|im_start|>user\nHello<|im_end|>\n<|im_start|>"
                 "assistant\nHi there<|im_end|>\n<|im_start|>user\nWho are "
                 "you<|im_end|>\n<|im_start|>assistant\n   I am an assistant   "
                 "<|im_end|>\n<|im_start|>user\nAnother "
                 "question<|im_end|>\n<|im_start|>assistant\n"},
      {"llama2",
       "[INST] You are a helpful assistant\nHello [/INST]Hi there</s>[INST] Who "
       "are you [/INST]   I am an assistant   </s>[INST] Another question [/INST]"},
      {"llama2-sys",
       "[INST] <<SYS>>\nYou are a helpful assistant\n<</SYS>>\n\nHello "
       "[/INST]Hi there</s>[INST] Who are you [/INST]   I am an assistant   "
       "</s>[INST] Another question [/INST]"},
      {"mistral-v1",
       " [INST] You are a helpful assistant\n\nHello [/INST] Hi there</s> "
       "[INST] Who are you [/INST]    I am an assistant   </s> [INST] Another "
       "question [/INST]"},
      {"mistral-v3", "[INST] You are a helpful assistant\n\nHello[/INST] Hi "
                     "there</s>[INST] Who are you[/INST] I am an assistant</s>[INST] "
                     "Another question[/INST]"},
      {"mistral-v3-tekken", "[INST]You are a helpful assistant\n\nHello[/INST]Hi "
                            "there</s>[INST]Who are you[/INST]   I am an assistant   "
                            "</s>[INST]Another question[/INST]"},
      {"mistral-v7", "[SYSTEM_PROMPT] You are a helpful assistant[/SYSTEM_PROMPT][INST] "
                     "Hello[/INST] Hi there</s>[INST] Who are you[/INST]    I am an "
                     "assistant   </s>[INST] Another question[/INST]"},
  };
  char out[2048];
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    const llm_chat_format_t f = llm_chat_format_named(cases[i].name);
    CHECK(f != LLM_CHAT_UNKNOWN);
    CHECK_STR(llm_chat_format_name(f), cases[i].name);
    const size_t n = llm_chat_apply(f, chat, 6, 1, out, sizeof out);
    CHECK_EQ(n, strlen(cases[i].want));
    CHECK_STR(out, cases[i].want);
  }
  /* a short buffer: cut, NUL-terminated, the whole length returned */
  char small[8];
  const size_t n = llm_chat_apply(LLM_CHAT_CHATML, chat, 6, 1, small, sizeof small);
  CHECK_EQ(n, strlen(cases[1].want));
  CHECK_STR(small, "<|im_st");
  CHECK_EQ(llm_chat_apply(LLM_CHAT_UNKNOWN, chat, 6, 1, out, sizeof out), 0);
  CHECK_EQ(llm_chat_format_named("vicuna"), LLM_CHAT_UNKNOWN);
}

static void test_detect(void) {
  static const struct {
    const char *tmpl;
    llm_chat_format_t f;
  } cases[] = {
      /* Llama 3's */
      {"{% set loop_messages = messages %}{% for message in loop_messages %}{% set "
       "content "
       "= '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n'+ "
       "message['content'] | trim + '<|eot_id|>' %}",
       LLM_CHAT_LLAMA3},
      /* ChatML (Qwen's, OpenHermes') */
      {"{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + "
       "message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}",
       LLM_CHAT_CHATML},
      /* Phi-4's ChatML with <|im_sep|> is not ChatML */
      {"{{'<|im_start|>' + message['role'] + '<|im_sep|>'}}", LLM_CHAT_UNKNOWN},
      /* Llama 2's, with a system message; Mistral's old one without */
      {"{{ bos_token + '[INST] <<SYS>>\\n' + system_message + '\\n<</SYS>>\\n\\n' }}",
       LLM_CHAT_UNKNOWN}, /* BOS inside the history: a variant not written here */
      {"{% if message['role'] == 'system' %}{{ '<<SYS>>\\n' + content }}{% endif %}{{ "
       "'[INST] ' + content + ' [/INST]' }}",
       LLM_CHAT_LLAMA2_SYS},
      {"{{ bos_token }}{% for message in messages %}{{ '[INST] ' + message['content'] + "
       "' "
       "[/INST]' }}{% endfor %}",
       LLM_CHAT_LLAMA2},
      /* Mistral's v1, v3, v3-tekken, v7 */
      {"{{- ' [INST] ' + system_message + '\\n\\n' + message['content'] + ' [/INST]' }}",
       LLM_CHAT_MISTRAL_V1},
      {"{{- \"[AVAILABLE_TOOLS] [\" }}{{- \"[INST] \" + message[\"content\"] + "
       "\"[/INST]\" }}",
       LLM_CHAT_MISTRAL_V3},
      {"{{- \"[AVAILABLE_TOOLS][\" }}{{- \"[INST]\" + message[\"content\"] + \"[/INST]\" "
       "}}",
       LLM_CHAT_MISTRAL_V3_TEKKEN},
      {"{{- '[SYSTEM_PROMPT] ' + system_message + '[/SYSTEM_PROMPT]' }}{{ '[INST] ' }}",
       LLM_CHAT_MISTRAL_V7},
      /* names */
      {"llama3", LLM_CHAT_LLAMA3},
      {"mistral-v7", LLM_CHAT_MISTRAL_V7},
      /* others: Gemma's, Vicuna's */
      {"{{ '<start_of_turn>' + role + '\\n' + message['content'] | trim + "
       "'<end_of_turn>\\n' }}",
       LLM_CHAT_UNKNOWN},
      {"USER: {{ message }} ASSISTANT: ", LLM_CHAT_UNKNOWN},
      {"", LLM_CHAT_UNKNOWN},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    const llm_chat_format_t f = llm_chat_detect(cases[i].tmpl, strlen(cases[i].tmpl));
    if (f != cases[i].f)
      fprintf(stderr, "template %zu: %s, not %s\n", i, llm_chat_format_name(f),
              llm_chat_format_name(cases[i].f));
    CHECK_EQ(f, cases[i].f);
  }
}

int main(void) {
  test_apply();
  test_detect();
  return TEST_DONE();
}
