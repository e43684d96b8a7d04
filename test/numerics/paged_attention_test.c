/* paged_attention_test.c - paged_attention (lua/ops/attention.lua) on a
 * device against float64, over paged_attention.lua's two cases (GQA 8/2 of
 * D 64, block 16; GQA 32/8 of D 128, block 32, a window of 48).
 *   paged_attention_<dt> DEVICE...
 * Each sequence of a batch is a uid: its keys, values and queries are drawn
 * from the uid alone, so it is the same sequence in every batch it joins.
 * A run places each sequence's blocks at random in the pools (a fresh
 * shuffle a run), writes its earlier keys there and poisons every other slot
 * (NaN: a key read from a block the sequence does not own, or past its
 * context, fails); kv_append writes this step's keys at their slots in the
 * same plan. Outputs start poisoned (a fresh load a run). The batches: eight
 * decoding sequences of contexts 1 to 384 (the decode path), 32 of 129 to
 * 300 (the decode path over many row tiles: fewer splits), sequences of
 * 1 to 4 tokens (decode, several rows a sequence), prefill chunks of 1 to
 * 100 tokens beside single tokens (the flash path), six decoding sequences
 * before two chunks (case 1's decode_tokens: a decode launch and a flash
 * launch), each against the float64 attention of each sequence alone (NMSE:
 * f16 1e-6, bf16 1e-4; NaN fails). Then batch invariance: one sequence
 * alone, among 3 and among 8 (other neighbours, other blocks), on each path,
 * and (case 1) a decoding sequence beside chunks: its rows must be the same
 * bytes. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kgrt.h"
#include "kn.h"
#include KN_HEADER

typedef struct pa_case {
  int h, kvh, d, layers, blocks, bs, maxb, layer, window;
} pa_case_t;

/* paged_attention.lua's cases */
static const pa_case_t cases[] = {
    {8, 2, 64, 2, 600, 16, 24, 1, 0},
    {32, 8, 128, 1, 300, 32, 12, 0, 48},
};
enum { NCASES = 2, TMAX = 160, BMAX = 32, CTX_MAX = 384 };

/* A sequence of a batch: which one, its tokens this step, its context after
 * the step (its tokens at positions ctx - n .. ctx - 1). */
typedef struct pa_seq {
  int uid, n, ctx;
} pa_seq_t;

static int dtype, failures, checked;

/* A sequence's data for a case, from its uid alone: keys and values of
 * CTX_MAX positions [j][kvh][d], queries of TMAX tokens [i][h][d], as
 * stored (raw) and as doubles. */
typedef struct pa_data {
  kn_host_t k, v, q;
} pa_data_t;

static pa_data_t seq_data(const pa_case_t *c, int uid, int ci) {
  uint64_t s = 0x9e3779b97f4a7c15ull ^ ((uint64_t)uid << 20) ^ (uint64_t)ci;
  for (int i = 0; i < 4; i++)
    (void)kn_uniform(&s, 0, 1);
  pa_data_t d;
  d.k = kn_host_random(dtype, (int64_t)CTX_MAX * c->kvh * c->d, -1, 1, &s);
  d.v = kn_host_random(dtype, (int64_t)CTX_MAX * c->kvh * c->d, -1, 1, &s);
  d.q = kn_host_random(dtype, (int64_t)TMAX * c->h * c->d, -3, 3, &s);
  return d;
}

static void data_free(pa_data_t *d) {
  kn_host_free(&d->k);
  kn_host_free(&d->v);
  kn_host_free(&d->q);
}

/* Token i of a sequence: y[h] = softmax over the keys j <= pos (and j > pos
 * - window) of q[i, h] . k[j, h / G] / sqrt(D), times v. */
static void ref_token(const pa_case_t *c, const pa_data_t *d, int i, int pos, double *y) {
  const int g = c->h / c->kvh;
  double s[CTX_MAX];
  for (int h = 0; h < c->h; h++) {
    const int kh = h / g;
    const double *qr = d->q.v + ((int64_t)i * c->h + h) * c->d;
    double m = -INFINITY;
    for (int j = 0; j <= pos; j++) {
      s[j] = -INFINITY;
      if (c->window && j <= pos - c->window)
        continue;
      double dot = 0;
      const double *kr = d->k.v + ((int64_t)j * c->kvh + kh) * c->d;
      for (int e = 0; e < c->d; e++)
        dot += qr[e] * kr[e];
      s[j] = dot / sqrt((double)c->d);
      m = s[j] > m ? s[j] : m;
    }
    double *yr = y + (int64_t)h * c->d, l = 0;
    for (int e = 0; e < c->d; e++)
      yr[e] = 0;
    for (int j = 0; j <= pos; j++) {
      if (s[j] == -INFINITY)
        continue;
      const double p = exp(s[j] - m);
      l += p;
      const double *vr = d->v.v + ((int64_t)j * c->kvh + kh) * c->d;
      for (int e = 0; e < c->d; e++)
        yr[e] += p * vr[e];
    }
    for (int e = 0; e < c->d; e++)
      yr[e] /= l;
  }
}

static uint64_t shuffle_rng;

static void shuffle(int *a, int n) {
  for (int i = n - 1; i > 0; i--) {
    const int j = (int)(kn_uniform(&shuffle_rng, 0, 1) * (i + 1)) % (i + 1);
    const int t = a[i];
    a[i] = a[j];
    a[j] = t;
  }
}

static int bind(kgrt_model_t *m, const char *name, const void *p, size_t bytes) {
  kgrt_error_t err;
  if (kgrt_model_set_input(m, name, p, bytes, &err) != KGRT_STATUS_OK) {
    printf("FAIL bind %s: %s\n", name, err.message);
    failures++;
    return -1;
  }
  return 0;
}

/* The inputs of case ci for a batch, bound to m: the pools (the batch's
 * earlier keys in their blocks, NaN elsewhere), this step's keys, their
 * slots, the queries, positions, sequences, contexts and block tables. */
static int bind_case(kgrt_model_t *m, int ci, const pa_seq_t *seqs, int nseq,
                     pa_data_t *data) {
  const pa_case_t *c = &cases[ci];
  const size_t es = kn_dtype_size(dtype);
  const int64_t slots = (int64_t)c->blocks * c->bs;
  const int64_t pool_n = (int64_t)c->layers * c->kvh * slots * c->d;
  int T = 0;
  for (int s = 0; s < nseq; s++)
    T += seqs[s].n;
  unsigned char *kc = malloc((size_t)pool_n * es), *vc = malloc((size_t)pool_n * es);
  unsigned char *kn = malloc((size_t)T * c->kvh * c->d * es);
  unsigned char *vn = malloc((size_t)T * c->kvh * c->d * es);
  unsigned char *q = malloc((size_t)T * c->h * c->d * es);
  int32_t *slot = malloc(sizeof(int32_t) * (size_t)T),
          *pos = malloc(sizeof(int32_t) * (size_t)T);
  int32_t *seq = malloc(sizeof(int32_t) * (size_t)T), ctx[BMAX];
  int32_t *bt = malloc(sizeof(int32_t) * BMAX * (size_t)c->maxb);
  int *order = malloc(sizeof(int) * (size_t)c->blocks);
  int rc = -1;
  if (!kc || !vc || !kn || !vn || !q || !slot || !pos || !seq || !bt || !order)
    goto done;
  const uint16_t nan16 = dtype == KGRT_DTYPE_BF16 ? 0x7fc0 : 0x7e00;
  for (int64_t i = 0; i < pool_n; i++) {
    memcpy(kc + i * (int64_t)es, &nan16, 2);
    memcpy(vc + i * (int64_t)es, &nan16, 2);
  }
  for (int b = 0; b < c->blocks; b++)
    order[b] = b;
  shuffle(order, c->blocks);
  for (int i = 0; i < BMAX * c->maxb; i++)
    bt[i] = -1;
  int next = 0, t = 0;
  for (int s = 0; s < nseq; s++) {
    const pa_seq_t *sq = &seqs[s];
    const int nblk = (sq->ctx + c->bs - 1) / c->bs;
    for (int b = 0; b < nblk; b++)
      bt[s * c->maxb + b] = order[next++];
    ctx[s] = sq->ctx;
    const pa_data_t *d = &data[s];
    for (int j = 0; j < sq->ctx; j++) {
      const int64_t phys = (int64_t)bt[s * c->maxb + j / c->bs] * c->bs + j % c->bs;
      const int i = j - (sq->ctx - sq->n); /* this step's token, or < 0 */
      for (int kh = 0; kh < c->kvh; kh++) {
        const int64_t src = ((int64_t)j * c->kvh + kh) * c->d;
        unsigned char *dk, *dv;
        if (i >= 0) {
          const int64_t dst = ((int64_t)(t + i) * c->kvh + kh) * c->d;
          dk = kn + dst * (int64_t)es;
          dv = vn + dst * (int64_t)es;
        } else {
          const int64_t dst = (((int64_t)c->layer * c->kvh + kh) * slots + phys) * c->d;
          dk = kc + dst * (int64_t)es;
          dv = vc + dst * (int64_t)es;
        }
        memcpy(dk, (unsigned char *)d->k.raw + src * (int64_t)es, (size_t)c->d * es);
        memcpy(dv, (unsigned char *)d->v.raw + src * (int64_t)es, (size_t)c->d * es);
      }
      if (i >= 0) {
        slot[t + i] = (int32_t)phys;
        pos[t + i] = j;
        seq[t + i] = s;
        memcpy(q + (int64_t)(t + i) * c->h * c->d * (int64_t)es,
               (unsigned char *)d->q.raw + (int64_t)i * c->h * c->d * (int64_t)es,
               (size_t)c->h * c->d * es);
      }
    }
    t += sq->n;
  }
  const struct {
    const char *suffix;
    const void *p;
    size_t bytes;
  } ins[] = {{"kc", kc, (size_t)pool_n * es},
             {"vc", vc, (size_t)pool_n * es},
             {"kn", kn, (size_t)T * c->kvh * c->d * es},
             {"vn", vn, (size_t)T * c->kvh * c->d * es},
             {"q", q, (size_t)T * c->h * c->d * es},
             {"slots", slot, 4 * (size_t)T},
             {"pos", pos, 4 * (size_t)T},
             {"seq", seq, 4 * (size_t)T},
             {"ctx", ctx, 4 * (size_t)nseq},
             {"bt", bt, 4 * (size_t)nseq * (size_t)c->maxb}};
  rc = 0;
  for (size_t i = 0; i < sizeof ins / sizeof ins[0] && rc == 0; i++) {
    char name[64];
    snprintf(name, sizeof name, "c%d_%s", ci, ins[i].suffix);
    rc = bind(m, name, ins[i].p, ins[i].bytes);
  }
done:
  if (rc != 0 && kc == NULL)
    printf("FAIL out of memory\n");
  free(kc);
  free(vc);
  free(kn);
  free(vn);
  free(q);
  free(slot);
  free(pos);
  free(seq);
  free(bt);
  free(order);
  return rc;
}

/* Runs a batch on a fresh load; out[ci] receives case ci's y [T, H, D] as
 * stored (T x H x D elements). Checks each case against float64. 0, or -1
 * after a FAIL line. */
static int run_batch(kgrt_device_t *dev, const char *spec, const char *what,
                     const pa_seq_t *seqs, int nseq, unsigned char **out) {
  kgrt_error_t err;
  kgrt_model_t *m = NULL;
  int T = 0, Q = 0, D = 0;
  for (int s = 0; s < nseq; s++) {
    T += seqs[s].n;
    Q = seqs[s].n > Q ? seqs[s].n : Q;
  }
  while (D < nseq && seqs[D].n == 1) /* the leading one-token sequences */
    D++;
  if (kgrt_model_load(dev, &KN_TABLE, &m, &err) != KGRT_STATUS_OK ||
      kgrt_model_set_dim(m, "T", T, &err) != KGRT_STATUS_OK ||
      kgrt_model_set_dim(m, "B", nseq, &err) != KGRT_STATUS_OK ||
      kgrt_model_set_dim(m, "Q", Q, &err) != KGRT_STATUS_OK ||
      kgrt_model_set_dim(m, "D", D, &err) != KGRT_STATUS_OK) {
    printf("FAIL %s %s: load: %s\n", spec, what, err.message);
    failures++;
    kgrt_model_unload(m);
    return -1;
  }
  pa_data_t data[NCASES][BMAX];
  for (int ci = 0; ci < NCASES; ci++)
    for (int s = 0; s < nseq; s++)
      data[ci][s] = seq_data(&cases[ci], seqs[s].uid, ci);
  int rc = 0;
  for (int ci = 0; ci < NCASES && rc == 0; ci++)
    rc = bind_case(m, ci, seqs, nseq, data[ci]);
  if (rc == 0 && kgrt_model_run(m, &err) != KGRT_STATUS_OK) {
    printf("FAIL %s %s: run: %s\n", spec, what, err.message);
    failures++;
    rc = -1;
  }
  const size_t es = kn_dtype_size(dtype);
  for (int ci = 0; ci < NCASES && rc == 0; ci++) {
    const pa_case_t *c = &cases[ci];
    const size_t bytes = (size_t)T * c->h * c->d * es;
    char name[32];
    snprintf(name, sizeof name, "c%d_y", ci);
    if (kgrt_model_get_output(m, name, out[ci], bytes, &err) != KGRT_STATUS_OK) {
      printf("FAIL %s %s: %s: %s\n", spec, what, name, err.message);
      failures++;
      rc = -1;
      break;
    }
    double num = 0, den = 0, *y = malloc(sizeof(double) * (size_t)c->h * c->d);
    int nan = 0, t = 0;
    for (int s = 0; s < nseq; s++)
      for (int i = 0; i < seqs[s].n; i++, t++) {
        ref_token(c, &data[ci][s], i, seqs[s].ctx - seqs[s].n + i, y);
        for (int e = 0; e < c->h * c->d; e++) {
          const double a = kn_load(out[ci], (int64_t)t * c->h * c->d + e, dtype);
          nan += isnan(a) || isinf(a);
          num += (a - y[e]) * (a - y[e]);
          den += y[e] * y[e];
        }
      }
    free(y);
    const double nmse = num / (den > 0 ? den : 1);
    const double bound = dtype == KGRT_DTYPE_BF16 ? 1e-4 : 1e-6;
    checked++;
    if (nan || !(nmse <= bound)) {
      printf("FAIL %s %s case %d: NMSE %.3g (bound %.0e), %d NaN or inf\n", spec, what,
             ci, nmse, bound, nan);
      failures++;
    } else {
      printf("ok   %s %s case %d: T %d B %d Q %d D %d NMSE %.3g\n", spec, what, ci, T,
             nseq, Q, D, nmse);
    }
  }
  for (int ci = 0; ci < NCASES; ci++)
    for (int s = 0; s < nseq; s++)
      data_free(&data[ci][s]);
  kgrt_model_unload(m);
  return rc;
}

/* Sequence `at` of batch seqs: its rows of out (case ci). */
static const unsigned char *rows_of(const pa_seq_t *seqs, int at, int ci,
                                    unsigned char *const *out) {
  const pa_case_t *c = &cases[ci];
  int64_t t = 0;
  for (int s = 0; s < at; s++)
    t += seqs[s].n;
  return out[ci] + t * c->h * c->d * (int64_t)kn_dtype_size(dtype);
}

/* One sequence alone, among 3 and among 8: the same bytes (cases c0 on). */
static void check_invariance(kgrt_device_t *dev, const char *spec, const char *path,
                             int c0, const pa_seq_t *alone, const pa_seq_t *b3, int at3,
                             const pa_seq_t *b8, int n8, int at8) {
  unsigned char *o1[NCASES], *o3[NCASES], *o8[NCASES];
  const size_t es = kn_dtype_size(dtype);
  for (int ci = 0; ci < NCASES; ci++) {
    const size_t n = (size_t)TMAX * cases[ci].h * cases[ci].d * es;
    o1[ci] = malloc(n);
    o3[ci] = malloc(n);
    o8[ci] = malloc(n);
  }
  char what[64];
  snprintf(what, sizeof what, "%s alone", path);
  int rc = run_batch(dev, spec, what, alone, 1, o1);
  snprintf(what, sizeof what, "%s among 3", path);
  rc = rc || run_batch(dev, spec, what, b3, 3, o3);
  snprintf(what, sizeof what, "%s among %d", path, n8);
  rc = rc || run_batch(dev, spec, what, b8, n8, o8);
  for (int ci = c0; ci < NCASES && rc == 0; ci++) {
    const size_t bytes = (size_t)alone->n * cases[ci].h * cases[ci].d * es;
    const unsigned char *a = rows_of(alone, 0, ci, o1);
    checked++;
    if (memcmp(a, rows_of(b3, at3, ci, o3), bytes) != 0 ||
        memcmp(a, rows_of(b8, at8, ci, o8), bytes) != 0) {
      printf("FAIL %s %s case %d: the sequence's rows differ with other neighbours\n",
             spec, path, ci);
      failures++;
    } else {
      printf("ok   %s %s case %d: the same bytes alone, among 3 and among %d\n", spec,
             path, ci, n8);
    }
  }
  for (int ci = 0; ci < NCASES; ci++) {
    free(o1[ci]);
    free(o3[ci]);
    free(o8[ci]);
  }
}

static void run_device(const char *spec) {
  kgrt_error_t err;
  kgrt_device_t *dev = NULL;
  if (kgrt_device_open(spec, NULL, &dev, &err) != KGRT_STATUS_OK) {
    printf("FAIL %s: %s\n", spec, err.message);
    failures++;
    return;
  }
  unsigned char *out[NCASES];
  const size_t es = kn_dtype_size(dtype);
  for (int ci = 0; ci < NCASES; ci++)
    out[ci] = malloc((size_t)TMAX * cases[ci].h * cases[ci].d * es);
  /* decode: one token each, contexts 1 to 384 */
  static const pa_seq_t decode8[] = {{1, 1, 1},   {2, 1, 17},  {3, 1, 64}, {4, 1, 65},
                                     {5, 1, 200}, {6, 1, 384}, {7, 1, 33}, {8, 1, 129}};
  run_batch(dev, spec, "decode x8", decode8, 8, out);
  /* decode, 32 sequences of contexts 129 to 300: row tiles enough that the
   * first splits alone take keys (attention.hip's nsplit) where the target
   * splits a few sequences' contexts more ways */
  pa_seq_t decode32[32];
  for (int s = 0; s < 32; s++)
    decode32[s] = (pa_seq_t){40 + s, 1, 129 + s * 37 % 172};
  run_batch(dev, spec, "decode x32", decode32, 32, out);
  /* decode, several tokens a sequence (at most 16 / G = 4) */
  static const pa_seq_t multi[] = {
      {9, 2, 2}, {10, 4, 100}, {11, 3, 257}, {12, 4, 4}, {13, 1, 50}};
  run_batch(dev, spec, "decode multi", multi, 5, out);
  /* prefill chunks beside decoding sequences */
  static const pa_seq_t mixed[] = {
      {14, 1, 300}, {15, 37, 37}, {16, 100, 150}, {17, 2, 384}, {18, 20, 20}};
  run_batch(dev, spec, "prefill mixed", mixed, 5, out);
  /* decoding sequences first, then prefill chunks: case 1's decode_tokens
   * puts the first six on the decode path, the rest on the flash path */
  static const pa_seq_t lead[] = {{50, 1, 300}, {51, 1, 17},  {52, 1, 129},  {53, 1, 64},
                                  {54, 1, 1},   {55, 1, 384}, {56, 40, 100}, {57, 3, 3}};
  run_batch(dev, spec, "decode beside prefill", lead, 8, out);
  /* batch invariance, on each path */
  static const pa_seq_t d1[] = {{20, 1, 250}};
  static const pa_seq_t d3[] = {{21, 1, 40}, {20, 1, 250}, {22, 1, 384}};
  static const pa_seq_t d8[] = {{23, 1, 3},  {24, 1, 300}, {25, 1, 77}, {26, 1, 128},
                                {27, 1, 16}, {20, 1, 250}, {28, 1, 1},  {29, 1, 200}};
  check_invariance(dev, spec, "decode", 0, d1, d3, 1, d8, 8, 5);
  /* a decoding sequence beside prefill chunks takes the decode path (case 1,
   * decode_tokens): the bytes it gets among decoding sequences alone */
  static const pa_seq_t m3[] = {{21, 1, 40}, {20, 1, 250}, {60, 30, 200}};
  static const pa_seq_t m8[] = {{23, 1, 3},   {24, 1, 300}, {25, 1, 77}, {20, 1, 250},
                                {26, 1, 128}, {61, 50, 50}, {62, 2, 90}, {63, 7, 7}};
  check_invariance(dev, spec, "decode beside prefill", 1, d1, m3, 1, m8, 8, 3);
  static const pa_seq_t p1[] = {{30, 30, 200}};
  static const pa_seq_t p3[] = {{31, 5, 90}, {32, 60, 60}, {30, 30, 200}};
  static const pa_seq_t p8[] = {{33, 1, 17}, {34, 7, 300}, {30, 30, 200}, {35, 33, 40},
                                {36, 2, 2},  {37, 1, 384}, {38, 19, 19},  {39, 3, 64}};
  check_invariance(dev, spec, "prefill", 0, p1, p3, 2, p8, 8, 2);
  for (int ci = 0; ci < NCASES; ci++)
    free(out[ci]);
  kgrt_device_close(dev);
}

#define STR2(x) #x
#define STR(x) STR2(x)

int main(int argc, char **argv) {
  dtype = kn_dtype_parse(STR(KN_DTYPE));
  shuffle_rng = 0x243f6a8885a308d3ull;
  if (argc < 2) {
    fprintf(stderr, "usage: paged_attention_%s DEVICE...\n", STR(KN_DTYPE));
    return 2;
  }
  for (int i = 1; i < argc; i++)
    run_device(argv[i]);
  printf("paged_attention %s: %d checked, %d failed\n", STR(KN_DTYPE), checked, failures);
  if (checked == 0)
    return 1;
  return failures != 0;
}
