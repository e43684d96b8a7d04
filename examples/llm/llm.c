/* llm.c - an LLM product on kgrt: loads a Llama-family model's weights
 * (GGUF, or safetensors with Hugging Face names) into the kernel table kgen
 * built for it (lua/models/llama.lua; LLM_TABLE below), takes a prompt as
 * text (through the GGUF file's own tokenizer, llm_tokenizer.h; with
 * --chat, as a user's message in the model's chat format, llm_chat.h) or as
 * token ids, prefills it in chunks of the table's T, then decodes one token
 * a run, the sampled token read back (4 bytes) and streamed as text (valid
 * UTF-8: a character cut across tokens goes out once whole, llm_utf8.h),
 * and ends with a summary: the prompt's and the generation's tokens, times
 * and rates, why it stopped and how it sampled.
 *
 *   llm [--device SPEC] [--tp N | --pp N] [--prompt TEXT | --tokens ID,...]
 *       [--chat [--chat-format NAME] [--system TEXT]] [-n N]
 *       [--temp T] [--top-k K] [--top-p P] [--min-p P] [--seed S] MODEL
 *
 * --device: hip, cuda or sim:ARCH (default sim:gfx1100); -n: tokens to
 * generate (default 32; generation also stops at an end-of-generation token
 * (EOS, end of turn) or a full context); --chat: the prompt is a user's
 * message in the chat format of the file's tokenizer.chat_template (Llama 3,
 * ChatML, Llama 2 / Mistral [INST]), or the one --chat-format names;
 * --system: a system message before it; --tp / --pp: the model split over N
 * GPUs, tensor parallel or as a pipeline, which needs a table built for it
 * (LLM_TABLE_TP2: tp = 2, LLM_TABLE_PP2: pp = 2): rank r runs on GPU r of a
 * "hip" or "cuda" device, or on its own sim device, in its own thread, all
 * joined to one communicator; rank 0 streams the text. The sampling is the
 * table's params input, set at run time: --temp (default 0: greedy, the
 * argmax), --top-k (0: off), --top-p (1: off), --min-p (0: off), --seed
 * (default 0; the draw of the token at position p is Philox of the seed at
 * p, so a seed gives the same text every time). Errors are one line and
 * exit code 1.
 *
 * Ranks as processes, as a launcher starts them (torchrun's WORLD_SIZE and
 * RANK, else Slurm's SLURM_NTASKS and SLURM_PROCID): with a world of N > 1,
 * this process runs rank RANK of the table built for N ranks (--tp or --pp
 * N, default tp), its communicator made from the id in $KGRT_COMM_ID, the
 * same in every rank (`llm --new-comm-id` prints a new one:
 *   KGRT_COMM_ID=$(llm --new-comm-id) torchrun --nproc-per-node 2 llm ...);
 * $KGRT_COMM_TIMEOUT_MS (default 60000) bounds the wait for the others.
 * Sim devices only for now (kgrt_comm_init_rank); rank 0 streams the text. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kgrt.h"
#include "kgrt_weights.h"
#include "llm_chat.h"
#include "llm_tokenizer.h"
#include "llm_utf8.h"
#include LLM_TABLE_HEADER
#ifdef LLM_TABLE_TP2_HEADER
#include LLM_TABLE_TP2_HEADER
#endif
#ifdef LLM_TABLE_PP2_HEADER
#include LLM_TABLE_PP2_HEADER
#endif

enum { MAX_PROMPT = 4096, MAX_RANKS = 8, MAX_PIECE = 1024 };

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int usage(void) {
  fprintf(
      stderr,
      "usage: llm [--device SPEC] [--tp N | --pp N] [--prompt TEXT | --tokens ID,...] "
      "[--chat [--chat-format NAME] [--system TEXT]] [-n N] [--temp T] [--top-k K] "
      "[--top-p P] [--min-p P] [--seed S] MODEL.gguf|MODEL.safetensors\n"
      "       llm --new-comm-id   (an id for ranks as processes: KGRT_COMM_ID)\n");
  return 1;
}

/* How the tokens are drawn: the table's params input (temperature, top_k,
 * top_p, min_p) and its seed input. */
typedef struct sampling {
  float params[4];
  uint32_t seed;
} sampling_t;

/* A sampling flag: the params slot it sets (-1: the seed), its range
 * (lo_open: > lo, else >= lo; hi_open: < hi, else <= hi), whether it takes
 * an integer, and the range in words for its error. */
typedef struct sampling_flag {
  const char *name;
  int slot;
  double lo, hi;
  int lo_open, hi_open, integer;
  const char *range;
} sampling_flag_t;

static const sampling_flag_t sampling_flags[] = {
    {"--temp", 0, 0, 3e38, 0, 0, 0, "a number >= 0 (0: greedy)"},
    {"--top-k", 1, 0, 1 << 24, 0, 0, 1, "an integer from 0 to 16777216 (0: off)"},
    {"--top-p", 2, 0, 1, 1, 0, 0, "a number in (0, 1] (1: off)"},
    {"--min-p", 3, 0, 1, 0, 1, 0, "a number in [0, 1) (0: off)"},
    {"--seed", -1, 0, 4294967295.0, 0, 0, 1, "an integer from 0 to 4294967295"},
};

/* The sampling flag named `name`, or NULL. */
static const sampling_flag_t *sampling_flag(const char *name) {
  for (size_t i = 0; i < sizeof sampling_flags / sizeof sampling_flags[0]; ++i)
    if (strcmp(sampling_flags[i].name, name) == 0)
      return &sampling_flags[i];
  return NULL;
}

/* Sets flag f's value from text into *s; -1 after a one-line error. */
static int sampling_set(sampling_t *s, const sampling_flag_t *f, const char *text) {
  char *end;
  errno = 0;
  const double v = f->integer ? (double)strtoll(text, &end, 10) : strtod(text, &end);
  if (end == text || *end != 0 || errno != 0 || !isfinite(v) ||
      (f->lo_open ? v <= f->lo : v < f->lo) || (f->hi_open ? v >= f->hi : v > f->hi)) {
    fprintf(stderr, "llm: %s takes %s, got '%s'\n", f->name, f->range, text);
    return -1;
  }
  if (f->slot < 0)
    s->seed = (uint32_t)v;
  else
    s->params[f->slot] = (float)v;
  return 0;
}

/* The max of sym `name` in the table, or 0. */
static int64_t sym_max(const kgrt_model_table_t *t, const char *name) {
  for (uint32_t i = 0; i < t->num_syms; ++i)
    if (strcmp(t->syms[i].name, name) == 0)
      return t->syms[i].max;
  return 0;
}

/* "1,2,3" into ids; the count, or -1 on a bad list. */
static int parse_ids(const char *s, int32_t *ids, int cap) {
  int n = 0;
  while (*s) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || errno != 0 || v < 0 || v > INT32_MAX || n >= cap ||
        (*end != ',' && *end != 0))
      return -1;
    ids[n++] = (int32_t)v;
    s = *end == ',' ? end + 1 : end;
  }
  return n;
}

/* Runs tokens[0 .. T) at positions pos0 ..; the next token, drawn as
 * `how` says, into *next. */
static kgrt_status_t run(kgrt_model_t *m, const int32_t *tokens, int T, int pos0,
                         const sampling_t *how, int32_t *next, kgrt_error_t *err) {
  int32_t pos[MAX_PROMPT], last = T - 1, seed = (int32_t)how->seed;
  for (int t = 0; t < T; ++t)
    pos[t] = pos0 + t;
  kgrt_status_t st;
  if ((st = kgrt_model_set_dim(m, "T", T, err)) ||
      (st = kgrt_model_set_dim(m, "S", pos0 + T, err)) ||
      (st =
           kgrt_model_set_input(m, "tokens", tokens, sizeof(int32_t) * (size_t)T, err)) ||
      (st = kgrt_model_set_input(m, "pos", pos, sizeof(int32_t) * (size_t)T, err)) ||
      (st = kgrt_model_set_input(m, "last", &last, sizeof last, err)) ||
      (st = kgrt_model_set_input(m, "seed", &seed, sizeof seed, err)) ||
      (st = kgrt_model_set_input(m, "params", how->params, sizeof how->params, err)) ||
      (st = kgrt_model_run(m, err)))
    return st;
  return kgrt_model_get_output(m, "next_token", next, sizeof *next, err);
}

/* The text streamed so far: the UTF-8 stream and whether any text went out. */
typedef struct stream {
  llm_utf8_t utf8;
  int started;
} stream_t;

/* Token id's text (control tokens are not text) out through the UTF-8
 * stream: a character cut across tokens goes out once whole. The space a
 * SentencePiece tokenizer puts before the text is not shown. */
static void put_token(const llm_tokenizer_t *tok, stream_t *s, int32_t id) {
  char piece[MAX_PIECE], out[3 * MAX_PIECE + 4];
  size_t n = llm_tokenizer_piece(tok, id, 0, piece, sizeof piece);
  if (n >= sizeof piece)
    n = sizeof piece - 1;
  const size_t skip = !s->started && tok->add_space_prefix && n > 0 && piece[0] == ' ';
  s->started |= n > 0;
  fwrite(out, 1, llm_utf8_push(&s->utf8, piece + skip, n - skip, out, sizeof out),
         stdout);
}

/* One rank's (or the whole model's) run of the prompt and the generation.
 * Every rank makes the same calls in the same order: their tokens are the
 * same (sampled from the same gathered logits), so they stop together. */
typedef struct rank_job {
  const char *device, *path;
  const kgrt_model_table_t *table;
  const kgrt_weights_t *weights;
  kgrt_comm_t *comm; /* NULL: the whole model */
  uint32_t rank;
  const int32_t *ids;
  int n;
  long gen;
  sampling_t how;
  const llm_tokenizer_t *tok; /* NULL: print ids */
  int echo;                   /* print the prompt's text first */
  int rc;
} rank_job_t;

static void *rank_main(void *arg) {
  rank_job_t *j = arg;
  const kgrt_model_table_t *table = j->table;
  const int speaks = j->rank == 0; /* rank 0 streams the text and the rates */
  const llm_tokenizer_t *tok = j->tok;
  kgrt_error_t err = {0};
  kgrt_device_t *dev = NULL;
  kgrt_model_t *m = NULL;
  const int64_t t_max = sym_max(table, "T"), s_max = sym_max(table, "S");
  j->rc = 1;
  kgrt_memory_t mem;
  /* kgrt_model_memory checks the table against the device before anything
   * is allocated; what is printed below is what this rank holds once loaded */
  if (kgrt_device_open(j->device, NULL, &dev, &err) != KGRT_STATUS_OK ||
      kgrt_model_memory(dev, table, &mem, &err) != KGRT_STATUS_OK) {
    fprintf(stderr, "llm: %s\n", err.message);
    goto done;
  }
  if (kgrt_model_load(dev, table, &m, &err) != KGRT_STATUS_OK ||
      (j->comm != NULL && kgrt_model_join(m, j->comm, j->rank, &err) != KGRT_STATUS_OK) ||
      kgrt_model_bind_weights(m, j->weights, 0, &err) != KGRT_STATUS_OK) {
    fprintf(stderr, "llm: %s: %s\n", j->path, err.message);
    goto done;
  }
  kgrt_model_held_memory(m, &mem); /* a pipeline's rank: its own stage's */
  if (speaks)
    fprintf(stderr, "llm: %s on %s%s: %.1f MB%s (weights %.1f MB, KV cache %.1f MB)\n",
            table->name, kgrt_device_name(dev),
            j->comm != NULL ? " and the other ranks" : "", (double)mem.total / 1e6,
            j->comm != NULL ? " a rank" : "", (double)mem.weights / 1e6,
            (double)mem.state / 1e6);

  stream_t text = {{{0}, 0}, 0};
  if (speaks && tok != NULL && j->echo)
    for (int i = 0; i < j->n; ++i)
      put_token(tok, &text, j->ids[i]);
  fflush(stdout);
  /* prefill in chunks of at most T tokens */
  int32_t next = 0;
  double t0 = now_s();
  for (int at = 0; at < j->n; at += (int)t_max) {
    int T = j->n - at < t_max ? j->n - at : (int)t_max;
    if (run(m, j->ids + at, T, at, &j->how, &next, &err) != KGRT_STATUS_OK) {
      fprintf(stderr, "llm: %s\n", err.message);
      goto done;
    }
  }
  double prefill_s = now_s() - t0;
  /* decode: one token a run, streamed */
  long made = 0;
  int pos = j->n;
  const char *stop = "-n";
  t0 = now_s();
  while (made < j->gen) {
    if (speaks && tok != NULL)
      put_token(tok, &text, next);
    else if (speaks)
      printf("%s%d", made ? "," : "", next);
    fflush(stdout);
    ++made;
    if (tok != NULL && llm_tokenizer_is_eog(tok, next)) {
      stop = "an end-of-generation token";
      break;
    }
    if (pos + 1 >= s_max) {
      stop = "the end of the context";
      break;
    }
    if (made == j->gen)
      break;
    if (run(m, &next, 1, pos++, &j->how, &next, &err) != KGRT_STATUS_OK) {
      fprintf(stderr, "\nllm: %s\n", err.message);
      goto done;
    }
  }
  double gen_s = now_s() - t0;
  if (speaks) {
    char tail[4];
    fwrite(tail, 1, llm_utf8_flush(&text.utf8, tail, sizeof tail), stdout);
    printf("\n");
    fflush(stdout);
    fprintf(
        stderr,
        "llm: prompt %d tokens, %.1f tok/s (%.2f s); generated %ld tokens, %.1f tok/s "
        "(%.2f s); stopped at %s",
        j->n, j->n / prefill_s, prefill_s, made, made > 1 ? (made - 1) / gen_s : 0.0,
        gen_s, stop);
    if (stop[0] == '-')
      fprintf(stderr, " %ld", j->gen);
    const float *p = j->how.params;
    if (p[0] > 0.0f)
      fprintf(stderr,
              "; sampled at temperature %g, top-k %g, top-p %g, min-p %g, seed %u\n",
              (double)p[0], (double)p[1], (double)p[2], (double)p[3], j->how.seed);
    else
      fprintf(stderr, "; greedy\n");
  }
  j->rc = 0;
done:
  kgrt_model_unload(m);
  kgrt_device_close(dev);
  return NULL;
}

/* The table built for `ranks` ranks split as `mode` ("tp" or "pp"; any for
 * one rank), or NULL. */
static const kgrt_model_table_t *table_for(long ranks, const char *mode) {
  const struct {
    const kgrt_model_table_t *table;
    const char *mode;
  } tables[] = {
      {&LLM_TABLE, "tp"},
#ifdef LLM_TABLE_TP2
      {&LLM_TABLE_TP2, "tp"},
#endif
#ifdef LLM_TABLE_PP2
      {&LLM_TABLE_PP2, "pp"},
#endif
  };
  for (size_t i = 0; i < sizeof tables / sizeof tables[0]; ++i) {
    const uint32_t n = tables[i].table->ranks > 1 ? tables[i].table->ranks : 1;
    if (n == (uint32_t)ranks && (n == 1 || strcmp(tables[i].mode, mode) == 0))
      return tables[i].table;
  }
  return NULL;
}

/* The user's message (after the system's, where given) in the chat format
 * named, else the one of the file's tokenizer.chat_template, into *out
 * (malloc'd). 0, or -1 after a line on stderr. */
static int chat_prompt(const kgrt_weights_t *w, const char *path, const char *format,
                       const char *system, const char *user, char **out) {
  llm_chat_format_t f = LLM_CHAT_UNKNOWN;
  if (format != NULL) {
    f = llm_chat_format_named(format);
  } else {
    const char *tmpl;
    size_t len;
    kgrt_error_t err;
    if (kgrt_weights_meta_string(w, "tokenizer.chat_template", &tmpl, &len, &err) !=
        KGRT_STATUS_OK) {
      fprintf(
          stderr,
          "llm: %s has no chat template (tokenizer.chat_template); give --chat-format "
          "(%s)\n",
          path, llm_chat_format_list());
      return -1;
    }
    if ((f = llm_chat_detect(tmpl, len)) == LLM_CHAT_UNKNOWN) {
      fprintf(stderr,
              "llm: %s: its chat template is none of the formats llm knows; give "
              "--chat-format (%s)\n",
              path, llm_chat_format_list());
      return -1;
    }
  }
  llm_chat_msg_t msgs[2];
  size_t n = 0;
  if (system != NULL)
    msgs[n++] = (llm_chat_msg_t){"system", system};
  msgs[n++] = (llm_chat_msg_t){"user", user};
  const size_t len = llm_chat_apply(f, msgs, n, 1, NULL, 0);
  if ((*out = malloc(len + 1)) == NULL) {
    fprintf(stderr, "llm: out of memory\n");
    return -1;
  }
  llm_chat_apply(f, msgs, n, 1, *out, len + 1);
  fprintf(stderr, "llm: chat format %s\n", llm_chat_format_name(f));
  return 0;
}

/* A launcher's world: its size (1 without one) and this process's rank, from
 * WORLD_SIZE and RANK (torchrun) or SLURM_NTASKS and SLURM_PROCID. 0, or -1
 * after a line on stderr. */
static int launcher_world(long *size, long *rank) {
  const char *n = getenv("WORLD_SIZE"), *r = getenv("RANK");
  const char *nn = "WORLD_SIZE", *rn = "RANK";
  if (n == NULL) {
    n = getenv("SLURM_NTASKS"), r = getenv("SLURM_PROCID");
    nn = "SLURM_NTASKS", rn = "SLURM_PROCID";
  }
  *size = 1, *rank = 0;
  if (n == NULL)
    return 0;
  char *end;
  *size = strtol(n, &end, 10);
  if (*n == '\0' || *end != '\0' || *size < 1 || *size > MAX_RANKS) {
    fprintf(stderr, "llm: %s=%.32s: expected a count from 1 to %d\n", nn, n, MAX_RANKS);
    return -1;
  }
  if (*size == 1)
    return 0;
  *rank = r != NULL ? strtol(r, &end, 10) : -1;
  if (r == NULL || *r == '\0' || *end != '\0' || *rank < 0 || *rank >= *size) {
    fprintf(stderr, "llm: %s=%ld: %s=%.32s is not a rank from 0 to %ld\n", nn, *size, rn,
            r != NULL ? r : "(unset)", *size - 1);
    return -1;
  }
  return 0;
}

/* This process's rank of a launcher's world of `size`, from $KGRT_COMM_ID,
 * or NULL after a line on stderr. */
static kgrt_comm_t *launcher_comm(long size, long rank) {
  const char *text = getenv("KGRT_COMM_ID"), *t = getenv("KGRT_COMM_TIMEOUT_MS");
  kgrt_comm_id_t id;
  kgrt_error_t err = {0};
  kgrt_comm_t *comm = NULL;
  long timeout = 60000;
  char *end = NULL;
  if (text == NULL) {
    fprintf(stderr,
            "llm: a world of %ld ranks: set KGRT_COMM_ID, the same in every rank, to an "
            "id from llm --new-comm-id\n",
            size);
    return NULL;
  }
  if (t != NULL && ((timeout = strtol(t, &end, 10)) < 1 || timeout > 3600000 || *end)) {
    fprintf(stderr, "llm: KGRT_COMM_TIMEOUT_MS=%.32s: expected 1 to 3600000\n", t);
    return NULL;
  }
  if (kgrt_comm_id_parse(text, &id, &err) != KGRT_STATUS_OK ||
      kgrt_comm_init_rank(&id, (uint32_t)rank, (uint32_t)size, (uint32_t)timeout, NULL,
                          &comm, &err) != KGRT_STATUS_OK) {
    fprintf(stderr, "llm: rank %ld of %ld: %s\n", rank, size, err.message);
    return NULL;
  }
  return comm;
}

int main(int argc, char **argv) {
  const char *device = "sim:gfx1100", *prompt = NULL, *ids_arg = NULL, *path = NULL;
  const char *chat_format = NULL, *system = NULL;
  int chat = 0;
  long gen = 32, tp = 1;
  const char *mode = NULL; /* "tp" or "pp": the flag that set tp */
  /* greedy: temperature 0; top-k, top-p and min-p off */
  sampling_t how = {{0.0f, 0.0f, 1.0f, 0.0f}, 0};
  for (int i = 1; i < argc; ++i) {
    const sampling_flag_t *f = sampling_flag(argv[i]);
    if (f != NULL && i + 1 < argc) {
      if (sampling_set(&how, f, argv[++i]) != 0)
        return 1;
    } else if (strcmp(argv[i], "--device") == 0 && i + 1 < argc)
      device = argv[++i];
    else if (strcmp(argv[i], "--chat") == 0)
      chat = 1;
    else if (strcmp(argv[i], "--chat-format") == 0 && i + 1 < argc)
      chat_format = argv[++i];
    else if (strcmp(argv[i], "--system") == 0 && i + 1 < argc)
      system = argv[++i];
    else if (strcmp(argv[i], "--prompt") == 0 && i + 1 < argc)
      prompt = argv[++i];
    else if (strcmp(argv[i], "--tokens") == 0 && i + 1 < argc)
      ids_arg = argv[++i];
    else if ((strcmp(argv[i], "-n") == 0 || strcmp(argv[i], "--tp") == 0 ||
              strcmp(argv[i], "--pp") == 0) &&
             i + 1 < argc) {
      const int is_n = argv[i][1] == 'n';
      if (!is_n && mode != NULL) {
        fprintf(stderr, "llm: --%s and %s: give one of them\n", mode, argv[i]);
        return 1;
      }
      if (!is_n)
        mode = argv[i] + 2;
      char *end;
      long v = strtol(argv[++i], &end, 10);
      if (*end != 0 || v < 1 || v > (is_n ? 1 << 20 : MAX_RANKS)) {
        fprintf(stderr, "llm: %s takes a count from 1 to %d, got %s\n", argv[i - 1],
                is_n ? 1 << 20 : MAX_RANKS, argv[i]);
        return 1;
      }
      *(is_n ? &gen : &tp) = v;
    } else if (strcmp(argv[i], "--new-comm-id") == 0 && argc == 2) {
      kgrt_comm_id_t id;
      kgrt_error_t err = {0};
      char text[KGRT_COMM_ID_TEXT];
      if (kgrt_comm_id_create("sim", &id, &err) != KGRT_STATUS_OK) {
        fprintf(stderr, "llm: %s\n", err.message);
        return 1;
      }
      kgrt_comm_id_text(&id, text);
      printf("%s\n", text);
      return 0;
    } else if (argv[i][0] == '-' || path != NULL)
      return usage();
    else
      path = argv[i];
  }
  if (path == NULL || (prompt != NULL && ids_arg != NULL) ||
      ((chat_format != NULL || system != NULL) && !chat) || (chat && ids_arg != NULL))
    return usage();
  if (chat_format != NULL && llm_chat_format_named(chat_format) == LLM_CHAT_UNKNOWN) {
    fprintf(stderr, "llm: --chat-format %s: expected one of %s\n", chat_format,
            llm_chat_format_list());
    return 1;
  }

  long world = 1, me = 0;
  if (launcher_world(&world, &me) != 0)
    return 1;
  if (world > 1 && mode != NULL && tp != world) {
    fprintf(stderr, "llm: --%s %ld in a launcher's world of %ld ranks: give --%s %ld\n",
            mode, tp, world, mode, world);
    return 1;
  }
  if (world > 1)
    tp = world;
  if (mode == NULL)
    mode = "tp";
  const kgrt_model_table_t *table = table_for(tp, mode);
  if (table == NULL && world > 1) {
    fprintf(stderr,
            "llm: a launcher's world of %ld ranks: this llm has no table built for %ld "
            "ranks (%s = %ld in the model's config)\n",
            world, world, mode, world);
    return 1;
  }
  if (table == NULL) {
    fprintf(stderr,
            "llm: --%s %ld: this llm has no table built for %ld ranks (%s = %ld "
            "in the model's config)\n",
            mode, tp, tp, mode, tp);
    return 1;
  }
  kgrt_error_t err = {0};
  kgrt_weights_t *w = NULL;
  kgrt_comm_t *comm = NULL;
  llm_tokenizer_t tok = {0};
  int have_tok = 0, rc = 1;
  char *chat_text = NULL;
  static int32_t ids[MAX_PROMPT];
  int n = 0;
  char why[256];

  if (kgrt_weights_open(path, NULL, &w, &err) != KGRT_STATUS_OK) {
    fprintf(stderr, "llm: %s\n", err.message);
    goto done;
  }
  have_tok = llm_tokenizer_load(&tok, w, why, sizeof why) == 0;
  if (ids_arg != NULL) {
    n = parse_ids(ids_arg, ids, MAX_PROMPT);
    if (n <= 0) {
      fprintf(stderr, "llm: --tokens takes ids separated by commas, got '%s'\n", ids_arg);
      goto done;
    }
  } else {
    if (!have_tok) {
      fprintf(stderr, "llm: %s: %s; give the prompt with --tokens\n", path, why);
      goto done;
    }
    const char *text = prompt ? prompt : "Once upon a time";
    if (chat && chat_prompt(w, path, chat_format, system, text, &chat_text) != 0)
      goto done;
    if (chat)
      text = chat_text;
    /* control tokens' text is the token, as llama.cpp's llama-cli reads a
     * prompt */
    n = llm_tokenizer_encode(&tok, text, strlen(text),
                             LLM_ENCODE_BOS | LLM_ENCODE_SPECIAL, ids, MAX_PROMPT);
    if (n <= 0) {
      fprintf(
          stderr,
          "llm: %s: this file's tokenizer (%s) cannot encode the prompt, or it is over "
          "%d tokens; give the prompt with --tokens\n",
          path, tok.kind == LLM_TOK_BPE ? "byte-level BPE" : "SentencePiece BPE",
          MAX_PROMPT);
      goto done;
    }
  }
  const int64_t t_max = sym_max(table, "T"), s_max = sym_max(table, "S");
  int64_t vocab = 0;
  if (kgrt_weights_vocab_size(w, &vocab, &err) != KGRT_STATUS_OK)
    vocab = 0;
  for (int i = 0; i < n; ++i)
    if (vocab > 0 && ids[i] >= vocab) {
      fprintf(stderr, "llm: token id %d is past the vocabulary (%lld)\n", ids[i],
              (long long)vocab);
      goto done;
    }
  if (t_max < 1 || s_max < 1 || n >= s_max) {
    fprintf(stderr,
            "llm: the prompt's %d tokens do not fit the table's context of %lld\n", n,
            (long long)s_max);
    goto done;
  }

  rank_job_t jobs[MAX_RANKS];
  char specs[MAX_RANKS][64];
  const int gpus = strcmp(device, "cuda") == 0 || strcmp(device, "hip") == 0;
  if (world > 1) {
    if ((comm = launcher_comm(world, me)) == NULL)
      goto done;
  } else if (tp > 1 &&
             kgrt_comm_create((uint32_t)tp, NULL, &comm, &err) != KGRT_STATUS_OK) {
    fprintf(stderr, "llm: %s\n", err.message);
    goto done;
  }
  for (long r = 0; r < tp; ++r) {
    snprintf(specs[r], sizeof specs[r], gpus ? "%s:%ld" : "%s", device, r);
    jobs[r] = (rank_job_t){.device = specs[r],
                           .path = path,
                           .table = table,
                           .weights = w,
                           .comm = comm,
                           .rank = (uint32_t)r,
                           .ids = ids,
                           .n = n,
                           .gen = gen,
                           .how = how,
                           .tok = have_tok ? &tok : NULL,
                           .echo = !chat,
                           .rc = 1};
  }
  if (world > 1) { /* this process's rank alone */
    rank_main(&jobs[me]);
    rc = jobs[me].rc;
    goto done;
  }
  if (tp == 1) {
    rank_main(&jobs[0]);
  } else {
    pthread_t threads[MAX_RANKS];
    long started = 0;
    while (started < tp &&
           pthread_create(&threads[started], NULL, rank_main, &jobs[started]) == 0)
      started++;
    if (started < tp) { /* the others would wait for it */
      fprintf(stderr, "llm: cannot start a thread for rank %ld\n", started);
      kgrt_comm_abort(comm, "the host could not start every rank");
    }
    for (long r = 0; r < started; ++r)
      pthread_join(threads[r], NULL);
  }
  rc = 0;
  for (long r = 0; r < tp; ++r)
    rc |= jobs[r].rc;
done:
  kgrt_comm_destroy(comm);
  kgrt_weights_close(w);
  if (have_tok)
    llm_tokenizer_free(&tok);
  free(chat_text);
  return rc;
}
