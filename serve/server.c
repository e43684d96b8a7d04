/* server.c - kgen-serve: an OpenAI-compatible HTTP server on a batched kgen
 * table (kgs_sched.h: continuous batching; http.c: the HTTP side).
 *
 *   kgen-serve --model FILE.gguf [--table NAME] [--device SPEC]
 *              [--host ADDR] [--port N] [--max-sequences N] [--step-tokens N]
 *              [--kv-blocks N | --kv-memory BYTES[K|M|G]] [--max-queue N]
 *              [--prefix-cache N] [--chat-format NAME] [--model-name NAME]
 *              [--max-body BYTES] [--timeout S] [--max-connections N]
 *              [--drain S]
 *
 * One worker thread opens the device, loads the table, binds the file's
 * weights and steps the scheduler; HTTP runs on libmicrohttpd's threads.
 * SIGTERM (or SIGINT): no new requests (503), the ones in flight finish
 * within --drain seconds or are cancelled, then every thread is joined and
 * the process exits 0 with a line on the pool (every block free). Errors
 * before serving are one line and exit 1. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kgrt_weights.h"
#include "server.h"
#include "serve_tables.h"

static const kgrt_model_table_t *const tables[] = SERVE_TABLES;

typedef struct worker {
  const char *device;
  const kgrt_model_table_t *table;
  const kgrt_weights_t *weights;
  const llm_tokenizer_t *tok;
  kgs_config_t cfg;
  uint64_t kv_memory; /* 0: cfg.kv_blocks as given */
  kgs_sched_t *sched;
  char device_name[128];
  uint64_t pool_bytes;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int ready; /* 1: serving, -1: failed (why) */
  int stop;
  char why[600];
} worker_t;

static void worker_ready(worker_t *w, int ready) {
  pthread_mutex_lock(&w->mu);
  w->ready = ready;
  pthread_cond_broadcast(&w->cv);
  pthread_mutex_unlock(&w->mu);
}

static void *worker_main(void *arg) {
  worker_t *w = arg;
  kgrt_error_t err = {0};
  kgrt_device_t *dev = NULL;
  kgrt_model_t *m = NULL;
  if (kgrt_device_open(w->device, NULL, &dev, &err) != KGRT_STATUS_OK ||
      kgrt_model_load(dev, w->table, &m, &err) != KGRT_STATUS_OK ||
      kgrt_model_bind_weights(m, w->weights, 0, &err) != KGRT_STATUS_OK) {
    snprintf(w->why, sizeof w->why, "%s", err.message);
    goto done;
  }
  snprintf(w->device_name, sizeof w->device_name, "%s", kgrt_device_name(dev));
  size_t kbytes = 0;
  if (kgrt_model_tensor_bytes(m, "k_cache", &kbytes, &err) == KGRT_STATUS_OK &&
      w->kv_memory > 0) {
    /* the table's pool: its slots over the block size, K and V */
    const kgrt_tensor_info_t *kc = NULL;
    for (uint32_t i = 0; i < w->table->num_inputs; ++i)
      if (strcmp(w->table->inputs[i].name, "k_cache") == 0)
        kc = &w->table->inputs[i];
    const uint64_t blocks = kc ? (uint64_t)kc->dims[2].value / w->cfg.block_size : 0;
    const uint64_t per = blocks ? 2 * (uint64_t)kbytes / blocks : 0;
    const uint64_t want = per ? w->kv_memory / per : 0;
    if (want == 0) {
      snprintf(w->why, sizeof w->why,
               "--kv-memory %llu bytes: less than one block (%llu bytes)",
               (unsigned long long)w->kv_memory, (unsigned long long)per);
      goto done;
    }
    w->cfg.kv_blocks = (uint32_t)(want < blocks ? want : blocks);
  }
  if (kgs_sched_create(m, w->table, w->tok, &w->cfg, &w->sched, &err) != KGRT_STATUS_OK) {
    snprintf(w->why, sizeof w->why, "%s", err.message);
    goto done;
  }
  w->pool_bytes = 2 * (uint64_t)kbytes;
  worker_ready(w, 1);
  for (;;) {
    pthread_mutex_lock(&w->mu);
    const int stop = w->stop;
    pthread_mutex_unlock(&w->mu);
    if (stop)
      break;
    if (kgs_sched_step(w->sched, 100, &err) != KGRT_STATUS_OK)
      fprintf(stderr, "kgen-serve: a step failed: %s\n", err.message);
  }
done:
  if (w->ready != 1)
    worker_ready(w, -1);
  kgs_sched_destroy(w->sched);
  w->sched = NULL;
  kgrt_model_unload(m);
  kgrt_device_close(dev);
  return NULL;
}

static int usage(void) {
  fprintf(
      stderr,
      "usage: kgen-serve --model FILE.gguf [--table NAME] [--device SPEC] [--host ADDR] "
      "[--port N] [--max-sequences N] [--step-tokens N] [--kv-blocks N | --kv-memory "
      "BYTES[K|M|G]] "
      "[--max-queue N] [--prefix-cache N] [--chat-format NAME] [--model-name NAME] "
      "[--max-body BYTES] [--timeout S] [--max-connections N] [--drain S]\n");
  return 1;
}

/* A count from 0 to max (K, M, G suffixes where `bytes`): 0, or -1. */
static int count_arg(const char *flag, const char *s, uint64_t max, int bytes,
                     uint64_t *out) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  uint64_t mul = 1;
  if (bytes && *end != 0 && end[1] == 0)
    mul = *end == 'K'   ? 1ull << 10
          : *end == 'M' ? 1ull << 20
          : *end == 'G' ? 1ull << 30
                        : 0;
  if (end == s || errno != 0 || s[0] == '-' || mul == 0 ||
      (*end != 0 && (!bytes || end[1] != 0)) || v > max / mul) {
    fprintf(stderr, "kgen-serve: %s takes a count from 0 to %llu%s, got '%s'\n", flag,
            (unsigned long long)max, bytes ? " (K, M or G after it)" : "", s);
    return -1;
  }
  *out = v * mul;
  return 0;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* SIGTERM: stop admitting, drain or cancel, join everything. */
static void shut_down(server_t *s, worker_t *w, double drain_s) {
  pthread_mutex_lock(&s->mu);
  s->stopping = 1;
  pthread_mutex_unlock(&s->mu);
  kgs_sched_close(s->sched);
  http_quiesce(s);
  const uint32_t pending = kgs_sched_pending(s->sched);
  fprintf(stderr, "kgen-serve: stopping: %u requests in flight, %.0f s to finish\n",
          pending, drain_s);
  const double t0 = now_s();
  while (kgs_sched_pending(s->sched) > 0 && now_s() - t0 < drain_s)
    sleep_ms(20);
  const uint32_t left = kgs_sched_pending(s->sched);
  if (left > 0) {
    fprintf(stderr, "kgen-serve: cancelling %u requests\n", left);
    kgs_sched_cancel_all(s->sched);
    for (int i = 0; i < 250 && kgs_sched_pending(s->sched) > 0; ++i)
      sleep_ms(20);
  }
  /* the streams write their last events */
  for (int i = 0; i < 250 && http_live(s) > 0; ++i)
    sleep_ms(20);
  http_stop(s);
  kgs_stats_t st;
  kgs_sched_stats(s->sched, &st);
  pthread_mutex_lock(&w->mu);
  w->stop = 1;
  pthread_mutex_unlock(&w->mu);
  kgs_sched_wake(s->sched);
  fprintf(
      stderr,
      "kgen-serve: stopped: %llu requests, %llu tokens generated; KV blocks: %u of %u "
      "free, %u cached, %u in use\n",
      (unsigned long long)st.submitted, (unsigned long long)st.generated_tokens,
      st.kv_free, st.kv_blocks, st.kv_cached, st.kv_in_use);
}

int main(int argc, char **argv) {
  const char *path = NULL, *table_name = NULL, *device = "sim:gfx1100",
             *host = "127.0.0.1", *chat_format = NULL, *model_name = NULL;
  uint64_t port = 8080, max_seqs = 0, step_tokens = 0, kv_blocks = 0, kv_memory = 0,
           max_queue = 64, prefix = 16, max_body = 1 << 20, timeout = 30, max_conns = 256,
           drain = 10;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    const struct {
      const char *flag;
      uint64_t *out, max;
      int bytes;
    } counts[] = {{"--port", &port, 65535, 0},
                  {"--max-sequences", &max_seqs, 1 << 16, 0},
                  {"--step-tokens", &step_tokens, 1 << 20, 0},
                  {"--kv-blocks", &kv_blocks, 1 << 24, 0},
                  {"--kv-memory", &kv_memory, 1ull << 50, 1},
                  {"--max-queue", &max_queue, 1 << 20, 0},
                  {"--prefix-cache", &prefix, 4096, 0},
                  {"--max-body", &max_body, 1ull << 30, 1},
                  {"--timeout", &timeout, 86400, 0},
                  {"--max-connections", &max_conns, 65536, 0},
                  {"--drain", &drain, 86400, 0}};
    int known = 0;
    for (size_t k = 0; k < sizeof counts / sizeof counts[0] && !known; ++k)
      if (strcmp(a, counts[k].flag) == 0) {
        known = 1;
        if (v == NULL)
          return usage();
        if (count_arg(a, v, counts[k].max, counts[k].bytes, counts[k].out) != 0)
          return 1;
      }
    if (known) {
      ++i;
      continue;
    }
    const char **strs[] = {&path, &table_name, &device, &host, &chat_format, &model_name};
    const char *names[] = {"--model", "--table",       "--device",
                           "--host",  "--chat-format", "--model-name"};
    for (size_t k = 0; k < sizeof strs / sizeof strs[0] && !known; ++k)
      if (strcmp(a, names[k]) == 0) {
        known = 1;
        if (v == NULL)
          return usage();
        *strs[k] = v;
      }
    if (!known)
      return usage();
    ++i;
  }
  if (path == NULL)
    return usage();
  if (kv_blocks > 0 && kv_memory > 0) {
    fprintf(stderr, "kgen-serve: give --kv-blocks or --kv-memory, not both\n");
    return 1;
  }
  const kgrt_model_table_t *table = tables[0];
  if (table_name != NULL) {
    table = NULL;
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; ++i)
      if (strcmp(tables[i]->name, table_name) == 0)
        table = tables[i];
    if (table == NULL) {
      fprintf(stderr, "kgen-serve: --table %s: this kgen-serve has", table_name);
      for (size_t i = 0; i < sizeof tables / sizeof tables[0]; ++i)
        fprintf(stderr, " %s", tables[i]->name);
      fprintf(stderr, "\n");
      return 1;
    }
  }
  llm_chat_format_t chat = LLM_CHAT_UNKNOWN;
  if (chat_format != NULL &&
      (chat = llm_chat_format_named(chat_format)) == LLM_CHAT_UNKNOWN) {
    fprintf(stderr, "kgen-serve: --chat-format %s: expected one of %s\n", chat_format,
            llm_chat_format_list());
    return 1;
  }

  kgrt_error_t err = {0};
  kgrt_weights_t *weights = NULL;
  llm_tokenizer_t tok = {0};
  int have_tok = 0, rc = 1;
  char why[256], name[128];
  if (kgrt_weights_open(path, NULL, &weights, &err) != KGRT_STATUS_OK) {
    fprintf(stderr, "kgen-serve: %s\n", err.message);
    return 1;
  }
  have_tok = llm_tokenizer_load(&tok, weights, why, sizeof why) == 0;
  if (!have_tok)
    fprintf(stderr, "kgen-serve: %s: %s; prompts must be token ids\n", path, why);
  if (chat_format == NULL) {
    const char *tmpl;
    size_t len;
    if (kgrt_weights_meta_string(weights, "tokenizer.chat_template", &tmpl, &len, &err) ==
        KGRT_STATUS_OK) {
      if ((chat = llm_chat_detect(tmpl, len)) == LLM_CHAT_UNKNOWN) {
        fprintf(stderr,
                "kgen-serve: %s: its chat template is none of the formats kgen-serve "
                "knows; give --chat-format (%s)\n",
                path, llm_chat_format_list());
        goto done;
      }
    } else {
      fprintf(stderr,
              "kgen-serve: %s has no chat template: /v1/chat/completions answers 400 "
              "(give --chat-format)\n",
              path);
    }
  }
  if (model_name == NULL) {
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    snprintf(name, sizeof name, "%s", base);
    char *dot = strrchr(name, '.');
    if (dot != NULL && dot != name)
      *dot = 0;
    model_name = name;
  }

  /* the threads: SIGTERM and SIGINT wait for main's sigwait */
  sigset_t sigs;
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGTERM);
  sigaddset(&sigs, SIGINT);
  pthread_sigmask(SIG_BLOCK, &sigs, NULL);
  signal(SIGPIPE, SIG_IGN);

  worker_t w = {.device = device,
                .table = table,
                .weights = weights,
                .tok = have_tok ? &tok : NULL,
                .cfg = {.block_size = SERVE_BLOCK_SIZE,
                        .max_seqs = (uint32_t)max_seqs,
                        .step_tokens = (uint32_t)step_tokens,
                        .kv_blocks = (uint32_t)kv_blocks,
                        .max_queue = (uint32_t)max_queue,
                        .prefix_entries = (uint32_t)prefix},
                .kv_memory = kv_memory};
  pthread_mutex_init(&w.mu, NULL);
  pthread_cond_init(&w.cv, NULL);
  pthread_t worker;
  if (pthread_create(&worker, NULL, worker_main, &w) != 0) {
    fprintf(stderr, "kgen-serve: cannot start the worker thread\n");
    goto done;
  }
  pthread_mutex_lock(&w.mu);
  while (w.ready == 0)
    pthread_cond_wait(&w.cv, &w.mu);
  pthread_mutex_unlock(&w.mu);
  if (w.ready < 0) {
    fprintf(stderr, "kgen-serve: %s: %s\n", path, w.why);
    pthread_join(worker, NULL);
    goto done;
  }
  server_t s = {.sched = w.sched,
                .model = {.name = model_name,
                          .tok = w.tok,
                          .chat = chat,
                          .context = kgs_sched_context(w.sched),
                          .vocab = kgs_sched_vocab(w.sched)},
                .max_body = (size_t)max_body,
                .timeout_s = (unsigned)timeout,
                .max_conns = (unsigned)max_conns};
  pthread_mutex_init(&s.mu, NULL);
  unsigned bound = 0;
  char hwhy[160];
  if (http_start(&s, host, (unsigned)port, &bound, hwhy, sizeof hwhy) != 0) {
    fprintf(stderr, "kgen-serve: %s\n", hwhy);
    pthread_mutex_lock(&w.mu);
    w.stop = 1;
    pthread_mutex_unlock(&w.mu);
    kgs_sched_wake(w.sched);
    pthread_join(worker, NULL);
    goto done;
  }
  kgs_stats_t st;
  kgs_sched_stats(w.sched, &st);
  fprintf(stderr,
          "kgen-serve: %s (%s) on %s: %u sequences, %u tokens a step, %u KV blocks of %u "
          "tokens, a context of %u, chat %s\n",
          model_name, table->name, w.device_name, kgs_sched_max_seqs(w.sched),
          kgs_sched_step_tokens(w.sched), st.kv_blocks, SERVE_BLOCK_SIZE, s.model.context,
          chat ? llm_chat_format_name(chat) : "none");
  fprintf(stderr, "kgen-serve: listening on http://%s:%u\n", host, bound);
  int sig = 0;
  sigwait(&sigs, &sig);
  shut_down(&s, &w, (double)drain);
  pthread_join(worker, NULL);
  pthread_mutex_destroy(&s.mu);
  rc = 0;
done:
  kgrt_weights_close(weights);
  if (have_tok)
    llm_tokenizer_free(&tok);
  return rc;
}
