/* test_llama_tp.c - the bf16 test Llama split over 2 and 4 ranks (tensor
 * parallel, lua/models/llama.lua's tp) and over 2 (pipeline parallel, its
 * pp: a layer on each rank) against the same model whole, on sim devices: one thread per
 * rank, each with its own device, all joined to one communicator (the sim's in-process
 * exchange), each binding its part of the same GGUF file. A 37-token prefill, then 16
 * decode steps fed the whole model's tokens: every rank's logits within NMSE 1e-4 of the
 * whole model's and of the float64 reference, every rank's greedy token the whole model's
 * wherever its best two logits are far enough apart to call; then the same
 * decode as a device-resident loop on every rank (kgrt_model_run_steps),
 * whose tokens must be the host-driven loop's. Also, on a sim spec: a split
 * table refuses to run or bind before it joins, and a rank whose run fails
 * breaks the communicator instead of leaving the others waiting.
 *
 * Usage: test_llama_tp [--ranks 2,4] [DEVICE_SPEC...] (default sim:gfx1100 and
 * sim:gfx942; ranks 2 (tp and pp) and 4 (tp)). Rank r runs on the spec itself for sim,
 * and on GPU r for a spec of "cuda" or "hip" (the whole model on GPU 0). */
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kgrt.h"
#include "kgrt_weights.h"
#include "llama_bf16.h"
#include "llama_pp2.h"
#include "llama_tp2.h"
#include "llama_tp4.h"
#include "llm_model.h"
#include "test.h"
#include "weights_writer.h"

enum { PROMPT = 37, STEPS = 16, RUNS = STEPS + 1, MAX_RANKS = 4, VOCAB = LLM_TINY_VOCAB };

static const llm_config_t config = LLM_TINY_BF16; /* llama_bf16.lua's */
static const double nmse_bound = 1e-4;

/* What every rank runs: the tokens of each run (the prompt, then the whole
 * model's greedy tokens), and what it gives back. */
typedef struct schedule {
  int32_t prompt[PROMPT];
  int32_t tokens[RUNS]; /* run r + 1 feeds tokens[r] */
} schedule_t;

typedef struct rank_job {
  const char *spec, *path;
  const kgrt_model_table_t *table;
  const schedule_t *sched;
  kgrt_comm_t *comm;
  uint32_t rank;
  float *logits;         /* RUNS x vocab */
  kgrt_memory_t held;    /* what the rank holds once joined and bound */
  int32_t tokens[RUNS];  /* next_token of each run */
  int32_t looped[STEPS]; /* the device-resident loop's tokens */
  kgrt_error_t err;      /* the first failure */
  int failed;
} rank_job_t;

#define JOB_OK(call)                                                                     \
  do {                                                                                   \
    if ((call) != KGRT_STATUS_OK) {                                                      \
      j->failed = __LINE__;                                                              \
      goto done;                                                                         \
    }                                                                                    \
  } while (0)

/* One rank (or the whole model, comm NULL): the host-driven runs, then the
 * device-resident loop. */
static void *rank_main(void *arg) {
  rank_job_t *j = arg;
  kgrt_error_t *err = &j->err;
  kgrt_device_t *dev = NULL;
  kgrt_model_t *m = NULL;
  kgrt_weights_t *w = NULL;
  const size_t V = (size_t)config.vocab;
  JOB_OK(kgrt_device_open(j->spec, NULL, &dev, err));
  JOB_OK(kgrt_model_load(dev, j->table, &m, err));
  if (j->comm != NULL)
    JOB_OK(kgrt_model_join(m, j->comm, j->rank, err));
  JOB_OK(kgrt_weights_open(j->path, NULL, &w, err));
  JOB_OK(kgrt_model_bind_weights(m, w, KGRT_BIND_REFUSE_UNUSED, err));
  kgrt_model_held_memory(m, &j->held);
  for (int r = 0; r < RUNS; ++r) {
    const int T = r == 0 ? PROMPT : 1, pos0 = r == 0 ? 0 : PROMPT + r - 1;
    const int32_t *tokens = r == 0 ? j->sched->prompt : &j->sched->tokens[r - 1];
    float *logits = j->logits + (size_t)r * V;
    for (size_t v = 0; v < V; ++v)
      logits[v] = NAN;
    JOB_OK(llm_run(m, tokens, T, pos0, err));
    JOB_OK(kgrt_model_get_output(m, "logits", logits, sizeof(float) * V, err));
    JOB_OK(kgrt_model_get_output(m, "next_token", &j->tokens[r], sizeof(int32_t), err));
  }
  /* the device-resident loop from the same prefill, its own tokens fed back */
  int32_t first = -1, zero = 0, pos = PROMPT;
  JOB_OK(kgrt_model_reset_state(m, err));
  JOB_OK(llm_run(m, j->sched->prompt, PROMPT, 0, err));
  JOB_OK(kgrt_model_get_output(m, "next_token", &first, sizeof first, err));
  JOB_OK(kgrt_model_set_dim(m, "T", 1, err));
  JOB_OK(kgrt_model_set_dim(m, "S", PROMPT + 1, err));
  JOB_OK(kgrt_model_set_input(m, "tokens", &first, sizeof first, err));
  JOB_OK(kgrt_model_set_input(m, "pos", &pos, sizeof pos, err));
  JOB_OK(kgrt_model_set_input(m, "last", &zero, sizeof zero, err));
  JOB_OK(kgrt_model_link(m, "next_token", "tokens", err));
  JOB_OK(kgrt_model_link(m, "next_pos", "pos", err));
  JOB_OK(kgrt_model_step_dim(m, "S", 1, err));
  JOB_OK(kgrt_model_run_steps(m, STEPS, "next_token", j->looped, sizeof j->looped, err));
done:
  kgrt_weights_close(w);
  kgrt_model_unload(m);
  kgrt_device_close(dev);
  return NULL;
}

/* The whole model's run (the schedule's tokens are its own), then each rank
 * of the split table on `spec`; their logits and tokens compared. */
/* Ranks as processes (procs): what each child gives back lives in memory the
 * parent shares with it. */
typedef struct proc_shared {
  rank_job_t jobs[MAX_RANKS];
  float logits[MAX_RANKS][RUNS * VOCAB];
} proc_shared_t;

/* Rank r of `ranks` in a child process, its communicator made from `id`:
 * the child's exit status says only that it ran; the job says how. */
static pid_t start_rank_process(const kgrt_comm_id_t *id, rank_job_t *j, uint32_t ranks) {
  const pid_t pid = fork();
  if (pid != 0)
    return pid;
  kgrt_comm_t *comm = NULL;
  if (kgrt_comm_init_rank(id, j->rank, ranks, 20000, NULL, &comm, &j->err) !=
      KGRT_STATUS_OK) {
    j->failed = __LINE__;
    _exit(0);
  }
  j->comm = comm;
  rank_main(j);
  kgrt_comm_destroy(comm);
  _exit(0);
}

/* No segment of a communicator this process made is left in /dev/shm. */
static int shm_left(void) {
  char cmd[96];
  snprintf(cmd, sizeof cmd, "ls /dev/shm 2>/dev/null | grep -q '^kgrt-%ld-'",
           (long)getpid());
  return system(cmd) == 0;
}

/* The whole model's run (the schedule's tokens are its own), then each rank
 * of the split table on `spec`, as threads of this process or (procs) as
 * processes; their logits and tokens compared. */
static void run_split(const char *spec, const char *path, const llm_model_t *lm,
                      const kgrt_model_table_t *split, const char *mode, uint32_t ranks,
                      int procs) {
  const int V = config.vocab;
  schedule_t sched;
  rank_job_t whole = {0}, local_jobs[MAX_RANKS];
  memset(local_jobs, 0, sizeof local_jobs);
  proc_shared_t *shared = NULL;
  if (procs) {
    void *p = mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
      TEST_FAIL_("mmap: no shared memory for the ranks' results");
      return;
    }
    shared = p;
    memset(shared, 0, sizeof *shared);
  }
  rank_job_t *jobs = procs ? shared->jobs : local_jobs;
  kgrt_comm_t *comm = NULL;
  kgrt_error_t err = {0};
  llm_ref_t ref = {0};
  double *want = malloc(sizeof(double) * (size_t)RUNS * (size_t)V);
  whole.logits = malloc(sizeof(float) * (size_t)RUNS * (size_t)V);
  for (uint32_t r = 0; r < ranks; ++r)
    jobs[r].logits =
        procs ? shared->logits[r] : malloc(sizeof(float) * (size_t)RUNS * (size_t)V);
  uint32_t s = 12345;
  for (int t = 0; t < PROMPT; ++t) {
    s = s * 1664525u + 1013904223u;
    sched.prompt[t] = (int32_t)((s >> 8) % (uint32_t)V);
  }
  /* the whole model first, feeding its own tokens; the reference too */
  if (want == NULL || whole.logits == NULL || llm_ref_init(&ref, lm) != 0) {
    TEST_FAIL_("out of memory");
    goto done;
  }
  whole.spec = spec, whole.path = path, whole.table = &kgen_llama_bf16;
  whole.sched = &sched;
  {
    /* the whole model's tokens are its schedule: run it once step by step */
    kgrt_device_t *dev = NULL;
    kgrt_model_t *m = NULL;
    kgrt_weights_t *w = NULL;
    int ok = kgrt_device_open(spec, NULL, &dev, &err) == KGRT_STATUS_OK &&
             kgrt_model_load(dev, &kgen_llama_bf16, &m, &err) == KGRT_STATUS_OK &&
             kgrt_weights_open(path, NULL, &w, &err) == KGRT_STATUS_OK &&
             kgrt_model_bind_weights(m, w, 0, &err) == KGRT_STATUS_OK;
    for (int r = 0; r < RUNS && ok; ++r) {
      const int T = r == 0 ? PROMPT : 1, pos0 = r == 0 ? 0 : PROMPT + r - 1;
      ok = llm_run(m, r == 0 ? sched.prompt : &sched.tokens[r - 1], T, pos0, &err) ==
               KGRT_STATUS_OK &&
           kgrt_model_get_output(m, "next_token", &sched.tokens[r], sizeof(int32_t),
                                 &err) == KGRT_STATUS_OK;
    }
    kgrt_weights_close(w);
    kgrt_model_unload(m);
    kgrt_device_close(dev);
    if (!ok) {
      TEST_FAIL_("%s: the whole model: %s", spec, err.message);
      goto done;
    }
  }
  rank_main(&whole); /* its logits over the schedule, and its own loop */
  if (whole.failed) {
    TEST_FAIL_("%s: the whole model (line %d): %s", spec, whole.failed,
               whole.err.message);
    goto done;
  }
  for (int r = 0; r < RUNS; ++r)
    if (llm_ref_forward(&ref, r == 0 ? sched.prompt : &sched.tokens[r - 1],
                        r == 0 ? PROMPT : 1, r == 0 ? 0 : PROMPT + r - 1,
                        want + (size_t)r * (size_t)V) != 0) {
      TEST_FAIL_("the reference failed at run %d", r);
      goto done;
    }
  /* the ranks, each in its own thread or its own process */
  kgrt_comm_id_t id;
  if (procs ? kgrt_comm_id_create("sim", &id, &err) != KGRT_STATUS_OK
            : kgrt_comm_create(ranks, NULL, &comm, &err) != KGRT_STATUS_OK) {
    TEST_FAIL_("the communicator: %s", err.message);
    goto done;
  }
  pthread_t threads[MAX_RANKS];
  pid_t pids[MAX_RANKS];
  char rank_specs[MAX_RANKS][64];
  for (uint32_t r = 0; r < ranks; ++r) {
    const size_t kind = strncmp(spec, "cuda", 4) == 0  ? 4
                        : strncmp(spec, "hip", 3) == 0 ? 3
                                                       : 0;
    if (kind > 0 && (spec[kind] == '\0' || spec[kind] == ',')) { /* GPU r, the options */
      snprintf(rank_specs[r], sizeof rank_specs[r], "%.*s:%u%s", (int)kind, spec, r,
               spec + kind);
      jobs[r].spec = rank_specs[r];
    } else {
      jobs[r].spec = spec;
    }
    jobs[r].path = path, jobs[r].table = split;
    jobs[r].sched = &sched, jobs[r].comm = comm, jobs[r].rank = r;
    if (procs) {
      fflush(stdout);
      pids[r] = start_rank_process(&id, &jobs[r], ranks);
      if (pids[r] < 0) {
        TEST_FAIL_("cannot start rank %u's process", r);
        for (uint32_t q = 0; q < r; ++q)
          waitpid(pids[q], NULL, 0);
        goto done;
      }
    } else if (jobs[r].logits == NULL ||
               pthread_create(&threads[r], NULL, rank_main, &jobs[r])) {
      TEST_FAIL_("cannot start rank %u", r);
      for (uint32_t q = 0; q < r; ++q)
        pthread_join(threads[q], NULL);
      goto done;
    }
  }
  for (uint32_t r = 0; r < ranks; ++r) {
    int status = 0;
    if (!procs)
      pthread_join(threads[r], NULL);
    else if (waitpid(pids[r], &status, 0) != pids[r] || !WIFEXITED(status) ||
             WEXITSTATUS(status) != 0)
      TEST_FAIL_("%s %s %u: rank %u's process ended abnormally (status %d)", spec, mode,
                 ranks, r, status);
  }
  if (procs)
    CHECK(!shm_left());
  int called = 0;
  /* a pipeline's rank holds its own stage's weights and KV cache: rank 0
   * the embedding and layer 0, rank 1 layer 1 and the head (the tiny
   * model's 2 layers); together about the whole model's */
  if (strcmp(mode, "pp") == 0 && !jobs[0].failed && !jobs[1].failed) {
    const kgrt_memory_t *a = &jobs[0].held, *b = &jobs[1].held, *all = &whole.held;
    printf("%s pp %u: weights %llu + %llu bytes (whole %llu), state %llu + %llu (whole "
           "%llu)\n",
           spec, ranks, (unsigned long long)a->weights, (unsigned long long)b->weights,
           (unsigned long long)all->weights, (unsigned long long)a->state,
           (unsigned long long)b->state, (unsigned long long)all->state);
    CHECK(a->weights < all->weights && b->weights < all->weights);
    CHECK(a->weights + b->weights >= all->weights);
    CHECK(a->state < all->state && b->state < all->state);
  }
  /* a tensor-parallel rank holds its part of every weight but the norms
   * (the embedding and LM head its rows of the vocabulary), and of K and V
   * half at 4 ranks (2 KV heads): within 8% of a 1/ranks share */
  if (strcmp(mode, "tp") == 0 && !jobs[0].failed) {
    const uint64_t w = jobs[0].held.weights, all = whole.held.weights;
    printf("%s tp %u: weights %llu bytes a rank (whole %llu: x %.3f of a share)\n", spec,
           ranks, (unsigned long long)w, (unsigned long long)all,
           (double)w * ranks / (double)all);
    CHECK((double)w * ranks <= 1.08 * (double)all);
  }
  for (uint32_t r = 0; r < ranks; ++r) {
    rank_job_t *j = &jobs[r];
    test_checks++;
    if (j->failed) {
      TEST_FAIL_("%s rank %u of %u (line %d): %s", spec, r, ranks, j->failed,
                 j->err.message);
      continue;
    }
    for (int k = 0; k < RUNS; ++k) {
      const float *got = j->logits + (size_t)k * (size_t)V;
      const double *ref = want + (size_t)k * (size_t)V;
      double whole_ref[VOCAB];
      for (int v = 0; v < V; ++v)
        whole_ref[v] = whole.logits[(size_t)k * (size_t)V + (size_t)v];
      const double vs_ref = llm_nmse(got, ref, V), vs_whole = llm_nmse(got, whole_ref, V);
      int best = -1;
      double gap;
      const int sure = llm_token_clear(whole_ref, V, nmse_bound, &best, &gap);
      called += sure && r == 0;
      test_checks += 3;
      if (!(vs_ref <= nmse_bound))
        TEST_FAIL_("%s rank %u/%u run %d: NMSE %.3g vs the reference", spec, r, ranks, k,
                   vs_ref);
      if (!(vs_whole <= nmse_bound))
        TEST_FAIL_("%s rank %u/%u run %d: NMSE %.3g vs the whole model", spec, r, ranks,
                   k, vs_whole);
      if (sure && j->tokens[k] != sched.tokens[k])
        TEST_FAIL_("%s rank %u/%u run %d: token %d, the whole model's %d", spec, r, ranks,
                   k, j->tokens[k], sched.tokens[k]);
      if (r == 0)
        printf("%s %s %u%s run %2d: NMSE %.3g vs whole, %.3g vs float64; token %d%s\n",
               spec, mode, ranks, procs ? " processes" : "", k, vs_whole, vs_ref,
               j->tokens[k], sure ? "" : " (too close to call)");
    }
    /* every rank samples the same token from the same gathered logits; the
     * loop feeds its own tokens, so it is the host-driven runs (fed the whole
     * model's) while the tokens it was fed are the same */
    int fed_same = j->tokens[0] == sched.tokens[0];
    for (int k = 0; k < STEPS; ++k) {
      CHECK_EQ(j->looped[k], jobs[0].looped[k]);
      if (fed_same)
        CHECK_EQ(j->looped[k], j->tokens[k + 1]);
      fed_same = fed_same && j->looped[k] == sched.tokens[k + 1];
    }
  }
  test_checks++;
  if (called < RUNS / 2)
    TEST_FAIL_("%s %s %u: only %d of %d runs had a token clear enough to check", spec,
               mode, ranks, called, RUNS);
done:
  kgrt_comm_destroy(comm);
  llm_ref_free(&ref);
  free(want);
  free(whole.logits);
  if (procs)
    munmap(shared, sizeof *shared);
  else
    for (uint32_t r = 0; r < ranks; ++r)
      free(jobs[r].logits);
}

/* A pipeline's rank: no input or weight bound before it joins (it allocates
 * only those its own steps read, at join), no run. */
static void test_pipeline_join(const char *spec) {
  kgrt_error_t err = {0};
  kgrt_device_t *dev = NULL;
  kgrt_model_t *m = NULL;
  CHECK_EQ(kgrt_device_open(spec, NULL, &dev, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_load(dev, &kgen_llama_pp2, &m, &err), KGRT_STATUS_OK);
  if (m != NULL) {
    static unsigned char norm[4 * 256];
    int32_t tok = 1;
    CHECK_EQ(kgrt_model_set_weight(m, "blk_0_attn_norm_weight", norm, sizeof norm, &err),
             KGRT_STATUS_FAILED_PRECONDITION);
    CHECK(strstr(err.message, "pipeline of 2") != NULL);
    CHECK_EQ(kgrt_model_set_dim(m, "T", 1, &err), KGRT_STATUS_OK);
    CHECK_EQ(kgrt_model_set_input(m, "tokens", &tok, sizeof tok, &err),
             KGRT_STATUS_FAILED_PRECONDITION);
    CHECK_EQ(kgrt_model_run(m, &err), KGRT_STATUS_FAILED_PRECONDITION);
    CHECK(strstr(err.message, "kgrt_model_join") != NULL);
  }
  kgrt_model_unload(m);
  kgrt_device_close(dev);
}

/* A split table: no run and no binding before it joins; a communicator of
 * other ranks, or a rank taken twice, refused. */
static void test_join_rules(const char *spec, const char *path) {
  kgrt_error_t err = {0};
  kgrt_device_t *dev = NULL;
  kgrt_model_t *m = NULL;
  kgrt_weights_t *w = NULL;
  kgrt_comm_t *comm3 = NULL;
  CHECK_EQ(kgrt_device_open(spec, NULL, &dev, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_load(dev, &kgen_llama_tp2, &m, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_weights_open(path, NULL, &w, &err), KGRT_STATUS_OK);
  if (m == NULL || w == NULL)
    goto done;
  CHECK_EQ(kgrt_model_bind_weights(m, w, 0, &err), KGRT_STATUS_FAILED_PRECONDITION);
  CHECK(strstr(err.message, "kgrt_model_join") != NULL);
  CHECK_EQ(kgrt_model_run(m, &err), KGRT_STATUS_FAILED_PRECONDITION);
  CHECK(strstr(err.message, "one rank of 2") != NULL);
  CHECK_EQ(kgrt_comm_create(3, NULL, &comm3, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_join(m, comm3, 0, &err), KGRT_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "communicator of 3") != NULL);
  CHECK_EQ(kgrt_comm_create(0, NULL, &comm3, &err), KGRT_STATUS_INVALID_ARGUMENT);
  CHECK(comm3 == NULL);
done:
  kgrt_comm_destroy(comm3);
  kgrt_weights_close(w);
  kgrt_model_unload(m);
  kgrt_device_close(dev);
}

/* Rank 1 never binds its weights, so its first run fails: it breaks the
 * communicator, and rank 0, waiting in its first all_reduce, fails too
 * instead of hanging. */
typedef struct broken_job {
  const char *spec, *path;
  kgrt_comm_t *comm;
  uint32_t rank;
  kgrt_status_t join, run;
  kgrt_error_t err;
} broken_job_t;

static void *broken_main(void *arg) {
  broken_job_t *j = arg;
  kgrt_device_t *dev = NULL;
  kgrt_model_t *m = NULL;
  kgrt_weights_t *w = NULL;
  int32_t tok = 1;
  j->run = KGRT_STATUS_INTERNAL;
  if (kgrt_device_open(j->spec, NULL, &dev, &j->err) ||
      kgrt_model_load(dev, &kgen_llama_tp2, &m, &j->err))
    goto done;
  j->join = kgrt_model_join(m, j->comm, j->rank, &j->err);
  if (j->join != KGRT_STATUS_OK)
    goto done;
  if (j->rank == 0 && (kgrt_weights_open(j->path, NULL, &w, &j->err) ||
                       kgrt_model_bind_weights(m, w, 0, &j->err)))
    goto done;
  j->run = llm_run(m, &tok, 1, 0, &j->err);
done:
  kgrt_weights_close(w);
  kgrt_model_unload(m);
  kgrt_device_close(dev);
  return NULL;
}

static void test_broken(const char *spec, const char *path) {
  kgrt_comm_t *comm = NULL;
  kgrt_error_t err;
  CHECK_EQ(kgrt_comm_create(2, NULL, &comm, &err), KGRT_STATUS_OK);
  if (comm == NULL)
    return;
  broken_job_t jobs[2] = {{spec, path, comm, 0, 0, 0, {0}},
                          {spec, path, comm, 1, 0, 0, {0}}};
  pthread_t t[2];
  for (int r = 0; r < 2; ++r)
    CHECK_EQ(pthread_create(&t[r], NULL, broken_main, &jobs[r]), 0);
  for (int r = 0; r < 2; ++r)
    pthread_join(t[r], NULL);
  CHECK_EQ(jobs[0].join, KGRT_STATUS_OK);
  CHECK_EQ(jobs[1].join, KGRT_STATUS_OK);
  CHECK_EQ(jobs[1].run, KGRT_STATUS_FAILED_PRECONDITION); /* not bound */
  CHECK_EQ(jobs[0].run, KGRT_STATUS_FAILED_PRECONDITION); /* the broken comm */
  CHECK(strstr(jobs[0].err.message, "broken by rank 1") != NULL);
  printf("broken: rank 0: %s\n", jobs[0].err.message);
  kgrt_comm_destroy(comm);
}

/* Ids: made for sim only; their text round-trips; anything else is refused. */
static void test_process_ids(void) {
  kgrt_error_t err = {0};
  kgrt_comm_id_t id, back;
  char text[KGRT_COMM_ID_TEXT];
  CHECK_EQ(kgrt_comm_id_create("cuda", &id, &err), KGRT_STATUS_UNAVAILABLE);
  CHECK(strstr(err.message, "sim only") != NULL);
  CHECK_EQ(kgrt_comm_id_create("sim", &id, &err), KGRT_STATUS_OK);
  kgrt_comm_id_text(&id, text);
  CHECK_EQ(strlen(text), (size_t)(2 * KGRT_COMM_ID_BYTES));
  CHECK_EQ(kgrt_comm_id_parse(text, &back, &err), KGRT_STATUS_OK);
  CHECK(memcmp(&id, &back, sizeof id) == 0);
  const char *bad[] = {"", "00", "zz", "../../etc"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i)
    CHECK_EQ(kgrt_comm_id_parse(bad[i], &back, &err), KGRT_STATUS_INVALID_ARGUMENT);
  /* a name that is not kgrt's (a path into /dev/shm's neighbours) */
  char edited[KGRT_COMM_ID_TEXT];
  memcpy(edited, text, sizeof edited);
  edited[2 * 16 + 1] = 'e'; /* '/' -> '.': the name's first byte, 0x2f -> 0x2e */
  CHECK_EQ(kgrt_comm_id_parse(edited, &back, &err), KGRT_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "not a communicator id") != NULL);
  kgrt_comm_t *comm = NULL;
  CHECK_EQ(kgrt_comm_init_rank(&id, 2, 2, 100, NULL, &comm, &err),
           KGRT_STATUS_INVALID_ARGUMENT);
  CHECK(comm == NULL);
  /* rank 1 alone: rank 0 never makes the exchange */
  CHECK_EQ(kgrt_comm_init_rank(&id, 1, 2, 200, NULL, &comm, &err),
           KGRT_STATUS_UNAVAILABLE);
  CHECK(strstr(err.message, "rank 0 made no communicator") != NULL);
}

static double seconds_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* What a rank process reports of a failure test. */
typedef struct proc_report {
  kgrt_status_t join, run;
  double run_s; /* the failing run's seconds */
  kgrt_error_t err;
} proc_report_t;

/* Rank `rank` of the tp2 table in this child: joins, then rank 1 (die) is
 * killed while rank 0 binds and runs into its first all_reduce. */
static void failing_rank(const char *spec, const char *path, const kgrt_comm_id_t *id,
                         uint32_t rank, uint32_t ranks, uint32_t timeout_ms, int die,
                         proc_report_t *out) {
  kgrt_device_t *dev = NULL;
  kgrt_model_t *m = NULL;
  kgrt_weights_t *w = NULL;
  kgrt_comm_t *comm = NULL;
  int32_t tok = 1;
  out->join = out->run = KGRT_STATUS_INTERNAL;
  if (kgrt_comm_init_rank(id, rank, ranks, timeout_ms, NULL, &comm, &out->err) ||
      kgrt_device_open(spec, NULL, &dev, &out->err) ||
      kgrt_model_load(dev, &kgen_llama_tp2, &m, &out->err))
    _exit(0);
  const double t0 = seconds_now();
  out->join = kgrt_model_join(m, comm, rank, &out->err);
  if (out->join != KGRT_STATUS_OK) {
    out->run_s = seconds_now() - t0;
    _exit(0);
  }
  if (die)
    kill(getpid(), SIGKILL); /* no kgrt_comm_destroy, no exit handlers */
  if (kgrt_weights_open(path, NULL, &w, &out->err) ||
      kgrt_model_bind_weights(m, w, 0, &out->err))
    _exit(0);
  const double t1 = seconds_now();
  out->run = llm_run(m, &tok, 1, 0, &out->err);
  out->run_s = seconds_now() - t1;
  kgrt_weights_close(w);
  kgrt_model_unload(m);
  kgrt_device_close(dev);
  kgrt_comm_destroy(comm);
  _exit(0);
}

static proc_report_t *shared_reports(int n) {
  void *p = mmap(NULL, sizeof(proc_report_t) * (size_t)n, PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return NULL;
  memset(p, 0, sizeof(proc_report_t) * (size_t)n);
  return p;
}

/* A rank killed after the join: the other's run fails within a few ticks
 * (its process not yet reaped: the parent waits for rank 0 first), naming
 * the dead rank; nothing is left in /dev/shm. */
static void test_process_killed(const char *spec, const char *path) {
  kgrt_error_t err = {0};
  kgrt_comm_id_t id;
  proc_report_t *rep = shared_reports(2);
  if (rep == NULL || kgrt_comm_id_create("sim", &id, &err) != KGRT_STATUS_OK) {
    TEST_FAIL_("killed rank: setup: %s", err.message);
    return;
  }
  pid_t pid[2];
  for (uint32_t r = 0; r < 2; ++r) {
    fflush(stdout);
    pid[r] = fork();
    if (pid[r] == 0)
      failing_rank(spec, path, &id, r, 2, 20000, r == 1, &rep[r]);
  }
  int status = 0;
  CHECK_EQ(waitpid(pid[0], &status, 0), pid[0]);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK_EQ(waitpid(pid[1], &status, 0), pid[1]);
  CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  CHECK_EQ(rep[0].join, KGRT_STATUS_OK);
  CHECK_EQ(rep[0].run, KGRT_STATUS_FAILED_PRECONDITION);
  CHECK(strstr(rep[0].err.message, "rank 1 (pid") != NULL);
  CHECK(strstr(rep[0].err.message, "ended without leaving") != NULL);
  CHECK(rep[0].run_s < 5.0);
  CHECK(!shm_left());
  printf("killed rank: rank 0 failed after %.2f s: %s\n", rep[0].run_s,
         rep[0].err.message);
  munmap(rep, sizeof(proc_report_t) * 2);
}

/* Rank 1 never starts: rank 0's join fails at its timeout, naming rank 1. */
static void test_process_absent(const char *spec) {
  kgrt_error_t err = {0};
  kgrt_comm_id_t id;
  proc_report_t *rep = shared_reports(1);
  if (rep == NULL || kgrt_comm_id_create("sim", &id, &err) != KGRT_STATUS_OK) {
    TEST_FAIL_("absent rank: setup: %s", err.message);
    return;
  }
  fflush(stdout);
  const pid_t pid = fork();
  if (pid == 0)
    failing_rank(spec, NULL, &id, 0, 2, 500, 0, &rep[0]);
  int status = 0;
  CHECK_EQ(waitpid(pid, &status, 0), pid);
  CHECK_EQ(rep[0].join, KGRT_STATUS_FAILED_PRECONDITION);
  CHECK(strstr(rep[0].err.message, "ranks absent after 500 ms: 1") != NULL);
  CHECK(rep[0].run_s >= 0.45 && rep[0].run_s < 5.0);
  CHECK(!shm_left());
  printf("absent rank: rank 0's join failed after %.2f s: %s\n", rep[0].run_s,
         rep[0].err.message);
  munmap(rep, sizeof(proc_report_t));
}

int main(int argc, char **argv) {
  char path[] = "/tmp/kgen_test_llama_tp_XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) {
    perror("mkstemp");
    return 1;
  }
  close(fd);
  llm_model_t lm;
  if (llm_model_init(&lm, &config, 1) != 0 || llm_model_write_gguf(&lm, path) != 0) {
    fprintf(stderr, "test_llama_tp: cannot write the model to %s\n", path);
    unlink(path);
    return 1;
  }
  int tp2 = 1, tp4 = 1, first = 1;
  if (argc > 2 && strcmp(argv[1], "--ranks") == 0) {
    tp2 = strstr(argv[2], "2") != NULL;
    tp4 = strstr(argv[2], "4") != NULL;
    first = 3;
  }
  const char *defaults[] = {"sim:gfx1100", "sim:gfx942"};
  const int n = argc > first ? argc - first : 2;
  for (int i = 0; i < n; ++i) {
    const char *spec = argc > first ? argv[first + i] : defaults[i];
    if (tp2)
      run_split(spec, path, &lm, &kgen_llama_tp2, "tp", 2, 0);
    if (tp4)
      run_split(spec, path, &lm, &kgen_llama_tp4, "tp", 4, 0);
    if (tp2)
      run_split(spec, path, &lm, &kgen_llama_pp2, "pp", 2, 0);
  }
  /* the runtime's rules, on the sim (two ranks of one GPU cannot join NCCL) */
  const char *one = argc > first ? argv[first] : defaults[0];
  if (strncmp(one, "sim", 3) == 0) {
    test_join_rules(one, path);
    test_pipeline_join(one);
    test_broken(one, path);
    /* ranks as processes, as a launcher starts them (kgrt_comm_init_rank) */
    if (tp2) {
      run_split(one, path, &lm, &kgen_llama_tp2, "tp", 2, 1);
      run_split(one, path, &lm, &kgen_llama_pp2, "pp", 2, 1);
    }
    test_process_ids();
    test_process_killed(one, path);
    test_process_absent(one);
  }
  unlink(path);
  llm_model_free(&lm);
  return TEST_DONE();
}
