/* api.h - OpenAI's completions and chat completions as kgen-serve reads and
 * writes them: a request body (JSON, jansson's parser) checked field by
 * field into a scheduler request (kgs_sched.h), and the responses, whole or as
 * server-sent events' chunks. An error is an HTTP status, a message and the
 * field it is about, for OpenAI's error object. No I/O. */
#ifndef KGS_API_H
#define KGS_API_H

#include <stddef.h>
#include <stdint.h>

#include "llm_chat.h"
#include "llm_tokenizer.h"
#include "kgs_sched.h"
#include "text.h"

/* What the server knows for parsing. */
typedef struct api_model {
  const char *name; /* the model's id in responses and /v1/models */
  const llm_tokenizer_t *tok;
  llm_chat_format_t chat; /* LLM_CHAT_UNKNOWN: no chat template */
  uint32_t context, vocab;
} api_model_t;

typedef struct api_req {
  int chat, stream, include_usage;
  int logprobs; /* -1: none; else the best ones per token (chat: top_logprobs) */
  int32_t *prompt;
  uint32_t n_prompt;
  char *stop[KGS_MAX_STOPS];
  size_t stop_len[KGS_MAX_STOPS];
  kgs_params_t params; /* ready for kgs_sched_submit (points into the above) */
} api_req_t;

typedef struct api_error {
  int status;        /* 400, 404, 413, 429, 500, 503 */
  char message[320]; /* one line */
  const char *param; /* the field, or NULL */
  const char *code;  /* OpenAI's code, or NULL */
} api_error_t;

/* Parses body[0 .. n) of a completions (chat = 0) or chat completions
 * request: 0, or -1 with *e set (a 400). */
int api_parse(const api_model_t *m, int chat, const char *body, size_t n, api_req_t *out,
              api_error_t *e);
void api_req_free(api_req_t *r);

/* Sets *e and returns -1 (for the HTTP layer's own errors). */
int api_fail(api_error_t *e, int status, const char *param, const char *code,
             const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* {"error": {...}} as text (malloc'd; NULL when out of memory). */
char *api_error_json(const api_error_t *e);

/* A response's fixed parts. */
typedef struct api_head {
  const api_model_t *model;
  int chat;
  char id[40];
  long long created;
} api_head_t;

/* The logprobs of tokens lp[0 .. n) for a choice (NULL when none asked). */
typedef struct api_lp {
  const kgs_logprob_t *lp;
  uint32_t n;
  int top; /* how many best each */
} api_lp_t;

/* A whole (non-streaming) response with text[0 .. n). */
char *api_response_json(const api_head_t *h, const char *text, size_t n,
                        const api_lp_t *lp, const kgs_progress_t *p);
/* One streaming chunk: delta text (role: the chat's first chunk), finish
 * (KGS_RUNNING: none), usage (p, or NULL: none); "data: ...\n\n" appended
 * to out. 0, or -1 when out of memory. */
int api_chunk_sse(const api_head_t *h, int role, const char *text, size_t n,
                  const api_lp_t *lp, kgs_finish_t finish, const kgs_progress_t *usage,
                  kgs_buf_t *out);
/* OpenAI's name of a finish. */
const char *api_finish_name(kgs_finish_t f);

#endif /* KGS_API_H */
