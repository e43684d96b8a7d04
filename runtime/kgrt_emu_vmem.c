/* kgrt_emu_vmem.c - the emu's memory instructions: LDS (ds_load/ds_store,
 * the two-address forms, ds_add_u32, ds_bpermute_b32) within the workgroup's
 * LDS as the descriptor sizes it, and global loads, stores and atomics
 * within the launch's ranges (kgrt_emu_find_range); flat loads and stores
 * are global ones, or the lane's scratch through the private aperture
 * (KGRT_EMU_PRIVATE_HI; an LDS aperture address is out of bounds). Any lane's access
 * outside them is an error, never a silent read. Every access completes at
 * once: s_waitcnt has nothing to wait for.
 *
 * Needs kgrt_emu_run.h. Gives kgrt_emu_exec_vmem. */
#include "kgrt_emu_run.h"

static int emu_lds_check(kgrt_emu_ctx_t *c, uint64_t addr, uint32_t bytes,
                         uint32_t lane) {
  if (addr + bytes <= c->lds_bytes)
    return 0;
  return kgrt_emu_fail(
      c,
      "lane %u: LDS access of %u bytes at %llu, past the %u bytes of LDS "
      "the descriptor grants",
      lane, bytes, (unsigned long long)addr, c->lds_bytes);
}

/* Loads n bytes into the registers of operand d from p, for one lane. */
static void emu_load_regs(kgrt_emu_wave_t *w, const kgrt_emu_inst_t *in,
                          const kgrt_emu_operand_t *d, int first_reg,
                          const unsigned char *p, uint32_t n, uint32_t l) {
  if (n >= 4) {
    for (uint32_t r = 0; r < n / 4; ++r) {
      uint32_t v;
      memcpy(&v, p + 4 * r, 4);
      kgrt_emu_vdst(w, d, first_reg + (int)r)[l] = v;
    }
    return;
  }
  uint32_t v = 0;
  memcpy(&v, p, n);
  uint32_t *D = kgrt_emu_vdst(w, d, first_reg);
  if (in->d16_hi) { /* d16: one half written, the other kept */
    D[l] = in->d16_hi == 1 ? (D[l] & 0xffff) | v << 16 : (D[l] & 0xffff0000u) | v;
    return;
  }
  if (in->sign)
    v = n == 1 ? (uint32_t)(int32_t)(int8_t)v : (uint32_t)(int32_t)(int16_t)v;
  D[l] = v;
}

/* Stores n bytes of the registers of operand s to p, for one lane; hi: the
 * high half of the first register (the d16_hi stores, n <= 2). */
static void emu_store_regs(kgrt_emu_wave_t *w, const kgrt_emu_operand_t *s, int first_reg,
                           unsigned char *p, uint32_t n, uint32_t l, int hi) {
  for (uint32_t r = 0; r < (n + 3) / 4; ++r) {
    kgrt_emu_vsrc_t S;
    kgrt_emu_vsrc(w, s, first_reg + (int)r, &S);
    const uint32_t v = hi ? S.p[l & S.m] >> 16 : S.p[l & S.m];
    memcpy(p + 4 * r, &v, n - 4 * r < 4 ? n - 4 * r : 4);
  }
}

static int emu_ds(kgrt_emu_ctx_t *c, kgrt_emu_wave_t *w, const kgrt_emu_inst_t *in) {
  const uint64_t exec = kgrt_emu_exec_mask(w);
  const int op = in->opc;
  const uint32_t n = in->bytes;
  if (op == KGRT_EMU_OP_DS_BPERMUTE_B32) {
    kgrt_emu_vsrc_t A, S;
    kgrt_emu_vsrc(w, &in->src[0], 0, &A);
    kgrt_emu_vsrc(w, &in->src[1], 0, &S);
    uint32_t tmp[64];
    for (uint32_t l = 0; l < w->W; ++l) {
      const uint32_t src = ((A.p[l & A.m] + (uint32_t)in->offset) >> 2) & (w->W - 1);
      tmp[l] = (exec >> src) & 1 ? S.p[src & S.m] : 0;
    }
    uint32_t *D = kgrt_emu_vdst(w, &in->dst[0], 0);
    for (uint32_t l = 0; l < w->W; ++l)
      if ((exec >> l) & 1)
        D[l] = tmp[l];
    return 0;
  }
  kgrt_emu_vsrc_t A;
  kgrt_emu_vsrc(w, &in->src[0], 0, &A);
  for (uint32_t l = 0; l < w->W; ++l) {
    if (!((exec >> l) & 1))
      continue;
    const uint64_t base = A.p[l & A.m];
    switch (op) {
    case KGRT_EMU_OP_DS_LOAD:
    case KGRT_EMU_OP_DS_STORE: {
      const uint64_t addr = (uint32_t)(base + (uint32_t)in->offset); /* 32-bit, wraps */
      if (emu_lds_check(c, addr, n, l) != 0)
        return -1;
      if (op == KGRT_EMU_OP_DS_LOAD)
        emu_load_regs(w, in, &in->dst[0], 0, c->lds + addr, n, l);
      else
        emu_store_regs(w, &in->src[1], 0, c->lds + addr, n, l, in->d16_hi);
      break;
    }
    case KGRT_EMU_OP_DS_LOAD_2ADDR:
    case KGRT_EMU_OP_DS_STORE_2ADDR: {
      const uint64_t unit = (uint64_t)n * (in->stride64 ? 64 : 1);
      for (int k = 0; k < 2; ++k) {
        const uint64_t addr =
            (uint32_t)(base + unit * (uint32_t)(k == 0 ? in->offset : in->offset1));
        if (emu_lds_check(c, addr, n, l) != 0)
          return -1;
        if (op == KGRT_EMU_OP_DS_LOAD_2ADDR)
          emu_load_regs(w, in, &in->dst[0], k * (int)(n / 4), c->lds + addr, n, l);
        else
          emu_store_regs(w, &in->src[1 + k], 0, c->lds + addr, n, l, 0);
      }
      break;
    }
    case KGRT_EMU_OP_DS_ADD_U32: {
      const uint64_t addr = (uint32_t)(base + (uint32_t)in->offset); /* 32-bit, wraps */
      if (emu_lds_check(c, addr, 4, l) != 0)
        return -1;
      kgrt_emu_vsrc_t S;
      kgrt_emu_vsrc(w, &in->src[1], 0, &S);
      uint32_t v;
      memcpy(&v, c->lds + addr, 4);
      v += S.p[l & S.m];
      memcpy(c->lds + addr, &v, 4);
      break;
    }
    default:
      return kgrt_emu_fail(c, "not an LDS operation");
    }
  }
  return 0;
}

/* A flat load or store of lane l at offset off of its private memory. */
static int emu_flat_private(kgrt_emu_ctx_t *c, kgrt_emu_wave_t *w,
                            const kgrt_emu_inst_t *in, const kgrt_emu_operand_t *data,
                            uint32_t off, uint32_t l) {
  const uint32_t n = in->bytes;
  if ((uint64_t)off + n > w->scratch_bytes)
    return kgrt_emu_fail(c,
                         "lane %u: flat access of %u bytes at private offset %u, past "
                         "the %u bytes of scratch the descriptor grants",
                         l, n, off, w->scratch_bytes);
  unsigned char *p = w->scratch + (size_t)l * w->scratch_bytes + off;
  if (in->opc == KGRT_EMU_OP_GLOBAL_LOAD)
    emu_load_regs(w, in, &in->dst[0], 0, p, n, l);
  else if (in->opc == KGRT_EMU_OP_GLOBAL_STORE)
    emu_store_regs(w, data, 0, p, n, l, in->d16_hi);
  else
    return kgrt_emu_fail(c, "lane %u: an atomic on private memory", l);
  return 0;
}

static int emu_global(kgrt_emu_ctx_t *c, kgrt_emu_wave_t *w, const kgrt_emu_inst_t *in) {
  const uint64_t exec = kgrt_emu_exec_mask(w);
  const int op = in->opc;
  /* operands: [vdst,] vaddr, [vdata,] saddr|off */
  const kgrt_emu_operand_t *vaddr = &in->src[0];
  const kgrt_emu_operand_t *data = op == KGRT_EMU_OP_GLOBAL_LOAD ? NULL : &in->src[1];
  const kgrt_emu_operand_t *saddr = &in->src[in->nsrc - 1];
  const int has_s = saddr->kind == KGRT_EMU_S;
  const uint64_t sbase = has_s ? kgrt_emu_s64(w, saddr) : 0;
  const uint32_t n = op == KGRT_EMU_OP_GLOBAL_ATOMIC_ADD_U32 ? 4 : in->bytes;
  const int store = op != KGRT_EMU_OP_GLOBAL_LOAD;
  const kgrt_emu_range_t *last = NULL;
  for (uint32_t l = 0; l < w->W; ++l) {
    if (!((exec >> l) & 1))
      continue;
    uint64_t addr;
    if (has_s)
      addr = sbase + w->v[(size_t)vaddr->reg * w->W + l];
    else
      addr = kgrt_emu_v64(w, vaddr, l);
    addr += (uint64_t)(int64_t)in->offset;
    if (in->flat && addr >> 32 == KGRT_EMU_PRIVATE_HI) {
      if (emu_flat_private(c, w, in, data, (uint32_t)addr, l) != 0)
        return -1;
      continue;
    }
    if (last == NULL || addr < last->lo || addr + n > last->hi) {
      last = kgrt_emu_find_range(c->l, addr, n);
      if (last == NULL)
        return kgrt_emu_bad_access(c, store ? "store" : "load", addr, n, l);
    }
    if (store && !last->writable)
      return kgrt_emu_bad_access(c, "store", addr, n, l);
    unsigned char *p = (unsigned char *)(uintptr_t)addr;
    if (op == KGRT_EMU_OP_GLOBAL_LOAD)
      emu_load_regs(w, in, &in->dst[0], 0, p, n, l);
    else if (op == KGRT_EMU_OP_GLOBAL_STORE)
      emu_store_regs(w, data, 0, p, n, l, in->d16_hi);
    else {
      kgrt_emu_vsrc_t S;
      kgrt_emu_vsrc(w, data, 0, &S);
      const uint32_t old =
          __atomic_fetch_add((uint32_t *)(void *)p, S.p[l & S.m], __ATOMIC_RELAXED);
      if (in->ndst > 0)
        kgrt_emu_vdst(w, &in->dst[0], 0)[l] = old;
    }
  }
  return 0;
}

/* scratch_load/scratch_store: each lane's private memory, as the descriptor sizes it. */
static int emu_scratch(kgrt_emu_ctx_t *c, kgrt_emu_wave_t *w, const kgrt_emu_inst_t *in) {
  const uint64_t exec = kgrt_emu_exec_mask(w);
  const int store = in->opc == KGRT_EMU_OP_SCRATCH_STORE;
  const kgrt_emu_operand_t *vaddr = &in->src[0], *saddr = &in->src[in->nsrc - 1];
  const uint32_t sbase = saddr->kind == KGRT_EMU_S ? kgrt_emu_s32(w, saddr) : 0;
  const uint32_t n = in->bytes;
  for (uint32_t l = 0; l < w->W; ++l) {
    if (!((exec >> l) & 1))
      continue;
    uint64_t addr = (uint64_t)sbase + (uint64_t)(int64_t)in->offset;
    if (vaddr->kind == KGRT_EMU_V)
      addr += w->v[(size_t)vaddr->reg * w->W + l];
    if (addr + n > w->scratch_bytes)
      return kgrt_emu_fail(
          c,
          "lane %u: scratch access of %u bytes at %llu, past the %u bytes "
          "the descriptor grants",
          l, n, (unsigned long long)addr, w->scratch_bytes);
    unsigned char *p = w->scratch + (size_t)l * w->scratch_bytes + addr;
    if (store)
      emu_store_regs(w, &in->src[1], 0, p, n, l, 0);
    else
      emu_load_regs(w, in, &in->dst[0], 0, p, n, l);
  }
  return 0;
}

int kgrt_emu_exec_vmem(kgrt_emu_ctx_t *c, kgrt_emu_wave_t *w, const kgrt_emu_inst_t *in) {
  if (in->opc <= KGRT_EMU_OP_DS_BPERMUTE_B32)
    return emu_ds(c, w, in);
  if (in->opc >= KGRT_EMU_OP_SCRATCH_LOAD)
    return emu_scratch(c, w, in);
  return emu_global(c, w, in);
}
