/* kgrt_emu_parse.c - parses the text LLVM's disassembler writes for one
 * instruction (mnemonic, operands, modifiers; a VOPD pair's two halves)
 * into a kgrt_emu_inst_t, for the emu device's decoder (kgrt_emu_decode.c).
 * No encoding is spelled out here: bytes -> text is LLVM's.
 *
 * Needs kgrt_emu_inst.h; pure functions of the text. Gives kgrt_emu_parse
 * (kgrt_emu_run.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kgrt_emu_run.h"

/* ---- names ---- */

static const char *const emu_op_names[] = {
#define KGRT_EMU_NAME(e, s) s,
    KGRT_EMU_OPS(KGRT_EMU_NAME)
#undef KGRT_EMU_NAME
};

/* gfx9 spellings of gfx11 names (whole mnemonic, suffix stripped). */
static const char *const emu_aliases[][2] = {
    {"s_andn2_b32", "s_and_not1_b32"},
    {"s_andn2_b64", "s_and_not1_b64"},
    {"s_orn2_b32", "s_or_not1_b32"},
    {"s_orn2_b64", "s_or_not1_b64"},
    {"s_andn2_saveexec_b64", "s_and_not1_saveexec_b64"},
    {"s_andn2_saveexec_b32", "s_and_not1_saveexec_b32"},
    {"v_add_u32", "v_add_nc_u32"},
    {"v_sub_u32", "v_sub_nc_u32"},
    {"v_subrev_u32", "v_subrev_nc_u32"},
    {"v_add_u16", "v_add_nc_u16"},
    {"v_sub_u16", "v_sub_nc_u16"},
    {"v_subrev_u16", "v_subrev_nc_u16"},
    {"v_addc_co_u32", "v_add_co_ci_u32"},
    {"v_subb_co_u32", "v_sub_co_ci_u32"},
    {"v_subbrev_co_u32", "v_subrev_co_ci_u32"},
    {"global_atomic_add", "global_atomic_add_u32"},
    {"v_mad_legacy_u16", "v_mad_u16"},
};

/* Operations that change nothing the emu models: the waits it does not count
 * (vscnt, expcnt), scheduling hints, cache control (one coherent memory),
 * messages. s_waitcnt's vmcnt and lgkmcnt are kept (kgrt_emu_wait.c). */
static const char *const emu_nops[] = {"s_nop",
                                       "s_delay_alu",
                                       "s_waitcnt_depctr",
                                       "s_waitcnt_vscnt",
                                       "s_waitcnt_expcnt",
                                       "s_clause",
                                       "s_code_end",
                                       "s_set_inst_prefetch_distance",
                                       "s_sendmsg",
                                       "buffer_gl0_inv",
                                       "buffer_gl1_inv",
                                       "buffer_wbl2",
                                       "buffer_inv",
                                       "s_dcache_inv",
                                       "s_setprio",
                                       "s_sleep"};

static const char *const emu_cmp_names[] = {"f",   "lt",  "eq",  "le",  "gt",  "lg",
                                            "ge",  "o",   "u",   "nge", "nlg", "ngt",
                                            "nle", "neq", "nlt", "t",   "ne"};
static const char *const emu_type_names[] = {"f16", "f32", "i16", "u16", "i32",
                                             "u32", "i64", "u64", "b32"};

static int emu_lookup(const char *const *list, size_t n, const char *s) {
  for (size_t i = 0; i < n; ++i)
    if (strcmp(list[i], s) == 0)
      return (int)i;
  return -1;
}
#define EMU_LOOKUP(list, s) emu_lookup(list, sizeof list / sizeof list[0], s)

/* Bytes of a memory suffix: b8 u8 i8 b16 u16 i16 b32 b64 b96 b128 b256 b512, and
 * gfx9's dword, dwordx2.., ubyte, sbyte, ushort, sshort, short, byte. */
static int emu_mem_bytes(const char *s, int *sign) {
  static const struct {
    const char *s;
    int bytes, sign;
  } t[] = {
      {"b8", 1, 0},       {"u8", 1, 0},        {"i8", 1, 1},       {"b16", 2, 0},
      {"u16", 2, 0},      {"i16", 2, 1},       {"b32", 4, 0},      {"b64", 8, 0},
      {"b96", 12, 0},     {"b128", 16, 0},     {"b256", 32, 0},    {"b512", 64, 0},
      {"dword", 4, 0},    {"dwordx2", 8, 0},   {"dwordx3", 12, 0}, {"dwordx4", 16, 0},
      {"dwordx8", 32, 0}, {"dwordx16", 64, 0}, {"ubyte", 1, 0},    {"sbyte", 1, 1},
      {"ushort", 2, 0},   {"sshort", 2, 1},    {"short", 2, 0},    {"byte", 1, 0}};
  for (size_t i = 0; i < sizeof t / sizeof t[0]; ++i)
    if (strcmp(t[i].s, s) == 0) {
      *sign = t[i].sign;
      return t[i].bytes;
    }
  return 0;
}

/* The mnemonic into in->opc and its fields; -1 when the emu lacks it. */
static int emu_mnemonic(char *m, kgrt_emu_inst_t *in) {
  size_t n = strlen(m);
  static const char *const suffixes[] = {"_e32", "_e64", "_sdwa", "_dpp"};
  for (size_t i = 0; i < 4; ++i) {
    size_t k = strlen(suffixes[i]);
    if (n > k && strcmp(m + n - k, suffixes[i]) == 0) {
      in->sdwa = i == 2;
      m[n - k] = '\0';
      break;
    }
  }
  if (EMU_LOOKUP(emu_nops, m) >= 0) {
    in->opc = KGRT_EMU_OP_NOP;
    return 0;
  }
  for (size_t i = 0; i < sizeof emu_aliases / sizeof emu_aliases[0]; ++i)
    if (strcmp(m, emu_aliases[i][0]) == 0)
      strcpy(m, emu_aliases[i][1]);
  /* memory: ds_read/ds_write and friends are gfx9's ds_load/ds_store */
  char buf[64];
  if (strncmp(m, "ds_read", 7) == 0 || strncmp(m, "ds_write", 8) == 0) {
    int load = m[3] == 'r';
    const char *rest = m + (load ? 7 : 8);
    if (strncmp(rest, "2st64_", 6) == 0)
      snprintf(buf, sizeof buf, "%s_2addr_stride64_%s", load ? "ds_load" : "ds_store",
               rest + 6);
    else if (strncmp(rest, "2_", 2) == 0)
      snprintf(buf, sizeof buf, "%s_2addr_%s", load ? "ds_load" : "ds_store", rest + 2);
    else
      snprintf(buf, sizeof buf, "%s%s", load ? "ds_load" : "ds_store", rest);
    strcpy(m, buf);
  }
  /* a 16- or 8-bit store of the data register's high half: ds_store_b16_d16_hi
   * (gfx9: ds_write_b16_d16_hi after the rename above), global_store_d16_hi_b16
   * (gfx9: global_store_short_d16_hi) */
  int store_hi = 0;
  n = strlen(m);
  if (n > 7 && strcmp(m + n - 7, "_d16_hi") == 0 &&
      (strncmp(m, "ds_store_", 9) == 0 || strncmp(m, "global_store_", 13) == 0 ||
       strncmp(m, "flat_store_", 11) == 0)) {
    m[n - 7] = '\0';
    store_hi = 1;
  } else if (strncmp(m, "global_store_d16_hi_", 20) == 0) {
    memmove(m + 13, m + 20, strlen(m + 20) + 1);
    store_hi = 1;
  }
  int sign = 0, bytes;
  static const struct {
    const char *prefix;
    int opc, stride64;
  } mem[] = {{"ds_load_2addr_stride64_", KGRT_EMU_OP_DS_LOAD_2ADDR, 1},
             {"ds_store_2addr_stride64_", KGRT_EMU_OP_DS_STORE_2ADDR, 1},
             {"ds_load_2addr_", KGRT_EMU_OP_DS_LOAD_2ADDR, 0},
             {"ds_store_2addr_", KGRT_EMU_OP_DS_STORE_2ADDR, 0},
             {"ds_load_", KGRT_EMU_OP_DS_LOAD, 0},
             {"ds_store_", KGRT_EMU_OP_DS_STORE, 0},
             {"global_load_d16_hi_", KGRT_EMU_OP_GLOBAL_LOAD, 2},
             {"global_load_d16_", KGRT_EMU_OP_GLOBAL_LOAD, 3},
             {"global_load_", KGRT_EMU_OP_GLOBAL_LOAD, 0},
             {"global_store_", KGRT_EMU_OP_GLOBAL_STORE, 0},
             {"flat_load_", KGRT_EMU_OP_GLOBAL_LOAD, 0}, /* a 64-bit address */
             {"flat_store_", KGRT_EMU_OP_GLOBAL_STORE, 0},
             {"scratch_load_", KGRT_EMU_OP_SCRATCH_LOAD, 0},
             {"scratch_store_", KGRT_EMU_OP_SCRATCH_STORE, 0},
             {"s_load_", KGRT_EMU_OP_S_LOAD, 0}};
  for (size_t i = 0; i < sizeof mem / sizeof mem[0]; ++i) {
    size_t k = strlen(mem[i].prefix);
    if (strncmp(m, mem[i].prefix, k) == 0 && (bytes = emu_mem_bytes(m + k, &sign)) > 0) {
      in->opc = (uint16_t)mem[i].opc;
      in->bytes = (uint8_t)bytes;
      in->sign = (uint8_t)sign;
      in->stride64 = mem[i].stride64 == 1;
      in->flat = m[0] == 'f';
      in->d16_hi = mem[i].stride64 == 2 ? 1 : mem[i].stride64 == 3 ? 2 : 0;
      if (store_hi) {
        if (bytes > 2 || (mem[i].opc != KGRT_EMU_OP_DS_STORE &&
                          mem[i].opc != KGRT_EMU_OP_GLOBAL_STORE))
          return -1;
        in->d16_hi = 1;
      }
      return 0;
    }
  }
  /* comparisons: v_cmp[x]_COND_TYPE, s_cmp[k]_COND_TYPE */
  if (strncmp(m, "v_cmp", 5) == 0 || strncmp(m, "s_cmp", 5) == 0) {
    const int vec = m[0] == 'v';
    const char *p = m + 5;
    if (*p == 'x' && vec)
      in->cmpx = 1, ++p;
    else if (*p == 'k' && !vec)
      in->sign = 1, ++p; /* s_cmpk: a 16-bit immediate */
    if (*p++ != '_')
      return -1;
    char cond[8];
    const char *u = strchr(p, '_');
    if (u == NULL || (size_t)(u - p) >= sizeof cond)
      return -1;
    memcpy(cond, p, (size_t)(u - p));
    cond[u - p] = '\0';
    const int t = EMU_LOOKUP(emu_type_names, u + 1);
    if (t < 0)
      return -1;
    in->type = (uint8_t)t;
    if (vec && strcmp(cond, "class") == 0 && t == KGRT_EMU_T_F32) {
      in->opc = KGRT_EMU_OP_V_CMP_CLASS_F32;
      return 0;
    }
    const int c = EMU_LOOKUP(emu_cmp_names, cond);
    if (c < 0)
      return -1;
    in->cmp = (uint8_t)c;
    in->opc = vec ? KGRT_EMU_OP_V_CMP : KGRT_EMU_OP_S_CMP;
    return 0;
  }
  const int op = EMU_LOOKUP(emu_op_names, m);
  if (op < 0 || op == KGRT_EMU_OP_V_CMP || op == KGRT_EMU_OP_S_CMP ||
      op == KGRT_EMU_OP_S_LOAD)
    return -1;
  in->opc = (uint16_t)op;
  return 0;
}

/* ---- operands ---- */

static int emu_special(const char *s, kgrt_emu_operand_t *o, int wave64) {
  static const struct {
    const char *s;
    int reg, count;
  } t[] = {{"vcc_lo", KGRT_EMU_SGPR_VCC, 1},   {"vcc_hi", KGRT_EMU_SGPR_VCC + 1, 1},
           {"exec_lo", KGRT_EMU_SGPR_EXEC, 1}, {"exec_hi", KGRT_EMU_SGPR_EXEC + 1, 1},
           {"m0", KGRT_EMU_SGPR_M0, 1},        {"null", KGRT_EMU_SGPR_NULL, 1}};
  for (size_t i = 0; i < sizeof t / sizeof t[0]; ++i)
    if (strcmp(s, t[i].s) == 0) {
      o->kind = KGRT_EMU_S, o->reg = (uint16_t)t[i].reg, o->count = (uint8_t)t[i].count;
      return 0;
    }
  if (strcmp(s, "vcc") == 0 || strcmp(s, "exec") == 0) {
    o->kind = KGRT_EMU_S;
    o->reg = s[0] == 'v' ? KGRT_EMU_SGPR_VCC : KGRT_EMU_SGPR_EXEC;
    o->count = wave64 ? 2 : 1;
    return 0;
  }
  if (strcmp(s, "scc") == 0 || strcmp(s, "src_scc") == 0) {
    o->kind = KGRT_EMU_SCC, o->count = 1;
    return 0;
  }
  if (strcmp(s, "off") == 0) {
    o->kind = KGRT_EMU_NONE;
    return 0;
  }
  if (strcmp(s, "src_private_base") == 0) { /* 64-bit: the aperture, low half 0 */
    o->kind = KGRT_EMU_K, o->count = 1;
    o->value = (uint64_t)KGRT_EMU_PRIVATE_HI << 32;
    return 0;
  }
  return -1;
}

/* One operand's text: [-][|]reg or constant[|]. */
static int emu_operand(char *s, kgrt_emu_operand_t *o, int wave64) {
  memset(o, 0, sizeof *o);
  if (*s == '-' && (s[1] == '|' || s[1] == 'v' || s[1] == 's' || s[1] == 'a' ||
                    strncmp(s + 1, "vcc", 3) == 0))
    o->neg = 1, ++s;
  size_t n = strlen(s);
  if (*s == '|' && n > 2 && s[n - 1] == '|') {
    o->abs = 1;
    s[n - 1] = '\0';
    ++s;
  }
  if (strncmp(s, "sext(", 5) == 0 &&
      s[strlen(s) - 1] == ')') { /* SDWA: the selection sign-extended */
    o->sext = 1;
    s[strlen(s) - 1] = '\0';
    s += 5;
  }
  if (strncmp(s, "abs(", 4) == 0 && s[strlen(s) - 1] == ')') {
    o->abs = 1;
    s[strlen(s) - 1] = '\0';
    s += 4;
  }
  if (emu_special(s, o, wave64) == 0)
    return 0;
  if ((s[0] == 'v' || s[0] == 's' || s[0] == 'a') &&
      (s[1] == '[' || (s[1] >= '0' && s[1] <= '9'))) {
    o->kind = s[0] == 'v' ? KGRT_EMU_V : s[0] == 's' ? KGRT_EMU_S : KGRT_EMU_A;
    char *end;
    if (s[1] == '[') {
      long lo = strtol(s + 2, &end, 10);
      if (*end != ':')
        return -1;
      long hi = strtol(end + 1, &end, 10);
      if (*end != ']' || hi < lo || hi - lo >= 32)
        return -1;
      o->reg = (uint16_t)lo, o->count = (uint8_t)(hi - lo + 1);
    } else {
      long r = strtol(s + 1, &end, 10);
      if (*end != '\0')
        return -1;
      o->reg = (uint16_t)r, o->count = 1;
    }
    return o->kind == KGRT_EMU_S && o->reg + o->count > 106 ? -1 : 0;
  }
  /* a constant */
  o->kind = KGRT_EMU_K;
  o->count = 1;
  char *end;
  if (strncmp(s, "0x", 2) == 0 || strncmp(s, "-0x", 3) == 0) {
    int negh = s[0] == '-';
    o->value = strtoull(s + (negh ? 3 : 2), &end, 16);
    if (negh)
      o->value = (uint64_t) - (int64_t)o->value;
  } else if (strchr(s, '.') != NULL) {
    o->fvalue = strtod(s, &end);
    o->is_float = 1;
  } else {
    o->value = (uint64_t)strtoll(s, &end, 10);
  }
  return *end == '\0' ? 0 : -1;
}

/* f32/f16/f64 bits of a float constant; 1/(2*pi) is the hardware's inline
 * constant, not the nearest of its printed digits. */
static uint64_t emu_float_bits(double f, int type_bits) {
  if (fabs(fabs(f) - 0.15915494309189535) < 1e-7) {
    uint64_t b = type_bits == 16   ? 0x3118
                 : type_bits == 64 ? 0x3fc45f306dc9c882ull
                                   : 0x3e22f983;
    return f < 0 ? b | (type_bits == 16   ? 0x8000
                        : type_bits == 64 ? 1ull << 63
                                          : 1u << 31)
                 : b;
  }
  if (type_bits == 64) {
    uint64_t u;
    memcpy(&u, &f, 8);
    return u;
  }
  float x = (float)f;
  uint32_t u;
  memcpy(&u, &x, 4);
  if (type_bits == 32)
    return u;
  return kgrt_emu_f32_to_f16(x);
}

/* Splits text at top-level spaces and commas into tokens (brackets kept whole). */
static int emu_tokens(char *s, char **tok, int *comma_after, int max) {
  int n = 0;
  while (*s) {
    while (*s == ' ' || *s == '\t')
      ++s;
    if (!*s)
      break;
    if (n == max)
      return -1;
    tok[n] = s;
    int depth = 0;
    while (*s && (depth > 0 || (*s != ' ' && *s != ','))) {
      if (*s == '[' || *s == '(')
        ++depth;
      else if (*s == ']' || *s == ')')
        --depth;
      ++s;
    }
    comma_after[n] = *s == ',';
    if (*s)
      *s++ = '\0';
    ++n;
  }
  return n;
}

static int emu_bits3(const char *s) { /* "[1,0,1]" -> bit mask */
  int m = 0, i = 0;
  for (const char *p = s; *p; ++p)
    if (*p == '0' || *p == '1')
      m |= (*p - '0') << i++;
  return m;
}

static int emu_sel(const char *s) {
  static const char *const t[] = {"DWORD",  "BYTE_0", "BYTE_1", "BYTE_2",
                                  "BYTE_3", "WORD_0", "WORD_1"};
  return EMU_LOOKUP(t, s);
}

/* The modifier token into in; -1 when unknown. */
static int emu_modifier(const char *t, kgrt_emu_inst_t *in) {
  if (strcmp(t, "clamp") == 0)
    in->clamp = 1;
  else if (strcmp(t, "mul:2") == 0)
    in->omod_mul = 2;
  else if (strcmp(t, "mul:4") == 0)
    in->omod_mul = 4;
  else if (strcmp(t, "div:2") == 0)
    in->omod_mul = 1;
  else if (strncmp(t, "offset:", 7) == 0)
    in->offset = (int32_t)strtol(t + 7, NULL, 0);
  else if (strncmp(t, "offset0:", 8) == 0)
    in->offset = (int32_t)strtol(t + 8, NULL, 0);
  else if (strncmp(t, "offset1:", 8) == 0)
    in->offset1 = (int32_t)strtol(t + 8, NULL, 0);
  else if (strncmp(t, "op_sel:", 7) == 0)
    in->op_sel = (uint8_t)emu_bits3(t + 7);
  else if (strncmp(t, "op_sel_hi:", 10) == 0)
    in->op_sel_hi = (uint8_t)emu_bits3(t + 10);
  else if (strncmp(t, "neg_lo:", 7) == 0)
    in->neg_lo = (uint8_t)emu_bits3(t + 7);
  else if (strncmp(t, "neg_hi:", 7) == 0)
    in->neg_hi = (uint8_t)emu_bits3(t + 7);
  else if (strncmp(t, "dst_sel:", 8) == 0)
    in->dst_sel = (uint8_t)emu_sel(t + 8);
  else if (strncmp(t, "dst_unused:", 11) == 0)
    in->dst_unused = strcmp(t + 11, "UNUSED_PRESERVE") == 0 ? 2
                     : strcmp(t + 11, "UNUSED_SEXT") == 0   ? 1
                                                            : 0;
  else if (strncmp(t, "src0_sel:", 9) == 0)
    in->src_sel[0] = (uint8_t)emu_sel(t + 9);
  else if (strncmp(t, "src1_sel:", 9) == 0)
    in->src_sel[1] = (uint8_t)emu_sel(t + 9);
  else if (strcmp(t, "glc") == 0 || strcmp(t, "slc") == 0 || strcmp(t, "dlc") == 0 ||
           strcmp(t, "sc0") == 0 || strcmp(t, "sc1") == 0 || strcmp(t, "nt") == 0 ||
           strncmp(t, "cbsz:", 5) == 0 || strncmp(t, "abid:", 5) == 0 ||
           strncmp(t, "blgp:", 5) == 0)
    in->sign |= (uint8_t)((strncmp(t, "cbsz", 4) == 0 || strncmp(t, "abid", 4) == 0 ||
                           strncmp(t, "blgp", 4) == 0) &&
                                  t[5] != '0'
                              ? 0x80
                              : 0);
  else
    return -1;
  return 0;
}

/* How many of an operation's leading operands are destinations. */
static int emu_ndst(const kgrt_emu_inst_t *in, int nops) {
  switch (in->opc) {
  case KGRT_EMU_OP_NOP:
  case KGRT_EMU_OP_ENDPGM:
  case KGRT_EMU_OP_BARRIER:
  case KGRT_EMU_OP_BRANCH:
  case KGRT_EMU_OP_CBRANCH_SCC0:
  case KGRT_EMU_OP_CBRANCH_SCC1:
  case KGRT_EMU_OP_CBRANCH_VCCZ:
  case KGRT_EMU_OP_CBRANCH_VCCNZ:
  case KGRT_EMU_OP_CBRANCH_EXECZ:
  case KGRT_EMU_OP_CBRANCH_EXECNZ:
  case KGRT_EMU_OP_S_CMP:
  case KGRT_EMU_OP_S_BITCMP1_B32:
  case KGRT_EMU_OP_S_BITCMP0_B32:
  case KGRT_EMU_OP_SCRATCH_STORE:
  case KGRT_EMU_OP_DS_STORE:
  case KGRT_EMU_OP_DS_STORE_2ADDR:
  case KGRT_EMU_OP_GLOBAL_STORE:
    return 0;
  case KGRT_EMU_OP_DS_ADD_U32: /* ds_add_u32 vaddr, vdata (no return) */
    return 0;
  case KGRT_EMU_OP_GLOBAL_ATOMIC_ADD_U32: /* vdst only with a return (glc/sc0) */
    return nops == 4 || (nops == 3 && 0) ? 1 : 0;
  case KGRT_EMU_OP_V_CMP:
  case KGRT_EMU_OP_V_CMP_CLASS_F32:
    return in->cmpx && nops == 2 ? 0 : 1;
  case KGRT_EMU_OP_V_ADD_CO_U32:
  case KGRT_EMU_OP_V_SUB_CO_U32:
  case KGRT_EMU_OP_V_SUBREV_CO_U32:
  case KGRT_EMU_OP_V_ADD_CO_CI_U32:
  case KGRT_EMU_OP_V_SUB_CO_CI_U32:
  case KGRT_EMU_OP_V_SUBREV_CO_CI_U32:
  case KGRT_EMU_OP_V_DIV_SCALE_F32:
  case KGRT_EMU_OP_V_MAD_U64_U32:
  case KGRT_EMU_OP_V_MAD_I64_I32:
    return 2;
  default:
    return 1;
  }
}

/* The width in bits of source i's float constants (16, 32, 64). */
static int emu_k_bits(const kgrt_emu_inst_t *in, int i) {
  switch (in->opc) {
  case KGRT_EMU_OP_V_MUL_F16:
  case KGRT_EMU_OP_V_ADD_F16:
  case KGRT_EMU_OP_V_SUB_F16:
  case KGRT_EMU_OP_V_MAX_F16:
  case KGRT_EMU_OP_V_RCP_F16:
  case KGRT_EMU_OP_V_DIV_FIXUP_F16:
  case KGRT_EMU_OP_V_PK_MUL_F16:
  case KGRT_EMU_OP_V_PK_ADD_F16:
  case KGRT_EMU_OP_V_PK_MAX_F16:
  case KGRT_EMU_OP_V_CVT_F32_F16:
  case KGRT_EMU_OP_V_PACK_B32_F16:
  case KGRT_EMU_OP_V_DOT2ACC_F32_F16:
    return 16;
  case KGRT_EMU_OP_V_FMA_MIX_F32:
  case KGRT_EMU_OP_V_FMA_MIXLO_F16:
  case KGRT_EMU_OP_V_FMA_MIXHI_F16:
    return (in->op_sel_hi >> i) & 1 ? 16 : 32;
  case KGRT_EMU_OP_V_CMP:
    return in->type == KGRT_EMU_T_F16 ? 16 : 32;
  default:
    return 32;
  }
}

static int emu_parse_half(char *text, kgrt_emu_inst_t *in, int wave64, char *why,
                          size_t why_size) {
  char *tok[24];
  int comma[24];
  int n = emu_tokens(text, tok, comma, 24);
  if (n <= 0)
    return snprintf(why, why_size, "empty"), -1;
  char mn[64];
  snprintf(mn, sizeof mn, "%s", tok[0]);
  if (strncmp(mn, "v_dual_", 7) == 0)
    memmove(mn + 2, mn + 7, strlen(mn + 7) + 1);
  if (strcmp(mn, "s_waitcnt") == 0 || strcmp(mn, "s_waitcnt_vmcnt") == 0 ||
      strcmp(mn, "s_waitcnt_lgkmcnt") == 0) {
    /* "s_waitcnt vmcnt(N) lgkmcnt(N) ..."; "s_waitcnt_vmcnt null, N"; any other
     * form waits for everything */
    in->opc = KGRT_EMU_OP_S_WAITCNT;
    in->offset = in->offset1 = -1;
    for (int i = 1; i < n; ++i) {
      const char *t = tok[i];
      if (mn[9] == '_') {
        const int v =
            strcmp(tok[1], "null") == 0 && n == 3 ? (int)strtol(tok[2], NULL, 0) : 0;
        if (mn[10] == 'v')
          in->offset = v;
        else
          in->offset1 = v;
        break;
      }
      if (strncmp(t, "vmcnt(", 6) == 0)
        in->offset = (int)strtol(t + 6, NULL, 10);
      else if (strncmp(t, "lgkmcnt(", 8) == 0)
        in->offset1 = (int)strtol(t + 8, NULL, 10);
      else if (strncmp(t, "expcnt(", 7) != 0)
        in->offset = in->offset1 = 0;
    }
    if (n == 1)
      in->offset = in->offset1 = 0;
    return 0;
  }
  if (emu_mnemonic(mn, in) != 0)
    return snprintf(why, why_size, "the emu does not implement %s", tok[0]), -1;
  if (in->opc == KGRT_EMU_OP_NOP)
    return 0;
  /* operands: tokens up to the last one followed by a comma, and one more */
  int nops = 0;
  kgrt_emu_operand_t ops[8];
  int i = 1;
  for (; i < n; ++i) {
    if (nops == 8)
      return snprintf(why, why_size, "too many operands"), -1;
    if (emu_operand(tok[i], &ops[nops], wave64) != 0) {
      if (!(i > 1 && !comma[i - 1]))
        return snprintf(why, why_size, "operand '%s'", tok[i]), -1;
      break; /* a modifier */
    }
    nops++;
    if (!comma[i]) {
      ++i;
      break;
    }
  }
  in->op_sel_hi = 0xff; /* absent: VOP3P's default, all ones; the mixes' zero */
  for (; i < n; ++i)
    if (emu_modifier(tok[i], in) != 0)
      return snprintf(why, why_size, "modifier '%s'", tok[i]), -1;
  if (in->op_sel_hi == 0xff)
    in->op_sel_hi =
        in->opc == KGRT_EMU_OP_V_PK_MUL_F16 || in->opc == KGRT_EMU_OP_V_PK_ADD_F16 ||
                in->opc == KGRT_EMU_OP_V_PK_MAX_F16 ||
                in->opc == KGRT_EMU_OP_V_PK_FMA_F32 ||
                in->opc == KGRT_EMU_OP_V_PK_ADD_F32 || in->opc == KGRT_EMU_OP_V_PK_MUL_F32
            ? 7
            : 0;
  int nd = emu_ndst(in, nops);
  if (nd > nops)
    nd = nops;
  /* gfx11's wave32 v_dual_cndmask_b32 reads vcc_lo implicitly */
  in->ndst = (uint8_t)nd;
  in->nsrc = (uint8_t)(nops - nd);
  if (in->nsrc > 4)
    return snprintf(why, why_size, "too many sources"), -1;
  for (int d = 0; d < nd; ++d)
    in->dst[d] = ops[d];
  for (int s = 0; s < in->nsrc; ++s) {
    in->src[s] = ops[nd + s];
    kgrt_emu_operand_t *o = &in->src[s];
    if (o->kind == KGRT_EMU_K && o->is_float)
      o->value = emu_float_bits(o->fvalue, emu_k_bits(in, s));
  }
  if (in->opc == KGRT_EMU_OP_V_CNDMASK_B32 && in->nsrc == 2) {
    in->src[2] = (kgrt_emu_operand_t){
        .kind = KGRT_EMU_S, .count = (uint8_t)(wave64 ? 2 : 1), .reg = KGRT_EMU_SGPR_VCC};
    in->nsrc = 3;
  }
  return 0;
}

/* Parses LLVM's text of the instruction at pc into in. */
int kgrt_emu_parse(char *text, uint64_t pc, kgrt_emu_inst_t *pair, int wave64, char *why,
                   size_t why_size) {
  (void)pc;
  char *sep = strstr(text, " :: ");
  if (sep != NULL) {
    *sep = '\0';
    if (emu_parse_half(text, &pair[0], wave64, why, why_size) != 0 ||
        emu_parse_half(sep + 4, &pair[1], wave64, why, why_size) != 0)
      return -1;
    pair[0].dual = 1;
    return 0;
  }
  return emu_parse_half(text, &pair[0], wave64, why, why_size);
}
