/* kgrt_emu_run.c - the emu interpreter's scheduler: decodes the kernel once,
 * runs the grid's workgroups on host threads (each its own LDS and waves),
 * and within a workgroup runs each wave until it reaches s_barrier or
 * s_endpgm, then the next; the barrier opens when every wave that has not
 * ended is at it. Sets up each wave as the hardware does (user SGPRs, the
 * workgroup id after them, v0 = the lane's id in the workgroup, EXEC of the
 * lanes that exist) and checks every access against the launch's ranges.
 *
 * Needs the decoder and executors of kgrt_emu_run.h. Gives kgrt_emu_run. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "kgrt_emu_run.h"
#include "kgrt_half.h"

#define KGRT_EMU_MAX_WAVE_INSTS 4000000000ull

float kgrt_emu_f16_to_f32(uint16_t h) {
  return kgrt_f16_to_f32(h);
}
uint16_t kgrt_emu_f32_to_f16(float f) {
  return kgrt_f32_to_f16(f);
}

int kgrt_emu_fail(kgrt_emu_ctx_t *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->err, c->err_size, fmt, ap);
  va_end(ap);
  return -1;
}

const kgrt_emu_range_t *kgrt_emu_find_range(const kgrt_emu_launch_t *l, uint64_t addr,
                                            uint64_t bytes) {
  uint32_t lo = 0, hi = l->num_ranges;
  while (lo < hi) { /* the last range starting at or before addr */
    uint32_t mid = (lo + hi) / 2;
    if (l->ranges[mid].lo <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0)
    return NULL;
  const kgrt_emu_range_t *r = &l->ranges[lo - 1];
  return addr + bytes <= r->hi && addr + bytes >= addr ? r : NULL;
}

int kgrt_emu_bad_access(kgrt_emu_ctx_t *c, const char *what, uint64_t addr,
                        uint64_t bytes, uint32_t lane) {
  const kgrt_emu_launch_t *l = c->l;
  /* name the nearest range below the address */
  const kgrt_emu_range_t *near = NULL;
  for (uint32_t i = 0; i < l->num_ranges; ++i)
    if (l->ranges[i].lo <= addr)
      near = &l->ranges[i];
  if (near != NULL)
    return kgrt_emu_fail(c,
                         "lane %u: out-of-bounds %s of %llu bytes at 0x%llx (%s 0x%llx, "
                         "%llu bytes%s)",
                         lane, what, (unsigned long long)bytes, (unsigned long long)addr,
                         near->arg >= 0    ? "buffer"
                         : near->arg == -1 ? "kernarg segment"
                                           : "code object",
                         (unsigned long long)near->lo,
                         (unsigned long long)(near->hi - near->lo),
                         near->writable ? "" : ", read-only");
  return kgrt_emu_fail(c, "lane %u: out-of-bounds %s of %llu bytes at 0x%llx", lane, what,
                       (unsigned long long)bytes, (unsigned long long)addr);
}

static int emu_step(kgrt_emu_ctx_t *c, kgrt_emu_wave_t *w, const kgrt_emu_inst_t *in) {
  const int op = in->opc;
  if (op <= KGRT_EMU_OP_S_LOAD)
    return kgrt_emu_exec_salu(c, w, in);
  if (op >= KGRT_EMU_OP_DS_LOAD)
    return kgrt_emu_exec_vmem(c, w, in);
  if (op >= KGRT_EMU_OP_V_WMMA_F32_16X16X16_F16)
    return kgrt_emu_exec_matrix(c, w, in);
  if (kgrt_emu_is_vfloat(op))
    return kgrt_emu_exec_vfloat(c, w, in);
  return kgrt_emu_exec_valu(c, w, in);
}

/* A v_dual_ pair: both halves read their sources before either writes (the
 * second may read what the first writes, as LLVM pairs them). */
static int emu_dual(kgrt_emu_ctx_t *c, kgrt_emu_wave_t *w, const kgrt_emu_inst_t *in) {
  uint32_t old[64], now[64];
  uint32_t *row = kgrt_emu_vdst(w, &in->dst[0], 0);
  memcpy(old, row, w->W * 4);
  if (emu_step(c, w, in) != 0)
    return -1;
  memcpy(now, row, w->W * 4);
  memcpy(row, old, w->W * 4);
  if (emu_step(c, w, in + 1) != 0)
    return -1;
  memcpy(row, now, w->W * 4);
  return 0;
}

/* Runs wave w until it ends or reaches a barrier. */
static int emu_run_wave(kgrt_emu_ctx_t *c, kgrt_emu_wave_t *w) {
  const kgrt_emu_code_t *code = c->code;
  uint64_t n = 0;
  int rc = 0;
  while (w->state == KGRT_EMU_RUNNING) {
    const uint64_t pc = w->pc;
    int32_t idx = pc >= code->lo && pc < code->hi && (pc & 3) == 0
                      ? code->at[(pc - code->lo) / 4]
                      : -1;
    if (idx < 0) {
      rc = kgrt_emu_fail(c,
                         "wave %u: pc 0x%llx (+0x%llx) is not an instruction of the "
                         "kernel",
                         w->id, (unsigned long long)pc,
                         (unsigned long long)(pc - code->lo));
      break;
    }
    const kgrt_emu_inst_t *in = &code->insts[idx];
    w->pc = pc + in->size;
    ++n;
    if (in->opc == KGRT_EMU_OP_COUNT)
      rc = kgrt_emu_fail(c, "unknown instruction");
    else if (in->opc == KGRT_EMU_OP_NOP)
      continue;
    else if (in->opc == KGRT_EMU_OP_ENDPGM)
      w->state = KGRT_EMU_DONE;
    else if (in->opc == KGRT_EMU_OP_BARRIER)
      w->state = KGRT_EMU_AT_BARRIER;
    else if (in->opc == KGRT_EMU_OP_S_WAITCNT) {
      if (w->npend > 0)
        kgrt_emu_pend_wait(w, in->offset, in->offset1);
    } else {
      /* a register a pending load writes: a missing s_waitcnt */
      if (w->npend > 0 && (kgrt_emu_pend_check(c, w, in) != 0 ||
                           (in->dual && kgrt_emu_pend_check(c, w, in + 1) != 0)))
        rc = -1;
      else
        rc = in->dual ? emu_dual(c, w, in) : emu_step(c, w, in);
      if (rc == 0 && (in->opc == KGRT_EMU_OP_S_LOAD || in->opc >= KGRT_EMU_OP_DS_LOAD))
        kgrt_emu_pend_issue(c, w, in, idx, pc);
    }
    if (rc != 0) {
      char msg[320];
      snprintf(msg, sizeof msg, "%s", c->err);
      kgrt_emu_fail(c, "workgroup %u wave %u: pc 0x%llx (+0x%llx) %s: %s", c->wg, w->id,
                    (unsigned long long)pc, (unsigned long long)(pc - code->lo),
                    code->text[idx] ? code->text[idx] : "?", msg);
      break;
    }
    if (n > KGRT_EMU_MAX_WAVE_INSTS) {
      rc = kgrt_emu_fail(c,
                         "workgroup %u wave %u: over %llu instructions (a loop that "
                         "does not end?)",
                         c->wg, w->id, (unsigned long long)KGRT_EMU_MAX_WAVE_INSTS);
      break;
    }
  }
  c->insts += n;
  return rc;
}

/* The state every thread needs: the waves' register files. */
typedef struct emu_worker {
  kgrt_emu_ctx_t ctx;
  kgrt_emu_wave_t *waves;
  uint32_t nwaves;
  uint32_t *vfile;
  unsigned char *scratch;
  uint32_t next_wg_stride, first_wg;
  double cpu_s; /* the thread's CPU seconds */
  int rc;
  char err[512];
} emu_worker_t;

static int emu_run_workgroup(emu_worker_t *wk, uint32_t wg) {
  kgrt_emu_ctx_t *c = &wk->ctx;
  const kgrt_emu_launch_t *l = c->l;
  const kgrt_emu_kernel_t *k = l->kernel;
  const uint32_t W = k->wave_size;
  c->wg = wg;
  memset(c->lds, 0, c->lds_bytes);
  uint32_t user[16];
  const uint32_t nuser = kgrt_emu_user_sgprs(k, l->kernarg, user);
  for (uint32_t i = 0; i < wk->nwaves; ++i) {
    kgrt_emu_wave_t *w = &wk->waves[i];
    memset(w->s, 0, sizeof w->s);
    for (uint32_t u = 0; u < nuser && u < 16; ++u)
      w->s[u] = user[u];
    uint32_t next = nuser;
    if (k->wg_id[0])
      w->s[next++] = wg;
    if (k->wg_id[1])
      w->s[next++] = 0;
    if (k->wg_id[2])
      w->s[next++] = 0;
    const uint32_t first = i * W;
    const uint32_t lanes = l->block_x - first < W ? l->block_x - first : W;
    kgrt_emu_set_exec(w, lanes >= 64 ? ~0ull : (1ull << lanes) - 1);
    memset(w->v, 0, (size_t)w->nv * W * 4);
    if (w->a != NULL)
      memset(w->a, 0, (size_t)w->na * W * 4);
    for (uint32_t lane = 0; lane < W; ++lane)
      w->v[lane] = first + lane < l->block_x ? first + lane : 0; /* x; y = z = 0 */
    w->scc = 0;
    w->npend = 0;
    memset(w->pend_v, 0, sizeof w->pend_v);
    memset(w->pend_a, 0, sizeof w->pend_a);
    memset(w->pend_s, 0, sizeof w->pend_s);
    w->pc = k->entry;
    w->state = KGRT_EMU_RUNNING;
  }
  for (;;) {
    uint32_t running = 0, waiting = 0;
    for (uint32_t i = 0; i < wk->nwaves; ++i) {
      kgrt_emu_wave_t *w = &wk->waves[i];
      if (w->state == KGRT_EMU_RUNNING && emu_run_wave(c, w) != 0)
        return -1;
    }
    for (uint32_t i = 0; i < wk->nwaves; ++i) {
      running += wk->waves[i].state == KGRT_EMU_RUNNING;
      waiting += wk->waves[i].state == KGRT_EMU_AT_BARRIER;
    }
    if (waiting == 0 && running == 0)
      return 0;
    for (uint32_t i = 0; i < wk->nwaves; ++i)
      if (wk->waves[i].state == KGRT_EMU_AT_BARRIER)
        wk->waves[i].state = KGRT_EMU_RUNNING;
  }
}

static double emu_thread_cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *emu_worker_main(void *arg) {
  emu_worker_t *wk = arg;
  const kgrt_emu_launch_t *l = wk->ctx.l;
  const double t0 = emu_thread_cpu();
  for (uint32_t wg = wk->first_wg; wg < l->grid_x; wg += wk->next_wg_stride)
    if (emu_run_workgroup(wk, wg) != 0) {
      wk->rc = -1;
      break;
    }
  wk->cpu_s += emu_thread_cpu() - t0;
  return NULL;
}

int kgrt_emu_run(const kgrt_emu_launch_t *l, const kgrt_allocator_t *alloc,
                 uint64_t *out_insts, double *out_cpu_s, char *err, size_t err_size) {
  *out_insts = 0;
  if (out_cpu_s != NULL)
    *out_cpu_s = 0;
  const kgrt_emu_kernel_t *k = l->kernel;
  if (l->block_x == 0 || l->block_x > 1024)
    return snprintf(err, err_size, "block of %u lanes", l->block_x), -1;
  kgrt_emu_code_t *code = (kgrt_emu_code_t *)k->code;
  if (code == NULL)
    return snprintf(err, err_size, "kernel not decoded"), -1;
  unsigned workers = l->workers;
  if (workers == 0) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    workers = n > 0 ? (unsigned)n : 1;
  }
  if (workers > l->grid_x)
    workers = l->grid_x ? l->grid_x : 1;
  const uint32_t W = k->wave_size, nwaves = (l->block_x + W - 1) / W;
  const uint32_t nv = k->accum_offset, na = k->agprs;
  const size_t per_wave = (size_t)(nv + na) * W;
  emu_worker_t *wks = kgrt_calloc(alloc, workers, sizeof *wks);
  if (wks == NULL)
    return snprintf(err, err_size, "out of host memory"), -1;
  int rc = 0;
  unsigned started = 0;
  pthread_t *threads = kgrt_calloc(alloc, workers, sizeof *threads);
  for (unsigned t = 0; t < workers && rc == 0; ++t) {
    emu_worker_t *wk = &wks[t];
    wk->ctx.l = l;
    wk->ctx.code = code;
    wk->ctx.lds_bytes = k->lds_bytes;
    wk->ctx.gfx9 = l->image->gfx9;
    wk->ctx.ftz_in = ((k->float_mode >> 4) & 3) == 0 || ((k->float_mode >> 4) & 3) == 2;
    wk->ctx.ftz_out = ((k->float_mode >> 4) & 3) <= 1;
    wk->ctx.dx10_clamp = k->dx10_clamp;
    wk->ctx.err = wk->err;
    wk->ctx.err_size = sizeof wk->err;
    wk->nwaves = nwaves;
    wk->first_wg = t;
    wk->next_wg_stride = workers;
    wk->ctx.lds = kgrt_calloc(alloc, k->lds_bytes + 16, 1);
    wk->waves = kgrt_calloc(alloc, nwaves, sizeof *wk->waves);
    wk->vfile = kgrt_calloc(alloc, per_wave * nwaves + 1, 4);
    wk->scratch = kgrt_calloc(alloc, (size_t)k->scratch_bytes * W * nwaves + 1, 1);
    if (wk->ctx.lds == NULL || wk->waves == NULL || wk->vfile == NULL ||
        threads == NULL || wk->scratch == NULL) {
      snprintf(err, err_size, "out of host memory");
      rc = -1;
      break;
    }
    for (uint32_t i = 0; i < nwaves; ++i) {
      kgrt_emu_wave_t *w = &wk->waves[i];
      w->W = W;
      w->nv = nv;
      w->na = na;
      w->v = wk->vfile + per_wave * i;
      w->a = na > 0 ? w->v + (size_t)nv * W : NULL;
      w->id = i;
      w->scratch = wk->scratch + (size_t)k->scratch_bytes * W * i;
      w->scratch_bytes = k->scratch_bytes;
    }
  }
  if (rc == 0) {
    if (workers == 1) {
      emu_worker_main(&wks[0]);
    } else {
      for (; started < workers; ++started)
        if (pthread_create(&threads[started], NULL, emu_worker_main, &wks[started]) != 0)
          break;
      if (started == 0)
        emu_worker_main(&wks[0]);
      for (unsigned t = 0; t < started; ++t)
        pthread_join(threads[t], NULL);
      /* workgroups of a thread that did not start */
      for (unsigned t = started ? started : 1; t < workers; ++t)
        emu_worker_main(&wks[t]);
    }
    /* the lowest failing workgroup's message */
    uint32_t worst = UINT32_MAX;
    for (unsigned t = 0; t < workers; ++t) {
      *out_insts += wks[t].ctx.insts;
      if (out_cpu_s != NULL)
        *out_cpu_s += wks[t].cpu_s;
      if (wks[t].rc != 0 && wks[t].ctx.wg < worst) {
        worst = wks[t].ctx.wg;
        snprintf(err, err_size, "%s", wks[t].err);
        rc = -1;
      }
    }
  }
  for (unsigned t = 0; t < workers; ++t) {
    kgrt_free(alloc, wks[t].ctx.lds);
    kgrt_free(alloc, wks[t].waves);
    kgrt_free(alloc, wks[t].vfile);
    kgrt_free(alloc, wks[t].scratch);
  }
  kgrt_free(alloc, threads);
  kgrt_free(alloc, wks);
  return rc;
}
