/* kgrt_emu_run.h - the emu interpreter's state and its parts (internal): a
 * wave's registers, a workgroup's LDS, the launch's memory checks, and the
 * executors of each instruction class:
 *   kgrt_emu_salu.c    scalar ALU, branches, scalar loads
 *   kgrt_emu_valu.c    vector ALU (integer, compare, lane ops)
 *   kgrt_emu_vfloat.c  vector float ALU (f32, f16, packed, mixed, conversions)
 *   kgrt_emu_vmem.c    LDS and global memory
 *   kgrt_emu_matrix.c  WMMA (gfx11) and MFMA (gfx9)
 * and the decoder (kgrt_emu_decode.c). kgrt_emu_run.c schedules waves. */
#ifndef KGRT_EMU_RUN_H
#define KGRT_EMU_RUN_H

#include <stdint.h>
#include <string.h>

#include "kgrt_emu.h"
#include "kgrt_emu_inst.h"

/* A memory operation issued and not yet proven returned by an s_waitcnt
 * (kgrt_emu_wait.c). */
typedef struct kgrt_emu_pend {
  uint64_t pc;  /* the instruction's address */
  int32_t idx;  /* and its index in the kernel's code */
  uint8_t cnt;  /* 0: vmcnt, 1: lgkmcnt */
  uint8_t smem; /* a scalar load (returns out of order) */
  uint8_t kind; /* its destination's file (KGRT_EMU_V/A/S), NONE: none */
  uint16_t reg, count;
} kgrt_emu_pend_t;

#define KGRT_EMU_MAX_PEND 64

typedef struct kgrt_emu_wave {
  uint32_t s[128]; /* SGPRs; vcc 106:107, m0 124, exec 126:127 */
  uint32_t *v;     /* VGPRs: v[reg * W + lane] */
  uint32_t *a;     /* AGPRs (gfx9), likewise */
  uint32_t W;      /* lanes: 32 or 64 */
  uint32_t nv, na;
  int scc;
  uint64_t pc;
  int state; /* KGRT_EMU_RUNNING, _AT_BARRIER, _DONE */
  uint32_t id;
  unsigned char *scratch; /* private memory: lane l's at scratch + l * scratch_bytes */
  uint32_t scratch_bytes;
  /* the memory operations pending on their counters, in issue order, and the
   * registers their loads write */
  uint32_t npend;
  kgrt_emu_pend_t pend[KGRT_EMU_MAX_PEND];
  uint64_t pend_v[8], pend_a[8], pend_s[2];
} kgrt_emu_wave_t;

enum { KGRT_EMU_RUNNING, KGRT_EMU_AT_BARRIER, KGRT_EMU_DONE };

/* One host thread's run of workgroups. */
typedef struct kgrt_emu_ctx {
  const kgrt_emu_launch_t *l;
  const kgrt_emu_code_t *code;
  unsigned char *lds;
  uint32_t lds_bytes;
  uint32_t wg;
  int gfx9;
  int ftz_in, ftz_out; /* f32 denormal sources, results flushed (FLOAT_DENORM_MODE_32) */
  int dx10_clamp;      /* clamp takes a NaN to 0 */
  uint64_t insts;
  char *err;
  size_t err_size;
} kgrt_emu_ctx_t;

/* Executors: 0, or -1 with ctx->err filled (the caller adds where). */
int kgrt_emu_exec_salu(kgrt_emu_ctx_t *c, kgrt_emu_wave_t *w, const kgrt_emu_inst_t *in);
int kgrt_emu_exec_valu(kgrt_emu_ctx_t *c, kgrt_emu_wave_t *w, const kgrt_emu_inst_t *in);
int kgrt_emu_exec_vfloat(kgrt_emu_ctx_t *c, kgrt_emu_wave_t *w,
                         const kgrt_emu_inst_t *in);
int kgrt_emu_exec_vmem(kgrt_emu_ctx_t *c, kgrt_emu_wave_t *w, const kgrt_emu_inst_t *in);
int kgrt_emu_exec_matrix(kgrt_emu_ctx_t *c, kgrt_emu_wave_t *w,
                         const kgrt_emu_inst_t *in);
/* 1 when the op is the float unit's (kgrt_emu_vfloat.c) */
int kgrt_emu_is_vfloat(int opc);

/* Memory counters (kgrt_emu_wait.c): a memory instruction (code index idx,
 * at pc) issued; an s_waitcnt with counts vm and lgkm (-1: not waited on);
 * the check that instruction in touches no register a pending load writes
 * (0, or -1 with c->err filled). */
void kgrt_emu_pend_issue(const kgrt_emu_ctx_t *c, kgrt_emu_wave_t *w,
                         const kgrt_emu_inst_t *in, int32_t idx, uint64_t pc);
void kgrt_emu_pend_wait(kgrt_emu_wave_t *w, int vm, int lgkm);
int kgrt_emu_pend_check(kgrt_emu_ctx_t *c, const kgrt_emu_wave_t *w,
                        const kgrt_emu_inst_t *in);

/* Decoding (kgrt_emu_decode.c): kernel k's code, from its entry to its end. */
int kgrt_emu_decode_kernel(kgrt_emu_image_t *img, const kgrt_emu_kernel_t *k,
                           const kgrt_allocator_t *alloc, kgrt_emu_code_t *code,
                           char *err, size_t err_size);
void kgrt_emu_code_free(kgrt_emu_code_t *code, const kgrt_allocator_t *alloc);

/* Parses LLVM's text of one instruction (at pc; a VOPD pair: both halves,
 * pair[0].dual set) into pair; -1 with a reason in why (kgrt_emu_parse.c). */
int kgrt_emu_parse(char *text, uint64_t pc, kgrt_emu_inst_t *pair, int wave64, char *why,
                   size_t why_size);

/* The range of the launch holding [addr, addr + bytes), or NULL (kgrt_emu_run.c). */
const kgrt_emu_range_t *kgrt_emu_find_range(const kgrt_emu_launch_t *l, uint64_t addr,
                                            uint64_t bytes);
/* Fills c->err: "out-of-bounds load of 4 bytes at 0x...: ..." and returns -1. */
int kgrt_emu_bad_access(kgrt_emu_ctx_t *c, const char *what, uint64_t addr,
                        uint64_t bytes, uint32_t lane);
int kgrt_emu_fail(kgrt_emu_ctx_t *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ---- register access ---- */

static inline uint64_t kgrt_emu_exec_mask(const kgrt_emu_wave_t *w) {
  return w->W == 64 ? (uint64_t)w->s[126] | (uint64_t)w->s[127] << 32 : w->s[126];
}
static inline void kgrt_emu_set_exec(kgrt_emu_wave_t *w, uint64_t m) {
  w->s[126] = (uint32_t)m;
  w->s[127] = w->W == 64 ? (uint32_t)(m >> 32) : 0;
}

/* A scalar source's 32 (64) bits. */
static inline uint32_t kgrt_emu_s32(const kgrt_emu_wave_t *w,
                                    const kgrt_emu_operand_t *o) {
  switch (o->kind) {
  case KGRT_EMU_S:
    return o->reg == KGRT_EMU_SGPR_NULL ? 0 : w->s[o->reg];
  case KGRT_EMU_K:
    return (uint32_t)o->value;
  case KGRT_EMU_SCC:
    return (uint32_t)w->scc;
  default:
    return 0;
  }
}
static inline uint64_t kgrt_emu_s64(const kgrt_emu_wave_t *w,
                                    const kgrt_emu_operand_t *o) {
  if (o->kind == KGRT_EMU_K)
    return o->value;
  if (o->kind == KGRT_EMU_S && o->reg != KGRT_EMU_SGPR_NULL) {
    if (o->count < 2 && w->W == 32 &&
        (o->reg == KGRT_EMU_SGPR_VCC || o->reg == KGRT_EMU_SGPR_EXEC))
      return w->s[o->reg];
    return (uint64_t)w->s[o->reg] | (uint64_t)w->s[o->reg + 1] << 32;
  }
  return kgrt_emu_s32(w, o);
}
static inline void kgrt_emu_sw32(kgrt_emu_wave_t *w, const kgrt_emu_operand_t *o,
                                 uint32_t v) {
  if (o->kind == KGRT_EMU_S && o->reg != KGRT_EMU_SGPR_NULL)
    w->s[o->reg] = v;
}
static inline void kgrt_emu_sw64(kgrt_emu_wave_t *w, const kgrt_emu_operand_t *o,
                                 uint64_t v) {
  if (o->kind != KGRT_EMU_S || o->reg == KGRT_EMU_SGPR_NULL)
    return;
  w->s[o->reg] = (uint32_t)v;
  if (o->count >= 2 || w->W == 64)
    w->s[o->reg + 1] = (uint32_t)(v >> 32);
}
/* A lane mask (vcc, an SGPR pair, exec) as a source. */
static inline uint64_t kgrt_emu_mask(const kgrt_emu_wave_t *w,
                                     const kgrt_emu_operand_t *o) {
  uint64_t m = w->W == 64 ? kgrt_emu_s64(w, o) : kgrt_emu_s32(w, o);
  return w->W == 64 ? m : (m & 0xffffffffu);
}

/* A vector source: p[lane & m] is lane's 32 bits (register `idx` of it). */
typedef struct kgrt_emu_vsrc {
  const uint32_t *p;
  uint32_t m;
  uint32_t k; /* the uniform value */
} kgrt_emu_vsrc_t;

static inline void kgrt_emu_vsrc(const kgrt_emu_wave_t *w, const kgrt_emu_operand_t *o,
                                 int idx, kgrt_emu_vsrc_t *s) {
  if (o->kind == KGRT_EMU_V) {
    s->p = &w->v[(size_t)(o->reg + idx) * w->W];
    s->m = ~0u;
  } else if (o->kind == KGRT_EMU_A) {
    s->p = &w->a[(size_t)(o->reg + idx) * w->W];
    s->m = ~0u;
  } else {
    if (o->kind == KGRT_EMU_K)
      s->k = idx == 0 ? (uint32_t)o->value : (uint32_t)(o->value >> 32);
    else if (o->kind == KGRT_EMU_S)
      s->k = o->reg == KGRT_EMU_SGPR_NULL ? 0 : w->s[o->reg + idx];
    else
      s->k = o->kind == KGRT_EMU_SCC ? (uint32_t)w->scc : 0;
    s->p = &s->k;
    s->m = 0;
  }
}
/* Runs stmt for every lane l of a wave of W lanes, with W a constant in each
 * loop (32 or 64), so that the compiler unrolls and vectorizes it. */
#define KGRT_EMU_LANES(W, ...)                                                           \
  do {                                                                                   \
    if ((W) == 64) {                                                                     \
      for (uint32_t l = 0; l < 64; ++l) {                                                \
        __VA_ARGS__;                                                                     \
      }                                                                                  \
    } else {                                                                             \
      for (uint32_t l = 0; l < 32; ++l) {                                                \
        __VA_ARGS__;                                                                     \
      }                                                                                  \
    }                                                                                    \
  } while (0)

/* Register idx of source o as a row of the wave's lanes: the register's own
 * row, or a constant or SGPR repeated into buf (64 entries). */
static inline const uint32_t *kgrt_emu_row(const kgrt_emu_wave_t *w,
                                           const kgrt_emu_operand_t *o, int idx,
                                           uint32_t *buf) {
  if (o->kind == KGRT_EMU_V)
    return &w->v[(size_t)(o->reg + idx) * w->W];
  if (o->kind == KGRT_EMU_A)
    return &w->a[(size_t)(o->reg + idx) * w->W];
  kgrt_emu_vsrc_t s;
  kgrt_emu_vsrc(w, o, idx, &s);
  const uint32_t k = s.k;
  KGRT_EMU_LANES(w->W, buf[l] = k);
  return buf;
}

/* The lanes of r that EXEC enables into the destination row d. */
static inline void kgrt_emu_put(uint32_t *d, const uint32_t *r, uint64_t exec,
                                uint32_t W) {
  if (exec == (W == 64 ? ~0ull : 0xffffffffull))
    memcpy(d, r, (size_t)W * 4);
  else
    KGRT_EMU_LANES(W, d[l] = (exec >> l) & 1 ? r[l] : d[l]);
}

/* A constant 64-bit source is one value; a register pair is two. */
static inline uint64_t kgrt_emu_v64(const kgrt_emu_wave_t *w, const kgrt_emu_operand_t *o,
                                    uint32_t lane) {
  if (o->kind == KGRT_EMU_K)
    return o->value;
  if (o->kind == KGRT_EMU_S)
    return kgrt_emu_s64(w, o);
  const uint32_t *f = o->kind == KGRT_EMU_A ? w->a : w->v;
  return (uint64_t)f[(size_t)o->reg * w->W + lane] |
         (uint64_t)f[(size_t)(o->reg + 1) * w->W + lane] << 32;
}
/* The destination row of register idx of a V or A operand. */
static inline uint32_t *kgrt_emu_vdst(kgrt_emu_wave_t *w, const kgrt_emu_operand_t *o,
                                      int idx) {
  return &(o->kind == KGRT_EMU_A ? w->a : w->v)[(size_t)(o->reg + idx) * w->W];
}

static inline float kgrt_emu_f(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static inline uint32_t kgrt_emu_u(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
/* IEEE half <-> float, round to nearest even. */
float kgrt_emu_f16_to_f32(uint16_t h);
uint16_t kgrt_emu_f32_to_f16(float f);

#endif /* KGRT_EMU_RUN_H */
