/* kgrt_emu_salu.c - the emu's scalar unit: SOP1/SOP2/SOPK/SOPC operations,
 * branches and scalar memory loads, with SCC as AMD's RDNA3 and CDNA3 ISA
 * guides define it for each (logic: result != 0; unsigned add and sub: carry
 * or borrow; signed add and sub: overflow; shifts: result != 0; min and max:
 * the first operand chosen; compares: the result).
 *
 * Needs kgrt_emu_run.h. Gives kgrt_emu_exec_salu. */
#include "kgrt_emu_run.h"

static int emu_cmp_u(int cond, uint64_t a, uint64_t b) {
  switch (cond) {
  case KGRT_EMU_CMP_EQ:
    return a == b;
  case KGRT_EMU_CMP_LG:
  case KGRT_EMU_CMP_NE:
    return a != b;
  case KGRT_EMU_CMP_LT:
    return a < b;
  case KGRT_EMU_CMP_LE:
    return a <= b;
  case KGRT_EMU_CMP_GT:
    return a > b;
  case KGRT_EMU_CMP_GE:
    return a >= b;
  default:
    return 0;
  }
}
static int emu_cmp_i(int cond, int64_t a, int64_t b) {
  switch (cond) {
  case KGRT_EMU_CMP_EQ:
    return a == b;
  case KGRT_EMU_CMP_LG:
  case KGRT_EMU_CMP_NE:
    return a != b;
  case KGRT_EMU_CMP_LT:
    return a < b;
  case KGRT_EMU_CMP_LE:
    return a <= b;
  case KGRT_EMU_CMP_GT:
    return a > b;
  case KGRT_EMU_CMP_GE:
    return a >= b;
  default:
    return 0;
  }
}

static int emu_s_load(kgrt_emu_ctx_t *c, kgrt_emu_wave_t *w, const kgrt_emu_inst_t *in) {
  uint64_t addr = kgrt_emu_s64(w, &in->src[0]);
  if (in->nsrc > 1)
    addr += kgrt_emu_s32(w, &in->src[1]);
  addr += (uint64_t)(int64_t)in->offset;
  addr &= ~(uint64_t)3;
  const uint32_t n = in->bytes / 4;
  if (kgrt_emu_find_range(c->l, addr, in->bytes) == NULL)
    return kgrt_emu_bad_access(c, "scalar load", addr, in->bytes, 0);
  if (in->dst[0].kind != KGRT_EMU_S || in->dst[0].reg + n > 128)
    return kgrt_emu_fail(c, "bad destination");
  memcpy(&w->s[in->dst[0].reg], (const void *)(uintptr_t)addr, in->bytes);
  return 0;
}

int kgrt_emu_exec_salu(kgrt_emu_ctx_t *c, kgrt_emu_wave_t *w, const kgrt_emu_inst_t *in) {
  const kgrt_emu_operand_t *d = &in->dst[0], *s0 = &in->src[0], *s1 = &in->src[1];
  uint32_t a = 0, b = 0, r;
  uint64_t A, B, R;
  if (in->nsrc > 0)
    a = kgrt_emu_s32(w, s0);
  if (in->nsrc > 1)
    b = kgrt_emu_s32(w, s1);
  switch (in->opc) {
  case KGRT_EMU_OP_BRANCH:
    w->pc = (uint64_t)in->target;
    return 0;
  case KGRT_EMU_OP_CBRANCH_SCC0:
    if (!w->scc)
      w->pc = (uint64_t)in->target;
    return 0;
  case KGRT_EMU_OP_CBRANCH_SCC1:
    if (w->scc)
      w->pc = (uint64_t)in->target;
    return 0;
  case KGRT_EMU_OP_CBRANCH_VCCZ:
  case KGRT_EMU_OP_CBRANCH_VCCNZ: {
    uint64_t vcc =
        w->W == 64 ? (uint64_t)w->s[106] | (uint64_t)w->s[107] << 32 : w->s[106];
    if ((vcc == 0) == (in->opc == KGRT_EMU_OP_CBRANCH_VCCZ))
      w->pc = (uint64_t)in->target;
    return 0;
  }
  case KGRT_EMU_OP_CBRANCH_EXECZ:
  case KGRT_EMU_OP_CBRANCH_EXECNZ:
    if ((kgrt_emu_exec_mask(w) == 0) == (in->opc == KGRT_EMU_OP_CBRANCH_EXECZ))
      w->pc = (uint64_t)in->target;
    return 0;
  case KGRT_EMU_OP_S_GETPC_B64:
    kgrt_emu_sw64(w, d, w->pc); /* the next instruction's address */
    return 0;
  case KGRT_EMU_OP_S_MOV_B32:
    kgrt_emu_sw32(w, d, a);
    return 0;
  case KGRT_EMU_OP_S_MOV_B64:
    kgrt_emu_sw64(w, d, kgrt_emu_s64(w, s0));
    return 0;
  case KGRT_EMU_OP_S_MOVK_I32:
    kgrt_emu_sw32(w, d, (uint32_t)(int32_t)(int16_t)a);
    return 0;
  case KGRT_EMU_OP_S_CSELECT_B32:
    kgrt_emu_sw32(w, d, w->scc ? a : b);
    return 0;
  case KGRT_EMU_OP_S_CSELECT_B64:
    kgrt_emu_sw64(w, d, w->scc ? kgrt_emu_s64(w, s0) : kgrt_emu_s64(w, s1));
    return 0;
  case KGRT_EMU_OP_S_AND_B32:
  case KGRT_EMU_OP_S_OR_B32:
  case KGRT_EMU_OP_S_XOR_B32:
  case KGRT_EMU_OP_S_AND_NOT1_B32:
  case KGRT_EMU_OP_S_OR_NOT1_B32:
    r = in->opc == KGRT_EMU_OP_S_AND_B32        ? a & b
        : in->opc == KGRT_EMU_OP_S_OR_B32       ? a | b
        : in->opc == KGRT_EMU_OP_S_XOR_B32      ? a ^ b
        : in->opc == KGRT_EMU_OP_S_AND_NOT1_B32 ? a & ~b
                                                : a | ~b;
    kgrt_emu_sw32(w, d, r);
    w->scc = r != 0;
    return 0;
  case KGRT_EMU_OP_S_AND_B64:
  case KGRT_EMU_OP_S_OR_B64:
  case KGRT_EMU_OP_S_XOR_B64:
  case KGRT_EMU_OP_S_AND_NOT1_B64:
  case KGRT_EMU_OP_S_OR_NOT1_B64:
    A = kgrt_emu_s64(w, s0), B = kgrt_emu_s64(w, s1);
    R = in->opc == KGRT_EMU_OP_S_AND_B64        ? A & B
        : in->opc == KGRT_EMU_OP_S_OR_B64       ? A | B
        : in->opc == KGRT_EMU_OP_S_XOR_B64      ? A ^ B
        : in->opc == KGRT_EMU_OP_S_AND_NOT1_B64 ? A & ~B
                                                : A | ~B;
    kgrt_emu_sw64(w, d, R);
    w->scc = R != 0;
    return 0;
  case KGRT_EMU_OP_S_NOT_B32:
    r = ~a;
    kgrt_emu_sw32(w, d, r);
    w->scc = r != 0;
    return 0;
  case KGRT_EMU_OP_S_NOT_B64:
    R = ~kgrt_emu_s64(w, s0);
    kgrt_emu_sw64(w, d, R);
    w->scc = R != 0;
    return 0;
  case KGRT_EMU_OP_S_AND_SAVEEXEC_B32:
  case KGRT_EMU_OP_S_AND_SAVEEXEC_B64:
  case KGRT_EMU_OP_S_AND_NOT1_SAVEEXEC_B32:
  case KGRT_EMU_OP_S_AND_NOT1_SAVEEXEC_B64:
  case KGRT_EMU_OP_S_OR_SAVEEXEC_B32:
  case KGRT_EMU_OP_S_OR_SAVEEXEC_B64: {
    const uint64_t exec = kgrt_emu_exec_mask(w), src = kgrt_emu_mask(w, s0);
    const int op = in->opc;
    R = op == KGRT_EMU_OP_S_AND_SAVEEXEC_B32 || op == KGRT_EMU_OP_S_AND_SAVEEXEC_B64
            ? src & exec
        : op == KGRT_EMU_OP_S_OR_SAVEEXEC_B32 || op == KGRT_EMU_OP_S_OR_SAVEEXEC_B64
            ? src | exec
            : src & ~exec;
    if (w->W == 64)
      kgrt_emu_sw64(w, d, exec);
    else
      kgrt_emu_sw32(w, d, (uint32_t)exec);
    kgrt_emu_set_exec(w, R);
    w->scc = R != 0;
    return 0;
  }
  case KGRT_EMU_OP_S_ADD_U32:
    R = (uint64_t)a + b;
    kgrt_emu_sw32(w, d, (uint32_t)R);
    w->scc = R >> 32 != 0;
    return 0;
  case KGRT_EMU_OP_S_ADDC_U32:
    R = (uint64_t)a + b + (uint64_t)w->scc;
    kgrt_emu_sw32(w, d, (uint32_t)R);
    w->scc = R >> 32 != 0;
    return 0;
  case KGRT_EMU_OP_S_SUB_U32:
    kgrt_emu_sw32(w, d, a - b);
    w->scc = b > a;
    return 0;
  case KGRT_EMU_OP_S_SUBB_U32:
    kgrt_emu_sw32(w, d, a - b - (uint32_t)w->scc);
    w->scc = (uint64_t)b + (uint64_t)w->scc > a;
    return 0;
  case KGRT_EMU_OP_S_ADD_I32:
  case KGRT_EMU_OP_S_ADDK_I32: {
    if (in->opc == KGRT_EMU_OP_S_ADDK_I32) /* s_addk_i32 d, imm: d += imm */
      b = (uint32_t)(int32_t)(int16_t)a, a = kgrt_emu_s32(w, d);
    r = a + b;
    kgrt_emu_sw32(w, d, r);
    w->scc = ((a ^ r) & (b ^ r)) >> 31;
    return 0;
  }
  case KGRT_EMU_OP_S_SUB_I32:
    r = a - b;
    kgrt_emu_sw32(w, d, r);
    w->scc = ((a ^ b) & (a ^ r)) >> 31;
    return 0;
  case KGRT_EMU_OP_S_MUL_I32:
    kgrt_emu_sw32(w, d, a * b);
    return 0;
  case KGRT_EMU_OP_S_MULK_I32:
    kgrt_emu_sw32(w, d, kgrt_emu_s32(w, d) * (uint32_t)(int32_t)(int16_t)a);
    return 0;
  case KGRT_EMU_OP_S_MUL_HI_U32:
    kgrt_emu_sw32(w, d, (uint32_t)(((uint64_t)a * b) >> 32));
    return 0;
  case KGRT_EMU_OP_S_LSHL_B32:
    r = a << (b & 31);
    kgrt_emu_sw32(w, d, r);
    w->scc = r != 0;
    return 0;
  case KGRT_EMU_OP_S_LSHR_B32:
    r = a >> (b & 31);
    kgrt_emu_sw32(w, d, r);
    w->scc = r != 0;
    return 0;
  case KGRT_EMU_OP_S_ASHR_I32:
    r = (uint32_t)((int32_t)a >> (b & 31));
    kgrt_emu_sw32(w, d, r);
    w->scc = r != 0;
    return 0;
  case KGRT_EMU_OP_S_LSHL_B64:
  case KGRT_EMU_OP_S_LSHR_B64:
    A = kgrt_emu_s64(w, s0);
    R = in->opc == KGRT_EMU_OP_S_LSHL_B64 ? A << (b & 63) : A >> (b & 63);
    kgrt_emu_sw64(w, d, R);
    w->scc = R != 0;
    return 0;
  case KGRT_EMU_OP_S_MIN_I32:
    w->scc = (int32_t)a < (int32_t)b;
    kgrt_emu_sw32(w, d, w->scc ? a : b);
    return 0;
  case KGRT_EMU_OP_S_MAX_I32:
    w->scc = (int32_t)a > (int32_t)b;
    kgrt_emu_sw32(w, d, w->scc ? a : b);
    return 0;
  case KGRT_EMU_OP_S_MIN_U32:
    w->scc = a < b;
    kgrt_emu_sw32(w, d, w->scc ? a : b);
    return 0;
  case KGRT_EMU_OP_S_MAX_U32:
    w->scc = a > b;
    kgrt_emu_sw32(w, d, w->scc ? a : b);
    return 0;
  case KGRT_EMU_OP_S_ABS_I32:
    r = (int32_t)a < 0 ? 0u - a : a;
    kgrt_emu_sw32(w, d, r);
    w->scc = r != 0;
    return 0;
  case KGRT_EMU_OP_S_BCNT1_I32_B32:
    r = (uint32_t)__builtin_popcount(a);
    kgrt_emu_sw32(w, d, r);
    w->scc = r != 0;
    return 0;
  case KGRT_EMU_OP_S_BCNT1_I32_B64:
    r = (uint32_t)__builtin_popcountll(kgrt_emu_s64(w, s0));
    kgrt_emu_sw32(w, d, r);
    w->scc = r != 0;
    return 0;
  case KGRT_EMU_OP_S_BITSET1_B32: /* s_bitset1_b32 d, s0: d[s0] = 1 */
    kgrt_emu_sw32(w, d, kgrt_emu_s32(w, d) | 1u << (a & 31));
    return 0;
  case KGRT_EMU_OP_S_BITCMP1_B32:
    w->scc = (a >> (b & 31)) & 1;
    return 0;
  case KGRT_EMU_OP_S_BREV_B32:
    r = 0;
    for (int i = 0; i < 32; ++i)
      r |= ((a >> i) & 1u) << (31 - i);
    kgrt_emu_sw32(w, d, r);
    return 0;
  case KGRT_EMU_OP_S_BFE_U32: {
    const uint32_t off = b & 31, width = (b >> 16) & 0x7f;
    r = width == 0 ? 0 : width >= 32 ? a >> off : (a >> off) & ((1u << width) - 1);
    kgrt_emu_sw32(w, d, r);
    w->scc = r != 0;
    return 0;
  }
  case KGRT_EMU_OP_S_BFE_I32: {
    const uint32_t off = b & 31, width = (b >> 16) & 0x7f;
    r = width == 0    ? 0
        : width >= 32 ? (uint32_t)((int32_t)a >> off)
                      : (uint32_t)((int32_t)((a >> off) << (32 - width)) >> (32 - width));
    kgrt_emu_sw32(w, d, r);
    w->scc = r != 0;
    return 0;
  }
  case KGRT_EMU_OP_S_MUL_HI_I32:
    kgrt_emu_sw32(w, d, (uint32_t)((uint64_t)((int64_t)(int32_t)a * (int32_t)b) >> 32));
    return 0;
  case KGRT_EMU_OP_S_BITCMP0_B32:
    w->scc = !((a >> (b & 31)) & 1);
    return 0;
  case KGRT_EMU_OP_S_SEXT_I32_I8:
    kgrt_emu_sw32(w, d, (uint32_t)(int32_t)(int8_t)a);
    return 0;
  case KGRT_EMU_OP_S_SEXT_I32_I16:
    kgrt_emu_sw32(w, d, (uint32_t)(int32_t)(int16_t)a);
    return 0;
  case KGRT_EMU_OP_S_BITSET0_B32: /* s_bitset0_b32 d, s0: d[s0] = 0 */
    kgrt_emu_sw32(w, d, kgrt_emu_s32(w, d) & ~(1u << (a & 31)));
    return 0;
  case KGRT_EMU_OP_S_CMP:
    if (in->type == KGRT_EMU_T_U64)
      w->scc = emu_cmp_u(in->cmp, kgrt_emu_s64(w, s0), kgrt_emu_s64(w, s1));
    else if (in->type == KGRT_EMU_T_I32)
      w->scc =
          emu_cmp_i(in->cmp, (int32_t)a, in->sign ? (int32_t)(int16_t)b : (int32_t)b);
    else
      w->scc = emu_cmp_u(in->cmp, a, in->sign ? (b & 0xffff) : b);
    return 0;
  case KGRT_EMU_OP_S_LOAD:
    return emu_s_load(c, w, in);
  default:
    return kgrt_emu_fail(c, "not a scalar operation");
  }
}
