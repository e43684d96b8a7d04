/* http.c - kgen-serve's HTTP side on libmicrohttpd (server.h): a thread a
 * connection; the routes /v1/completions, /v1/chat/completions,
 * /v1/models, /health, /metrics. A body is read up to the server's limit
 * (past it the rest is read and dropped, then 413), parsed (api.c) and
 * queued (kgs_sched.h). A non-streaming request waits in its connection's
 * thread for its end and is answered with its status; a streaming one is
 * answered 200 at once and its server-sent events are written as the
 * scheduler makes text. While waiting, the connection's socket is watched:
 * a client that hangs up has its request cancelled (its blocks freed at
 * the next step). Every error is OpenAI's error object. */
#include <arpa/inet.h>
#include <jansson.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "server.h"

static const int http_codes[SERVER_CODES] = {200, 400, 404, 405, 413, 429, 500, 503, 0};

enum { WAIT_MS = 50, DROP_MAX = 64 << 20 };

/* A connection's request body. */
typedef struct conn {
  kgs_buf_t body;
  size_t seen; /* bytes received, kept or not */
} conn_t;

/* A streaming response's state (the content reader's). */
typedef struct job {
  server_t *s;
  struct MHD_Connection *c;
  kgs_req_t *req;
  api_head_t head;
  int fd, stream, include_usage, lp_top, role_sent, ended;
  size_t have;      /* text bytes taken from the request */
  uint32_t lp_have; /* logprob entries taken */
  kgs_buf_t out;    /* bytes for MHD */
  size_t out_off;
  kgs_buf_t text; /* the whole text (non-streaming) */
  kgs_logprob_t *lp;
  uint32_t n_lp;
} job_t;

static void count(server_t *s, int status) {
  int i = 0;
  while (http_codes[i] != 0 && http_codes[i] != status)
    ++i;
  pthread_mutex_lock(&s->mu);
  s->responses[i]++;
  pthread_mutex_unlock(&s->mu);
}

/* Tells clients how long an idle connection stays open, so that they do not
 * send a request on one the server is closing. */
static void keep_alive(const server_t *s, struct MHD_Response *r) {
  char v[32];
  snprintf(v, sizeof v, "timeout=%u", s->timeout_s);
  MHD_add_response_header(r, "Keep-Alive", v);
}

static enum MHD_Result reply(server_t *s, struct MHD_Connection *c, int status,
                             const char *type, char *body) {
  if (body == NULL) {
    status = 500;
    type = "application/json";
    body =
        strdup("{\"error\":{\"message\":\"out of memory\",\"type\":\"server_error\"}}");
    if (body == NULL)
      return MHD_NO;
  }
  struct MHD_Response *r =
      MHD_create_response_from_buffer(strlen(body), body, MHD_RESPMEM_MUST_FREE);
  if (r == NULL) {
    free(body);
    return MHD_NO;
  }
  MHD_add_response_header(r, "Content-Type", type);
  keep_alive(s, r);
  const enum MHD_Result ok = MHD_queue_response(c, (unsigned)status, r);
  MHD_destroy_response(r);
  count(s, status);
  return ok;
}

static enum MHD_Result reply_error(server_t *s, struct MHD_Connection *c,
                                   const api_error_t *e) {
  return reply(s, c, e->status, "application/json", api_error_json(e));
}

static enum MHD_Result fail(server_t *s, struct MHD_Connection *c, int status,
                            const char *code, const char *msg) {
  api_error_t e;
  api_fail(&e, status, NULL, code, "%s", msg);
  return reply_error(s, c, &e);
}

/* The connection's idle timeout (0: none). A request's connection has none
 * while the request waits and runs (its client is not idle: the server is),
 * and the server's again once the response is written. */
static void idle_timeout(struct MHD_Connection *c, unsigned seconds) {
  MHD_set_connection_option(c, MHD_CONNECTION_OPTION_TIMEOUT, seconds);
}

static int client_gone(int fd) {
  struct pollfd p = {.fd = fd, .events = POLLRDHUP};
  return fd >= 0 && poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR));
}

static void job_free(job_t *j) {
  if (j->req != NULL) {
    kgs_req_cancel(j->req); /* a no-op once it is done */
    kgs_req_release(j->req);
  }
  kgs_buf_free(&j->out);
  kgs_buf_free(&j->text);
  free(j->lp);
  free(j);
}

/* Waits a little for the request's next output: text into the job, new
 * logprobs into j->lp[0 .. *n_new) (streaming) or appended (whole). */
static kgs_progress_t take(job_t *j, char *tmp, size_t cap, size_t *n_text,
                           uint32_t *n_new) {
  kgs_progress_t p;
  *n_text = kgs_req_wait(j->req, j->have, j->lp_have, WAIT_MS, tmp, cap, &p);
  j->have += *n_text;
  *n_new = 0;
  if (j->lp_top >= 0 && p.logprobs > j->lp_have) {
    const uint32_t n = p.logprobs - j->lp_have;
    const uint32_t base = j->stream ? 0 : j->n_lp;
    kgs_logprob_t *lp = realloc(j->lp, sizeof *lp * (base + n));
    if (lp != NULL) {
      j->lp = lp;
      *n_new = kgs_req_logprobs(j->req, j->lp_have, n, lp + base);
      j->n_lp = base + *n_new;
    }
    j->lp_have += n;
  }
  return p;
}

static int is_done(const job_t *j, const kgs_progress_t *p) {
  return p->finish != KGS_RUNNING && j->have == p->text &&
         (j->lp_top < 0 || j->lp_have == p->logprobs);
}

/* The error of a request that ended without its text (cancelled, failed). */
static void end_error(const kgs_progress_t *p, api_error_t *e) {
  if (p->finish == KGS_FINISH_CANCELLED)
    api_fail(e, 503, NULL, "cancelled",
             "the request was cancelled: the server is "
             "shutting down");
  else
    api_fail(e, 500, NULL, "server_error", "the request failed: %s", p->error);
}

/* Formats the stream's next events into j->out (waiting a little). */
static void produce(job_t *j) {
  char tmp[4096];
  size_t n;
  uint32_t nl;
  const kgs_progress_t p = take(j, tmp, sizeof tmp, &n, &nl);
  const api_lp_t lp = {j->lp, nl, j->lp_top};
  const api_lp_t *lpp = j->lp_top >= 0 ? &lp : NULL;
  if (!j->role_sent && j->head.chat) {
    api_chunk_sse(&j->head, 1, "", 0, NULL, KGS_RUNNING, NULL, &j->out);
    j->role_sent = 1;
  }
  if (n > 0 || nl > 0)
    api_chunk_sse(&j->head, 0, tmp, n, lpp, KGS_RUNNING, NULL, &j->out);
  if (!is_done(j, &p))
    return;
  if (p.finish == KGS_FINISH_STOP || p.finish == KGS_FINISH_LENGTH) {
    api_chunk_sse(&j->head, 0, "", 0, NULL, p.finish, NULL, &j->out);
    if (j->include_usage)
      api_chunk_sse(&j->head, 0, NULL, 0, NULL, KGS_RUNNING, &p, &j->out);
  } else {
    api_error_t e;
    end_error(&p, &e);
    char *s = api_error_json(&e);
    if (s != NULL) {
      kgs_buf_put(&j->out, "data: ", 6);
      kgs_buf_put(&j->out, s, strlen(s));
      kgs_buf_put(&j->out, "\n\n", 2);
      free(s);
    }
  }
  kgs_buf_put(&j->out, "data: [DONE]\n\n", 14);
  j->ended = 1;
}

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max) {
  (void)pos;
  job_t *j = cls;
  for (;;) {
    if (j->out_off < j->out.n) {
      size_t n = j->out.n - j->out_off;
      n = n < max ? n : max;
      memcpy(buf, j->out.p + j->out_off, n);
      j->out_off += n;
      if (j->out_off == j->out.n)
        j->out.n = j->out_off = 0;
      return (ssize_t)n;
    }
    if (j->ended) {
      idle_timeout(j->c, j->s->timeout_s);
      return MHD_CONTENT_READER_END_OF_STREAM;
    }
    if (client_gone(j->fd)) {
      kgs_req_cancel(j->req);
      return MHD_CONTENT_READER_END_WITH_ERROR;
    }
    produce(j);
  }
}

static void stream_free(void *cls) {
  job_t *j = cls;
  server_t *s = j->s;
  job_free(j);
  pthread_mutex_lock(&s->mu);
  s->live--;
  pthread_mutex_unlock(&s->mu);
}

/* A non-streaming request: waits for its end in this thread. */
static enum MHD_Result answer_whole(job_t *j, struct MHD_Connection *c) {
  server_t *s = j->s;
  char tmp[4096];
  kgs_progress_t p;
  for (;;) {
    size_t n;
    uint32_t nl;
    p = take(j, tmp, sizeof tmp, &n, &nl);
    if (n > 0 && kgs_buf_put(&j->text, tmp, n) != 0) {
      job_free(j);
      return fail(s, c, 500, "server_error", "out of memory");
    }
    if (is_done(j, &p))
      break;
    if (client_gone(j->fd)) { /* nobody to answer: its blocks go now */
      job_free(j);
      return MHD_NO;
    }
  }
  idle_timeout(c, s->timeout_s);
  enum MHD_Result ok;
  if (p.finish == KGS_FINISH_STOP || p.finish == KGS_FINISH_LENGTH) {
    const api_lp_t lp = {j->lp, j->n_lp, j->lp_top};
    ok = reply(s, c, 200, "application/json",
               api_response_json(&j->head, j->text.p ? j->text.p : "", j->text.n,
                                 j->lp_top >= 0 ? &lp : NULL, &p));
  } else {
    api_error_t e;
    end_error(&p, &e);
    ok = reply_error(s, c, &e);
  }
  job_free(j);
  return ok;
}

static enum MHD_Result completions(server_t *s, struct MHD_Connection *c, int chat,
                                   const conn_t *k) {
  api_req_t a;
  api_error_t e;
  if (api_parse(&s->model, chat, k->body.p ? k->body.p : "", k->body.n, &a, &e) != 0)
    return reply_error(s, c, &e);
  kgrt_error_t err;
  kgs_req_t *req = NULL;
  const kgrt_status_t st = kgs_sched_submit(s->sched, &a.params, &req, &err);
  const int stream = a.stream, include_usage = a.include_usage, lp_top = a.logprobs;
  api_req_free(&a);
  if (st != KGRT_STATUS_OK) {
    const int status = st == KGRT_STATUS_UNAVAILABLE           ? 429
                       : st == KGRT_STATUS_FAILED_PRECONDITION ? 503
                       : st == KGRT_STATUS_OUT_OF_MEMORY       ? 500
                                                               : 400;
    api_fail(&e, status, NULL,
             status == 429   ? "rate_limit_exceeded"
             : status == 400 ? "invalid_value"
                             : "server_error",
             "%s", err.message);
    return reply_error(s, c, &e);
  }
  job_t *j = calloc(1, sizeof *j);
  if (j == NULL) {
    kgs_req_cancel(req);
    kgs_req_release(req);
    return fail(s, c, 500, "server_error", "out of memory");
  }
  const union MHD_ConnectionInfo *ci =
      MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
  pthread_mutex_lock(&s->mu);
  const uint64_t id = s->next_id++;
  pthread_mutex_unlock(&s->mu);
  *j = (job_t){
      .s = s,
      .req = req,
      .fd = ci ? ci->connect_fd : -1,
      .stream = stream,
      .include_usage = include_usage,
      .lp_top = lp_top,
      .head = {.model = &s->model, .chat = chat, .created = (long long)time(NULL)}};
  snprintf(j->head.id, sizeof j->head.id, "%s-%llu", chat ? "chatcmpl" : "cmpl",
           (unsigned long long)id);
  j->c = c;
  idle_timeout(c, 0);
  if (!stream)
    return answer_whole(j, c);
  struct MHD_Response *r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096,
                                                             stream_read, j, stream_free);
  if (r == NULL) {
    job_free(j);
    return fail(s, c, 500, "server_error", "out of memory");
  }
  pthread_mutex_lock(&s->mu);
  s->live++;
  pthread_mutex_unlock(&s->mu);
  MHD_add_response_header(r, "Content-Type", "text/event-stream");
  MHD_add_response_header(r, "Cache-Control", "no-cache");
  keep_alive(s, r);
  const enum MHD_Result ok = MHD_queue_response(c, 200, r);
  MHD_destroy_response(r); /* stream_free runs when the connection is done with it */
  count(s, 200);
  return ok;
}

static char *models_json(const server_t *s) {
  json_t *o = json_pack("{s:s,s:[{s:s,s:s,s:i,s:s,s:i}]}", "object", "list", "data", "id",
                        s->model.name, "object", "model", "created", 0, "owned_by",
                        "kgen", "context_length", (int)s->model.context);
  char *t = o ? json_dumps(o, JSON_COMPACT) : NULL;
  json_decref(o);
  return t;
}

static char *metrics_text(server_t *s) {
  kgs_stats_t st;
  kgs_sched_stats(s->sched, &st);
  kgs_buf_t b = {0};
  char line[256];
#define PUT(...)                                                                         \
  do {                                                                                   \
    snprintf(line, sizeof line, __VA_ARGS__);                                            \
    kgs_buf_put(&b, line, strlen(line));                                                 \
  } while (0)
  PUT("# HELP kgen_http_responses_total HTTP responses by status code.\n"
      "# TYPE kgen_http_responses_total counter\n");
  pthread_mutex_lock(&s->mu);
  for (int i = 0; i < SERVER_CODES; ++i)
    if (http_codes[i] != 0)
      PUT("kgen_http_responses_total{code=\"%d\"} %llu\n", http_codes[i],
          (unsigned long long)s->responses[i]);
    else
      PUT("kgen_http_responses_total{code=\"other\"} %llu\n",
          (unsigned long long)s->responses[i]);
  pthread_mutex_unlock(&s->mu);
  const struct {
    const char *name, *type, *help;
    double v;
  } m[] = {
      {"kgen_requests_total", "counter", "Requests queued.", (double)st.submitted},
      {"kgen_requests_rejected_total", "counter", "Requests refused: the queue was full.",
       (double)st.rejected},
      {"kgen_requests_finished_total", "counter", "Requests ended (any way).",
       (double)st.finished},
      {"kgen_requests_cancelled_total", "counter", "Requests cancelled (client gone).",
       (double)st.cancelled},
      {"kgen_preemptions_total", "counter", "Sequences preempted for KV blocks.",
       (double)st.preempted},
      {"kgen_prompt_tokens_total", "counter", "Prompt tokens queued.",
       (double)st.prompt_tokens},
      {"kgen_generation_tokens_total", "counter", "Tokens generated.",
       (double)st.generated_tokens},
      {"kgen_prefix_cache_hits_total", "counter", "Admissions that shared cached blocks.",
       (double)st.prefix_hits},
      {"kgen_prefix_cache_hit_tokens_total", "counter", "Prompt tokens not computed.",
       (double)st.cached_tokens},
      {"kgen_steps_total", "counter", "Steps run.", (double)st.steps},
      {"kgen_step_tokens_total", "counter", "Tokens run in steps.",
       (double)st.step_tokens},
      {"kgen_step_seconds_total", "counter", "Time in steps (device and readback).",
       st.step_seconds},
      {"kgen_step_seconds_last", "gauge", "The last step's time.", st.last_step_seconds},
      {"kgen_queue_depth", "gauge", "Requests waiting.", (double)st.waiting},
      {"kgen_running_sequences", "gauge", "Sequences running.", (double)st.running},
      {"kgen_kv_blocks_total", "gauge", "KV blocks of the pool.", (double)st.kv_blocks},
      {"kgen_kv_blocks_free", "gauge", "KV blocks nobody holds.", (double)st.kv_free},
      {"kgen_kv_blocks_in_use", "gauge", "KV blocks held by running sequences.",
       (double)st.kv_in_use},
      {"kgen_kv_blocks_cached", "gauge", "KV blocks held only by the prefix cache.",
       (double)st.kv_cached},
      {"kgen_prefix_cache_entries", "gauge", "Prompts kept.", (double)st.prefix_entries},
  };
  for (size_t i = 0; i < sizeof m / sizeof m[0]; ++i)
    PUT("# HELP %s %s\n# TYPE %s %s\n%s %.9g\n", m[i].name, m[i].help, m[i].name,
        m[i].type, m[i].name, m[i].v);
#undef PUT
  return b.p;
}

static enum MHD_Result route(server_t *s, struct MHD_Connection *c, const char *url,
                             const char *method, const conn_t *k) {
  const int get = strcmp(method, "GET") == 0, post = strcmp(method, "POST") == 0;
  pthread_mutex_lock(&s->mu);
  const int stopping = s->stopping;
  pthread_mutex_unlock(&s->mu);
  if (strcmp(url, "/health") == 0 && get)
    return reply(
        s, c, stopping ? 503 : 200, "application/json",
        strdup(stopping ? "{\"status\":\"shutting down\"}" : "{\"status\":\"ok\"}"));
  if (strcmp(url, "/metrics") == 0 && get)
    return reply(s, c, 200, "text/plain; version=0.0.4", metrics_text(s));
  if (strcmp(url, "/v1/models") == 0 && get)
    return reply(s, c, 200, "application/json", models_json(s));
  const int chat = strcmp(url, "/v1/chat/completions") == 0;
  if (chat || strcmp(url, "/v1/completions") == 0) {
    if (!post)
      return fail(s, c, 405, "method_not_allowed", "use POST");
    if (k->seen > s->max_body) {
      char msg[128];
      snprintf(msg, sizeof msg, "the body's %zu bytes are more than the server's %zu",
               k->seen, s->max_body);
      return fail(s, c, 413, "request_too_large", msg);
    }
    if (stopping)
      return fail(s, c, 503, "server_error", "the server is shutting down");
    return completions(s, c, chat, k);
  }
  if (strcmp(url, "/health") == 0 || strcmp(url, "/metrics") == 0 ||
      strcmp(url, "/v1/models") == 0)
    return fail(s, c, 405, "method_not_allowed", "use GET");
  char msg[256];
  snprintf(msg, sizeof msg,
           "no route %.100s (POST /v1/completions, "
           "/v1/chat/completions; GET /v1/models, /health, /metrics)",
           url);
  return fail(s, c, 404, "not_found", msg);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **con_cls) {
  (void)version;
  server_t *s = cls;
  conn_t *k = *con_cls;
  if (k == NULL) {
    if ((k = calloc(1, sizeof *k)) == NULL)
      return MHD_NO;
    *con_cls = k;
    return MHD_YES;
  }
  if (*upload_size > 0) {
    k->seen += *upload_size;
    if (k->seen <= s->max_body && kgs_buf_put(&k->body, upload, *upload_size) != 0)
      return MHD_NO;
    *upload_size = 0;
    return k->seen > s->max_body + DROP_MAX ? MHD_NO : MHD_YES;
  }
  return route(s, c, url, method, k);
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
                      enum MHD_RequestTerminationCode why) {
  (void)cls, (void)c, (void)why;
  conn_t *k = *con_cls;
  if (k != NULL) {
    kgs_buf_free(&k->body);
    free(k);
    *con_cls = NULL;
  }
}

int http_start(server_t *s, const char *host, unsigned port, unsigned *out_port,
               char *why, size_t why_size) {
  struct sockaddr_in a4 = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  struct sockaddr_in6 a6 = {.sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port)};
  const struct sockaddr *addr = (const struct sockaddr *)&a4;
  unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION |
                   MHD_USE_ITC | MHD_USE_ERROR_LOG;
  if (inet_pton(AF_INET, host, &a4.sin_addr) != 1) {
    if (inet_pton(AF_INET6, host, &a6.sin6_addr) != 1) {
      snprintf(why, why_size, "--host %s: not an IPv4 or IPv6 address", host);
      return -1;
    }
    addr = (const struct sockaddr *)&a6;
    flags |= MHD_USE_IPv6;
  }
  s->daemon = MHD_start_daemon(flags, (uint16_t)port, NULL, NULL, handle, s,
                               MHD_OPTION_SOCK_ADDR, addr, MHD_OPTION_NOTIFY_COMPLETED,
                               completed, s, MHD_OPTION_CONNECTION_TIMEOUT, s->timeout_s,
                               MHD_OPTION_CONNECTION_LIMIT, s->max_conns, MHD_OPTION_END);
  if (s->daemon == NULL) {
    snprintf(why, why_size, "cannot listen on %s:%u (in use, or not an address here)",
             host, port);
    return -1;
  }
  const union MHD_DaemonInfo *di =
      MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
  *out_port = di ? di->port : port;
  return 0;
}

void http_quiesce(server_t *s) {
  const MHD_socket fd = MHD_quiesce_daemon(s->daemon);
  if (fd != MHD_INVALID_SOCKET)
    close(fd);
}

int http_live(server_t *s) {
  pthread_mutex_lock(&s->mu);
  const int n = s->live;
  pthread_mutex_unlock(&s->mu);
  return n;
}

void http_stop(server_t *s) {
  if (s->daemon != NULL)
    MHD_stop_daemon(s->daemon);
  s->daemon = NULL;
}
