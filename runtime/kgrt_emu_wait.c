/* kgrt_emu_wait.c - the emu's memory counters: a missing s_waitcnt is an
 * error. Memory instructions complete at once in the emu (their data is
 * there when they issue), but each is also kept pending on its counter as
 * the hardware counts it, until an s_waitcnt proves it has returned:
 *   vmcnt    global and scratch loads, atomics with a return; on gfx9 stores
 *            too (gfx11 counts stores in vscnt, not modelled: they write no
 *            register). Returns in issue order, so vmcnt(N) completes all but
 *            the newest N.
 *   lgkmcnt  LDS operations (in order) and scalar loads (out of order): with
 *            a scalar load pending only lgkmcnt(0) proves anything; with LDS
 *            alone, lgkmcnt(N) completes all but the newest N.
 * An instruction that reads or writes a register a pending load writes is the
 * hazard a missing wait leaves (the hardware would read stale data, or the
 * load would land over the newer value): an error naming both instructions.
 * A load may overwrite the destination of a pending load of the same
 * in-order kind (they land in order), as LLVM's waitcnt pass allows.
 *
 * Needs kgrt_emu_run.h. Gives kgrt_emu_pend_issue, kgrt_emu_pend_wait,
 * kgrt_emu_pend_check. */
#include <stdio.h>

#include "kgrt_emu_run.h"

enum { EMU_VM, EMU_LGKM };

static void emu_mark(uint64_t *bits, uint32_t first, uint32_t count, uint32_t limit) {
  for (uint32_t r = first; r < first + count && r < limit; ++r)
    bits[r / 64] |= 1ull << (r % 64);
}

static void emu_rebuild(kgrt_emu_wave_t *w) {
  memset(w->pend_v, 0, sizeof w->pend_v);
  memset(w->pend_a, 0, sizeof w->pend_a);
  memset(w->pend_s, 0, sizeof w->pend_s);
  for (uint32_t i = 0; i < w->npend; ++i) {
    const kgrt_emu_pend_t *p = &w->pend[i];
    if (p->kind == KGRT_EMU_V)
      emu_mark(w->pend_v, p->reg, p->count, 512);
    else if (p->kind == KGRT_EMU_A)
      emu_mark(w->pend_a, p->reg, p->count, 512);
    else if (p->kind == KGRT_EMU_S)
      emu_mark(w->pend_s, p->reg, p->count, 128);
  }
}

static int emu_test(const uint64_t *bits, uint32_t first, uint32_t count,
                    uint32_t limit) {
  for (uint32_t r = first; r < first + count && r < limit; ++r)
    if ((bits[r / 64] >> (r % 64)) & 1)
      return 1;
  return 0;
}

void kgrt_emu_pend_issue(const kgrt_emu_ctx_t *c, kgrt_emu_wave_t *w,
                         const kgrt_emu_inst_t *in, int32_t idx, uint64_t pc) {
  kgrt_emu_pend_t p = {.pc = pc, .idx = idx, .kind = KGRT_EMU_NONE};
  switch (in->opc) {
  case KGRT_EMU_OP_S_LOAD:
    p.cnt = EMU_LGKM, p.smem = 1;
    break;
  case KGRT_EMU_OP_DS_LOAD:
  case KGRT_EMU_OP_DS_LOAD_2ADDR:
  case KGRT_EMU_OP_DS_BPERMUTE_B32:
  case KGRT_EMU_OP_DS_STORE:
  case KGRT_EMU_OP_DS_STORE_2ADDR:
  case KGRT_EMU_OP_DS_ADD_U32:
    p.cnt = EMU_LGKM;
    break;
  case KGRT_EMU_OP_GLOBAL_LOAD:
  case KGRT_EMU_OP_SCRATCH_LOAD:
    p.cnt = EMU_VM;
    break;
  case KGRT_EMU_OP_GLOBAL_ATOMIC_ADD_U32:
  case KGRT_EMU_OP_GLOBAL_STORE:
  case KGRT_EMU_OP_SCRATCH_STORE:
    if (in->ndst == 0 && !c->gfx9)
      return; /* gfx11: a store counts in vscnt */
    p.cnt = EMU_VM;
    break;
  default:
    return;
  }
  if (in->ndst > 0) {
    p.kind = in->dst[0].kind;
    p.reg = in->dst[0].reg;
    p.count = in->dst[0].count;
  }
  if (w->npend == KGRT_EMU_MAX_PEND) { /* the oldest is surely back by now */
    memmove(&w->pend[0], &w->pend[1], (KGRT_EMU_MAX_PEND - 1) * sizeof w->pend[0]);
    w->npend--;
    emu_rebuild(w);
  }
  w->pend[w->npend++] = p;
  if (p.kind == KGRT_EMU_V)
    emu_mark(w->pend_v, p.reg, p.count, 512);
  else if (p.kind == KGRT_EMU_A)
    emu_mark(w->pend_a, p.reg, p.count, 512);
  else if (p.kind == KGRT_EMU_S)
    emu_mark(w->pend_s, p.reg, p.count, 128);
}

/* Completes what an s_waitcnt with counts vm and lgkm (-1: not waited on)
 * proves returned. */
void kgrt_emu_pend_wait(kgrt_emu_wave_t *w, int vm, int lgkm) {
  const int limit[2] = {vm, lgkm};
  int changed = 0;
  for (int cnt = 0; cnt < 2; ++cnt) {
    if (limit[cnt] < 0)
      continue;
    uint32_t total = 0, smem = 0;
    for (uint32_t i = 0; i < w->npend; ++i)
      if (w->pend[i].cnt == cnt)
        total++, smem += w->pend[i].smem;
    if (total <= (uint32_t)limit[cnt] || (smem > 0 && limit[cnt] > 0))
      continue; /* nothing proven (a scalar load may return in any order) */
    uint32_t done = total - (uint32_t)limit[cnt], m = 0;
    for (uint32_t i = 0; i < w->npend; ++i) {
      if (w->pend[i].cnt == cnt && done > 0) {
        done--;
        continue;
      }
      w->pend[m++] = w->pend[i];
    }
    w->npend = m;
    changed = 1;
  }
  if (changed)
    emu_rebuild(w);
}

/* 0, or -1 (c->err filled) when instruction in touches a register a pending
 * load still writes. */
int kgrt_emu_pend_check(kgrt_emu_ctx_t *c, const kgrt_emu_wave_t *w,
                        const kgrt_emu_inst_t *in) {
  const int load = in->opc == KGRT_EMU_OP_S_LOAD || in->opc >= KGRT_EMU_OP_DS_LOAD;
  for (int k = 0; k < in->ndst + in->nsrc; ++k) { /* sources first */
    const int j = k < in->nsrc ? in->ndst + k : k - in->nsrc;
    const kgrt_emu_operand_t *o = j < in->ndst ? &in->dst[j] : &in->src[j - in->ndst];
    int hit;
    if (o->kind == KGRT_EMU_V)
      hit = emu_test(w->pend_v, o->reg, o->count, 512);
    else if (o->kind == KGRT_EMU_A)
      hit = emu_test(w->pend_a, o->reg, o->count, 512);
    else if (o->kind == KGRT_EMU_S)
      hit = emu_test(w->pend_s, o->reg, o->count, 128);
    else
      continue;
    if (!hit)
      continue;
    /* the pending load that writes it (the newest) */
    const kgrt_emu_pend_t *p = NULL;
    for (uint32_t i = 0; i < w->npend; ++i) {
      const kgrt_emu_pend_t *q = &w->pend[i];
      if (q->kind == o->kind && q->reg < o->reg + o->count && o->reg < q->reg + q->count)
        p = q;
    }
    if (p == NULL)
      continue;
    /* a load over a pending load's registers, both landing in order */
    if (j < in->ndst && load && !p->smem && in->opc != KGRT_EMU_OP_S_LOAD &&
        ((p->cnt == EMU_LGKM) == (in->opc <= KGRT_EMU_OP_DS_BPERMUTE_B32)))
      continue;
    const char *text = c->code->text[p->idx] ? c->code->text[p->idx] : "?";
    return kgrt_emu_fail(c,
                         "%s %c%u before the load that writes it has returned (%s at "
                         "+0x%llx): a missing s_waitcnt %s",
                         j < in->ndst ? "writes" : "reads",
                         o->kind == KGRT_EMU_V   ? 'v'
                         : o->kind == KGRT_EMU_A ? 'a'
                                                 : 's',
                         o->reg, text, (unsigned long long)(p->pc - c->code->lo),
                         p->cnt == EMU_VM ? "vmcnt" : "lgkmcnt");
  }
  return 0;
}
