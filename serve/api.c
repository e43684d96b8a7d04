/* api.c - OpenAI's request and response bodies (api.h), through jansson:
 * every field kgen-serve knows is checked for its type and range; fields it
 * does not know are ignored, as OpenAI-compatible servers do; options it
 * cannot honour (n > 1, penalties, logit_bias, echo, tools) are refused by
 * name rather than silently dropped. */
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api.h"

int api_fail(api_error_t *e, int status, const char *param, const char *code,
             const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  e->status = status;
  e->param = param;
  e->code = code;
  vsnprintf(e->message, sizeof e->message, fmt, ap);
  va_end(ap);
  return -1;
}

static const char *error_type(int status) {
  switch (status) {
  case 429:
    return "rate_limit_error";
  case 500:
  case 503:
    return "server_error";
  case 404:
    return "not_found_error";
  default:
    return "invalid_request_error";
  }
}

char *api_error_json(const api_error_t *e) {
  json_t *o = json_pack("{s:{s:s,s:s,s:s?,s:s?}}", "error", "message", e->message, "type",
                        error_type(e->status), "param", e->param, "code", e->code);
  char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
  json_decref(o);
  return s;
}

const char *api_finish_name(kgs_finish_t f) {
  switch (f) {
  case KGS_FINISH_STOP:
    return "stop";
  case KGS_FINISH_LENGTH:
    return "length";
  case KGS_FINISH_CANCELLED:
    return "cancelled";
  case KGS_FINISH_ERROR:
    return "error";
  default:
    return NULL;
  }
}

/* ---- reading a request --------------------------------------------------- */

/* A number field in [lo, hi] into *out (absent or null: unchanged). */
static int get_number(json_t *o, const char *k, double lo, double hi, float *out,
                      api_error_t *e) {
  json_t *v = json_object_get(o, k);
  if (v == NULL || json_is_null(v))
    return 0;
  if (!json_is_number(v))
    return api_fail(e, 400, k, "invalid_type", "%s must be a number", k);
  const double d = json_number_value(v);
  if (!(d >= lo && d <= hi))
    return api_fail(e, 400, k, "invalid_value", "%s must be from %g to %g, got %g", k, lo,
                    hi, d);
  *out = (float)d;
  return 0;
}

/* An integer field in [lo, hi] into *out (absent or null: unchanged). */
static int get_int(json_t *o, const char *k, long long lo, long long hi, long long *out,
                   api_error_t *e) {
  json_t *v = json_object_get(o, k);
  if (v == NULL || json_is_null(v))
    return 0;
  if (!json_is_integer(v))
    return api_fail(e, 400, k, "invalid_type", "%s must be an integer", k);
  const long long i = json_integer_value(v);
  if (i < lo || i > hi)
    return api_fail(e, 400, k, "invalid_value", "%s must be from %lld to %lld, got %lld",
                    k, lo, hi, i);
  *out = i;
  return 0;
}

static int get_bool(json_t *o, const char *k, int *out, api_error_t *e) {
  json_t *v = json_object_get(o, k);
  if (v == NULL || json_is_null(v))
    return 0;
  if (!json_is_boolean(v))
    return api_fail(e, 400, k, "invalid_type", "%s must be true or false", k);
  *out = json_is_true(v);
  return 0;
}

/* A field kgen-serve cannot honour must be absent, null or its neutral value. */
static int refuse_unless(json_t *o, const char *k, int neutral, api_error_t *e,
                         const char *why) {
  json_t *v = json_object_get(o, k);
  if (v == NULL || json_is_null(v) || neutral)
    return 0;
  return api_fail(e, 400, k, "unsupported_parameter", "%s: %s", k, why);
}

static int is_zero(json_t *o, const char *k) {
  json_t *v = json_object_get(o, k);
  return v != NULL && json_is_number(v) && json_number_value(v) == 0;
}

/* Text into req->prompt through the tokenizer. */
static int encode(const api_model_t *m, const char *text, size_t len, unsigned flags,
                  api_req_t *r, const char *param, api_error_t *e) {
  if (m->tok == NULL)
    return api_fail(e, 400, param, "invalid_value",
                    "the model file has no tokenizer: give the prompt as token ids");
  const size_t cap = len + 8; /* a token takes at least one byte, BOS and EOS more */
  if (cap > INT32_MAX / 2 || (r->prompt = malloc(sizeof(int32_t) * cap)) == NULL)
    return api_fail(e, 400, param, "invalid_value", "the prompt is too long");
  const int n = llm_tokenizer_encode(m->tok, text, len, flags, r->prompt, (int)cap);
  if (n < 0)
    return api_fail(e, 400, param, "invalid_value",
                    "the tokenizer cannot encode the prompt");
  r->n_prompt = (uint32_t)n;
  return 0;
}

/* Token ids from a JSON array. */
static int ids_of(const api_model_t *m, json_t *a, api_req_t *r, api_error_t *e) {
  const size_t n = json_array_size(a);
  if (n == 0 || n > m->context)
    return api_fail(e, 400, "prompt", "context_length_exceeded",
                    "a prompt of token ids holds 1 to %u of them, got %zu", m->context,
                    n);
  if ((r->prompt = malloc(sizeof(int32_t) * n)) == NULL)
    return api_fail(e, 500, NULL, NULL, "out of memory");
  for (size_t i = 0; i < n; ++i) {
    json_t *v = json_array_get(a, i);
    if (!json_is_integer(v) || json_integer_value(v) < 0 ||
        json_integer_value(v) >= m->vocab)
      return api_fail(e, 400, "prompt", "invalid_value",
                      "prompt[%zu] must be a token id from 0 to %u", i, m->vocab - 1);
    r->prompt[i] = (int32_t)json_integer_value(v);
  }
  r->n_prompt = (uint32_t)n;
  return 0;
}

/* completions' prompt: a string, or token ids, or a list of one of them. */
static int read_prompt(const api_model_t *m, json_t *o, api_req_t *r, api_error_t *e) {
  json_t *p = json_object_get(o, "prompt");
  if (p == NULL)
    return api_fail(e, 400, "prompt", "missing_required_parameter", "prompt is required");
  if (json_is_array(p) && json_array_size(p) == 1 &&
      (json_is_string(json_array_get(p, 0)) || json_is_array(json_array_get(p, 0))))
    p = json_array_get(p, 0);
  else if (json_is_array(p) && json_array_size(p) > 1 &&
           !json_is_integer(json_array_get(p, 0)))
    return api_fail(e, 400, "prompt", "invalid_value",
                    "one prompt a request (a list of several is a batch, which "
                    "kgen-serve does not take; send them as separate requests)");
  if (json_is_string(p))
    return encode(m, json_string_value(p), json_string_length(p), LLM_ENCODE_BOS, r,
                  "prompt", e);
  if (json_is_array(p))
    return ids_of(m, p, r, e);
  return api_fail(e, 400, "prompt", "invalid_type",
                  "prompt must be a string or an array of token ids");
}

/* A message's content: a string, or an array of text parts (joined). */
static int content_of(json_t *c, size_t i, kgs_buf_t *out, api_error_t *e) {
  if (json_is_string(c))
    return kgs_buf_put(out, json_string_value(c), json_string_length(c)) == 0
               ? 0
               : api_fail(e, 500, NULL, NULL, "out of memory");
  if (!json_is_array(c))
    return api_fail(e, 400, "messages", "invalid_type",
                    "messages[%zu].content must be a string or an array of text parts",
                    i);
  for (size_t k = 0; k < json_array_size(c); ++k) {
    json_t *part = json_array_get(c, k);
    json_t *type = json_object_get(part, "type"), *text = json_object_get(part, "text");
    if (!json_is_string(type) || strcmp(json_string_value(type), "text") != 0 ||
        !json_is_string(text))
      return api_fail(e, 400, "messages", "invalid_value",
                      "messages[%zu].content[%zu] must be {\"type\": \"text\", \"text\": "
                      "...} (kgen-serve's models read text)",
                      i, k);
    if (kgs_buf_put(out, json_string_value(text), json_string_length(text)) != 0)
      return api_fail(e, 500, NULL, NULL, "out of memory");
  }
  return 0;
}

/* chat's messages, in the model's chat format, into the prompt. */
static int read_messages(const api_model_t *m, json_t *o, api_req_t *r, api_error_t *e) {
  json_t *msgs = json_object_get(o, "messages");
  if (!json_is_array(msgs) || json_array_size(msgs) == 0)
    return api_fail(e, 400, "messages", "invalid_type",
                    "messages must be a non-empty array of {role, content}");
  if (m->chat == LLM_CHAT_UNKNOWN)
    return api_fail(e, 400, "messages", "unsupported_value",
                    "the model file has no chat template kgen-serve knows; start the "
                    "server with --chat-format (%s)",
                    llm_chat_format_list());
  const size_t n = json_array_size(msgs);
  llm_chat_msg_t *cm = calloc(n, sizeof *cm);
  kgs_buf_t *texts = calloc(n, sizeof *texts);
  int rc = -1;
  char *prompt = NULL;
  if (cm == NULL || texts == NULL) {
    api_fail(e, 500, NULL, NULL, "out of memory");
    goto done;
  }
  for (size_t i = 0; i < n; ++i) {
    json_t *msg = json_array_get(msgs, i), *role = json_object_get(msg, "role");
    const char *rs = json_is_string(role) ? json_string_value(role) : "";
    if (strcmp(rs, "developer") == 0)
      rs = "system";
    if (strcmp(rs, "system") != 0 && strcmp(rs, "user") != 0 &&
        strcmp(rs, "assistant") != 0) {
      api_fail(e, 400, "messages", "invalid_value",
               "messages[%zu].role must be system, developer, user or assistant", i);
      goto done;
    }
    if (content_of(json_object_get(msg, "content"), i, &texts[i], e) != 0 ||
        kgs_buf_put(&texts[i], "", 0) != 0)
      goto done;
    if (memchr(texts[i].p, 0, texts[i].n) != NULL) {
      api_fail(e, 400, "messages", "invalid_value", "messages[%zu] holds a NUL", i);
      goto done;
    }
    cm[i] = (llm_chat_msg_t){rs, texts[i].p};
  }
  const size_t len = llm_chat_apply(m->chat, cm, n, 1, NULL, 0);
  if ((prompt = malloc(len + 1)) == NULL) {
    api_fail(e, 500, NULL, NULL, "out of memory");
    goto done;
  }
  llm_chat_apply(m->chat, cm, n, 1, prompt, len + 1);
  rc = encode(m, prompt, len, LLM_ENCODE_BOS | LLM_ENCODE_SPECIAL, r, "messages", e);
done:
  for (size_t i = 0; texts != NULL && i < n; ++i)
    kgs_buf_free(&texts[i]);
  free(texts);
  free(cm);
  free(prompt);
  return rc;
}

static int read_stop(json_t *o, api_req_t *r, api_error_t *e) {
  json_t *v = json_object_get(o, "stop");
  if (v == NULL || json_is_null(v))
    return 0;
  json_t *one[1] = {v};
  json_t **items = one;
  size_t n = 1;
  if (json_is_array(v)) {
    n = json_array_size(v);
    if (n > KGS_MAX_STOPS)
      return api_fail(e, 400, "stop", "invalid_value", "stop holds at most %d strings",
                      KGS_MAX_STOPS);
    items = NULL;
  }
  for (size_t i = 0; i < n; ++i) {
    json_t *s = items ? items[i] : json_array_get(v, i);
    if (!json_is_string(s) || json_string_length(s) == 0 ||
        json_string_length(s) > KGS_MAX_STOP_LEN)
      return api_fail(e, 400, "stop", "invalid_value",
                      "stop must be a string or an array of up to %d strings of 1 to %d "
                      "bytes",
                      KGS_MAX_STOPS, KGS_MAX_STOP_LEN);
    r->stop_len[i] = json_string_length(s);
    if ((r->stop[i] = malloc(r->stop_len[i] + 1)) == NULL)
      return api_fail(e, 500, NULL, NULL, "out of memory");
    memcpy(r->stop[i], json_string_value(s), r->stop_len[i] + 1);
    r->params.n_stop = (int)i + 1;
  }
  return 0;
}

/* The sampling fields and the rest of what both endpoints take. */
static int read_options(const api_model_t *m, json_t *o, api_req_t *r, api_error_t *e) {
  kgs_params_t *p = &r->params;
  float temperature = 1, top_p = 1, min_p = 0;
  long long top_k = 0, seed = 0, n = 1, best_of = 1, max_tokens = -1, logprobs = -1;
  if (get_number(o, "temperature", 0, 2, &temperature, e) ||
      get_number(o, "top_p", 0, 1, &top_p, e) ||
      get_number(o, "min_p", 0, 1, &min_p, e) ||
      get_int(o, "top_k", 0, m->vocab, &top_k, e) ||
      get_int(o, "seed", INT64_MIN, INT64_MAX, &seed, e) ||
      get_int(o, "n", 1, INT32_MAX, &n, e) ||
      get_int(o, "best_of", 1, INT32_MAX, &best_of, e) ||
      get_int(o, "max_tokens", 1, m->context, &max_tokens, e) ||
      get_int(o, "max_completion_tokens", 1, m->context, &max_tokens, e) ||
      get_bool(o, "stream", &r->stream, e) ||
      get_bool(o, "ignore_eos", &p->ignore_eos, e) || read_stop(o, r, e))
    return -1;
  if (n != 1 || best_of != 1)
    return api_fail(
        e, 400, n != 1 ? "n" : "best_of", "unsupported_value",
        "%s = %lld: kgen-serve answers one choice a request (n = 1, best_of = "
        "1); send several requests instead",
        n != 1 ? "n" : "best_of", n != 1 ? n : best_of);
  if (top_p == 0)
    top_p = 1e-6f; /* the most likely token only */
  json_t *so = json_object_get(o, "stream_options");
  if (so != NULL && !json_is_null(so) &&
      (!json_is_object(so) || get_bool(so, "include_usage", &r->include_usage, e)))
    return e->status ? -1
                     : api_fail(e, 400, "stream_options", "invalid_type",
                                "stream_options must be an object");
  if (r->chat) {
    int lp = 0;
    if (get_bool(o, "logprobs", &lp, e) ||
        get_int(o, "top_logprobs", 0, KGS_MAX_TOP, &logprobs, e))
      return -1;
    if (!lp && logprobs >= 0)
      return api_fail(e, 400, "top_logprobs", "invalid_value",
                      "top_logprobs needs logprobs: true");
    logprobs = lp ? (logprobs < 0 ? 0 : logprobs) : -1;
  } else {
    if (get_int(o, "logprobs", 0, 5, &logprobs, e))
      return -1;
  }
  const char *why = "kgen-serve does not take it";
  json_t *lb = json_object_get(o, "logit_bias");
  json_t *echo = json_object_get(o, "echo"), *tools = json_object_get(o, "tools");
  json_t *rf = json_object_get(o, "response_format");
  json_t *rft = json_is_object(rf) ? json_object_get(rf, "type") : NULL;
  if (refuse_unless(o, "presence_penalty", is_zero(o, "presence_penalty"), e, why) ||
      refuse_unless(o, "frequency_penalty", is_zero(o, "frequency_penalty"), e, why) ||
      refuse_unless(o, "logit_bias", json_is_object(lb) && json_object_size(lb) == 0, e,
                    why) ||
      refuse_unless(o, "echo", json_is_false(echo), e, why) ||
      refuse_unless(o, "suffix", 0, e, why) ||
      refuse_unless(o, "tools", json_is_array(tools) && json_array_size(tools) == 0, e,
                    why) ||
      refuse_unless(o, "functions", 0, e, why) ||
      refuse_unless(o, "response_format",
                    json_is_string(rft) && strcmp(json_string_value(rft), "text") == 0, e,
                    "only {\"type\": \"text\"}"))
    return -1;
  json_t *model = json_object_get(o, "model");
  if (model != NULL && !json_is_string(model))
    return api_fail(e, 400, "model", "invalid_type", "model must be a string");
  if (max_tokens < 0) /* OpenAI's defaults: 16 for completions, the rest for chat */
    max_tokens = r->chat ? (long long)m->context - r->n_prompt : 16;
  if (r->n_prompt >= m->context || r->n_prompt + max_tokens > m->context)
    return api_fail(e, 400,
                    r->n_prompt >= m->context ? (r->chat ? "messages" : "prompt")
                                              : "max_tokens",
                    "context_length_exceeded",
                    "this model's context is %u tokens; the prompt has %u and max_tokens "
                    "asks for %lld more",
                    m->context, r->n_prompt, r->n_prompt < m->context ? max_tokens : 1);
  static unsigned long long counter;
  json_t *sv = json_object_get(o, "seed");
  if (sv == NULL || json_is_null(sv)) /* none given: each request its own */
    seed = (long long)(time(NULL) * 1000003ull + __atomic_add_fetch(&counter, 1, 0));
  p->prompt = r->prompt;
  p->n_prompt = r->n_prompt;
  p->max_tokens = (uint32_t)max_tokens;
  p->sampling = (kgrt_sampling_t){.temperature = temperature,
                                  .top_p = top_p,
                                  .min_p = min_p,
                                  .top_k = (int32_t)top_k,
                                  .seed = (int32_t)(seed ^ (seed >> 32))};
  p->stop = (const char *const *)r->stop;
  p->stop_len = r->stop_len;
  p->logprobs = (int)logprobs;
  r->logprobs = (int)logprobs;
  return 0;
}

int api_parse(const api_model_t *m, int chat, const char *body, size_t n, api_req_t *out,
              api_error_t *e) {
  memset(out, 0, sizeof *out);
  e->status = 0;
  out->chat = chat;
  out->logprobs = -1;
  json_error_t je;
  json_t *o = json_loadb(body, n, JSON_REJECT_DUPLICATES, &je);
  if (o == NULL)
    return api_fail(e, 400, NULL, "invalid_json", "the body is not JSON: %s at line %d",
                    je.text, je.line);
  int rc = -1;
  if (!json_is_object(o))
    api_fail(e, 400, NULL, "invalid_json", "the body must be a JSON object");
  else if ((chat ? read_messages(m, o, out, e) : read_prompt(m, o, out, e)) == 0)
    rc = read_options(m, o, out, e);
  json_decref(o);
  if (rc != 0)
    api_req_free(out);
  return rc;
}

void api_req_free(api_req_t *r) {
  free(r->prompt);
  for (int i = 0; i < KGS_MAX_STOPS; ++i)
    free(r->stop[i]);
  memset(r, 0, sizeof *r);
}

/* ---- writing responses --------------------------------------------------- */

/* A token's piece for logprobs; "<id>" where the model has no tokenizer or
 * the piece is part of a character (jansson takes only valid UTF-8). */
static json_t *token_text(const api_model_t *m, int32_t id) {
  json_t *s = NULL;
  if (m->tok != NULL) {
    char piece[256];
    size_t n = llm_tokenizer_piece(m->tok, id, 1, piece, sizeof piece);
    s = json_stringn(piece, n < sizeof piece ? n : sizeof piece - 1);
  }
  return s ? s : json_sprintf("<%d>", id);
}

/* chat's {"content": [{token, logprob, bytes, top_logprobs}]} */
static json_t *chat_logprobs(const api_model_t *m, const api_lp_t *lp) {
  json_t *content = json_array();
  for (uint32_t i = 0; i < lp->n; ++i) {
    const kgs_logprob_t *t = &lp->lp[i];
    json_t *top = json_array();
    for (int k = 0; k < t->n_top && k < lp->top; ++k)
      json_array_append_new(top, json_pack("{s:o,s:f,s:n}", "token",
                                           token_text(m, t->top_id[k]), "logprob",
                                           (double)t->top_logprob[k], "bytes"));
    json_array_append_new(
        content, json_pack("{s:o,s:f,s:n,s:o}", "token", token_text(m, t->id), "logprob",
                           (double)t->logprob, "bytes", "top_logprobs", top));
  }
  return json_pack("{s:o}", "content", content);
}

/* completions' {"tokens", "token_logprobs", "top_logprobs", "text_offset"} */
static json_t *text_logprobs(const api_model_t *m, const api_lp_t *lp) {
  json_t *toks = json_array(), *lps = json_array(), *tops = json_array();
  for (uint32_t i = 0; i < lp->n; ++i) {
    const kgs_logprob_t *t = &lp->lp[i];
    json_array_append_new(toks, token_text(m, t->id));
    json_array_append_new(lps, json_real(t->logprob));
    json_t *top = json_object();
    for (int k = 0; k < t->n_top && k < lp->top; ++k) {
      json_t *s = token_text(m, t->top_id[k]);
      json_object_set_new(top, json_string_value(s), json_real(t->top_logprob[k]));
      json_decref(s);
    }
    json_array_append_new(tops, top);
  }
  return json_pack("{s:o,s:o,s:o}", "tokens", toks, "token_logprobs", lps, "top_logprobs",
                   tops);
}

static json_t *logprobs_json(const api_head_t *h, const api_lp_t *lp) {
  if (lp == NULL)
    return json_null();
  return h->chat ? chat_logprobs(h->model, lp) : text_logprobs(h->model, lp);
}

static json_t *usage_json(const kgs_progress_t *p) {
  return json_pack("{s:i,s:i,s:i,s:{s:i}}", "prompt_tokens", (int)p->prompt_tokens,
                   "completion_tokens", (int)p->tokens, "total_tokens",
                   (int)(p->prompt_tokens + p->tokens), "prompt_tokens_details",
                   "cached_tokens", (int)p->cached_tokens);
}

static json_t *finish_json(kgs_finish_t f) {
  const char *s = api_finish_name(f);
  return s ? json_string(s) : json_null();
}

char *api_response_json(const api_head_t *h, const char *text, size_t n,
                        const api_lp_t *lp, const kgs_progress_t *p) {
  json_t *choice;
  if (h->chat)
    choice = json_pack("{s:i,s:{s:s,s:s%},s:o,s:o}", "index", 0, "message", "role",
                       "assistant", "content", text, n, "logprobs", logprobs_json(h, lp),
                       "finish_reason", finish_json(p->finish));
  else
    choice = json_pack("{s:i,s:s%,s:o,s:o}", "index", 0, "text", text, n, "logprobs",
                       logprobs_json(h, lp), "finish_reason", finish_json(p->finish));
  json_t *o =
      json_pack("{s:s,s:s,s:I,s:s,s:[o],s:o,s:s}", "id", h->id, "object",
                h->chat ? "chat.completion" : "text_completion", "created",
                (json_int_t)h->created, "model", h->model->name, "choices", choice,
                "usage", usage_json(p), "system_fingerprint", "kgen-serve");
  char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
  json_decref(o);
  return s;
}

int api_chunk_sse(const api_head_t *h, int role, const char *text, size_t n,
                  const api_lp_t *lp, kgs_finish_t finish, const kgs_progress_t *usage,
                  kgs_buf_t *out) {
  json_t *choices = json_array();
  if (usage == NULL) {
    json_t *choice;
    if (h->chat) {
      json_t *delta = json_object();
      if (role)
        json_object_set_new(delta, "role", json_string("assistant"));
      if (role || n > 0)
        json_object_set_new(delta, "content", json_stringn(text, n));
      choice = json_pack("{s:i,s:o,s:o,s:o}", "index", 0, "delta", delta, "logprobs",
                         logprobs_json(h, lp), "finish_reason", finish_json(finish));
    } else {
      choice = json_pack("{s:i,s:s%,s:o,s:o}", "index", 0, "text", text, n, "logprobs",
                         logprobs_json(h, lp), "finish_reason", finish_json(finish));
    }
    json_array_append_new(choices, choice);
  }
  json_t *o = json_pack("{s:s,s:s,s:I,s:s,s:o,s:s}", "id", h->id, "object",
                        h->chat ? "chat.completion.chunk" : "text_completion", "created",
                        (json_int_t)h->created, "model", h->model->name, "choices",
                        choices, "system_fingerprint", "kgen-serve");
  if (o != NULL && usage != NULL)
    json_object_set_new(o, "usage", usage_json(usage));
  char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
  json_decref(o);
  if (s == NULL)
    return -1;
  const int rc = kgs_buf_put(out, "data: ", 6) || kgs_buf_put(out, s, strlen(s)) ||
                 kgs_buf_put(out, "\n\n", 2);
  free(s);
  return rc ? -1 : 0;
}
