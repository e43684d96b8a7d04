/* kgrt_emu_inst.h - a decoded instruction of the emu device (internal):
 * what kgrt_emu_decode.c makes of LLVM's disassembly of one instruction, and
 * what the executors (kgrt_emu_salu.c, kgrt_emu_valu.c, kgrt_emu_vmem.c,
 * kgrt_emu_matrix.c) run, on the wave state of kgrt_emu_wave.h.
 *
 * Operations are named by their mnemonic (the gfx11 spelling; gfx9's older
 * names are aliases), listed once in KGRT_EMU_OPS. */
#ifndef KGRT_EMU_INST_H
#define KGRT_EMU_INST_H

#include <stdint.h>

/* Every operation the emu implements: X(enum suffix, mnemonic). */
#define KGRT_EMU_OPS(X)                                                                  \
  X(NOP, "s_nop")                                                                        \
  X(ENDPGM, "s_endpgm")                                                                  \
  X(BARRIER, "s_barrier")                                                                \
  X(S_WAITCNT, "s_waitcnt")                                                              \
  X(BRANCH, "s_branch")                                                                  \
  X(CBRANCH_SCC0, "s_cbranch_scc0")                                                      \
  X(CBRANCH_SCC1, "s_cbranch_scc1")                                                      \
  X(CBRANCH_VCCZ, "s_cbranch_vccz")                                                      \
  X(CBRANCH_VCCNZ, "s_cbranch_vccnz")                                                    \
  X(CBRANCH_EXECZ, "s_cbranch_execz")                                                    \
  X(CBRANCH_EXECNZ, "s_cbranch_execnz")                                                  \
  X(S_GETPC_B64, "s_getpc_b64")                                                          \
  X(S_MOV_B32, "s_mov_b32")                                                              \
  X(S_MOV_B64, "s_mov_b64")                                                              \
  X(S_MOVK_I32, "s_movk_i32")                                                            \
  X(S_CSELECT_B32, "s_cselect_b32")                                                      \
  X(S_CSELECT_B64, "s_cselect_b64")                                                      \
  X(S_AND_B32, "s_and_b32")                                                              \
  X(S_AND_B64, "s_and_b64")                                                              \
  X(S_OR_B32, "s_or_b32")                                                                \
  X(S_OR_B64, "s_or_b64")                                                                \
  X(S_XOR_B32, "s_xor_b32")                                                              \
  X(S_XOR_B64, "s_xor_b64")                                                              \
  X(S_AND_NOT1_B32, "s_and_not1_b32")                                                    \
  X(S_AND_NOT1_B64, "s_and_not1_b64")                                                    \
  X(S_OR_NOT1_B32, "s_or_not1_b32")                                                      \
  X(S_OR_NOT1_B64, "s_or_not1_b64")                                                      \
  X(S_NOT_B32, "s_not_b32")                                                              \
  X(S_NOT_B64, "s_not_b64")                                                              \
  X(S_AND_SAVEEXEC_B32, "s_and_saveexec_b32")                                            \
  X(S_AND_SAVEEXEC_B64, "s_and_saveexec_b64")                                            \
  X(S_AND_NOT1_SAVEEXEC_B32, "s_and_not1_saveexec_b32")                                  \
  X(S_AND_NOT1_SAVEEXEC_B64, "s_and_not1_saveexec_b64")                                  \
  X(S_OR_SAVEEXEC_B32, "s_or_saveexec_b32")                                              \
  X(S_OR_SAVEEXEC_B64, "s_or_saveexec_b64")                                              \
  X(S_ADD_U32, "s_add_u32")                                                              \
  X(S_ADDC_U32, "s_addc_u32")                                                            \
  X(S_SUB_U32, "s_sub_u32")                                                              \
  X(S_SUBB_U32, "s_subb_u32")                                                            \
  X(S_ADD_I32, "s_add_i32")                                                              \
  X(S_SUB_I32, "s_sub_i32")                                                              \
  X(S_ADDK_I32, "s_addk_i32")                                                            \
  X(S_MUL_I32, "s_mul_i32")                                                              \
  X(S_MULK_I32, "s_mulk_i32")                                                            \
  X(S_MUL_HI_U32, "s_mul_hi_u32")                                                        \
  X(S_LSHL_B32, "s_lshl_b32")                                                            \
  X(S_LSHL_B64, "s_lshl_b64")                                                            \
  X(S_LSHR_B32, "s_lshr_b32")                                                            \
  X(S_LSHR_B64, "s_lshr_b64")                                                            \
  X(S_ASHR_I32, "s_ashr_i32")                                                            \
  X(S_MIN_I32, "s_min_i32")                                                              \
  X(S_MIN_U32, "s_min_u32")                                                              \
  X(S_MAX_I32, "s_max_i32")                                                              \
  X(S_MAX_U32, "s_max_u32")                                                              \
  X(S_ABS_I32, "s_abs_i32")                                                              \
  X(S_BCNT1_I32_B32, "s_bcnt1_i32_b32")                                                  \
  X(S_BCNT1_I32_B64, "s_bcnt1_i32_b64")                                                  \
  X(S_BITSET1_B32, "s_bitset1_b32")                                                      \
  X(S_BITCMP1_B32, "s_bitcmp1_b32")                                                      \
  X(S_BREV_B32, "s_brev_b32")                                                            \
  X(S_BFE_U32, "s_bfe_u32")                                                              \
  X(S_BFE_I32, "s_bfe_i32")                                                              \
  X(S_MUL_HI_I32, "s_mul_hi_i32")                                                        \
  X(S_BITCMP0_B32, "s_bitcmp0_b32")                                                      \
  X(S_SEXT_I32_I8, "s_sext_i32_i8")                                                      \
  X(S_SEXT_I32_I16, "s_sext_i32_i16")                                                    \
  X(S_BITSET0_B32, "s_bitset0_b32")                                                      \
  X(S_CMP, "s_cmp")                                                                      \
  X(S_LOAD, "s_load")                                                                    \
  X(V_MOV_B32, "v_mov_b32")                                                              \
  X(V_MOV_B64, "v_mov_b64")                                                              \
  X(V_CNDMASK_B32, "v_cndmask_b32")                                                      \
  X(V_READFIRSTLANE_B32, "v_readfirstlane_b32")                                          \
  X(V_READLANE_B32, "v_readlane_b32")                                                    \
  X(V_WRITELANE_B32, "v_writelane_b32")                                                  \
  X(V_ADD_F32, "v_add_f32")                                                              \
  X(V_SUB_F32, "v_sub_f32")                                                              \
  X(V_SUBREV_F32, "v_subrev_f32")                                                        \
  X(V_TRUNC_F32, "v_trunc_f32")                                                          \
  X(V_MUL_F32, "v_mul_f32")                                                              \
  X(V_MAX_F32, "v_max_f32")                                                              \
  X(V_MIN_F32, "v_min_f32")                                                              \
  X(V_FMAC_F32, "v_fmac_f32")                                                            \
  X(V_FMA_F32, "v_fma_f32")                                                              \
  X(V_FMAMK_F32, "v_fmamk_f32")                                                          \
  X(V_FMAAK_F32, "v_fmaak_f32")                                                          \
  X(V_LDEXP_F32, "v_ldexp_f32")                                                          \
  X(V_EXP_F32, "v_exp_f32")                                                              \
  X(V_LOG_F32, "v_log_f32")                                                              \
  X(V_RCP_F32, "v_rcp_f32")                                                              \
  X(V_RCP_IFLAG_F32, "v_rcp_iflag_f32")                                                  \
  X(V_RSQ_F32, "v_rsq_f32")                                                              \
  X(V_SQRT_F32, "v_sqrt_f32")                                                            \
  X(V_SIN_F32, "v_sin_f32")                                                              \
  X(V_COS_F32, "v_cos_f32")                                                              \
  X(V_RNDNE_F32, "v_rndne_f32")                                                          \
  X(V_DIV_SCALE_F32, "v_div_scale_f32")                                                  \
  X(V_DIV_FMAS_F32, "v_div_fmas_f32")                                                    \
  X(V_DIV_FIXUP_F32, "v_div_fixup_f32")                                                  \
  X(V_CVT_F32_F16, "v_cvt_f32_f16")                                                      \
  X(V_CVT_F16_F32, "v_cvt_f16_f32")                                                      \
  X(V_CVT_F32_I32, "v_cvt_f32_i32")                                                      \
  X(V_CVT_F32_U32, "v_cvt_f32_u32")                                                      \
  X(V_CVT_I32_F32, "v_cvt_i32_f32")                                                      \
  X(V_CVT_U32_F32, "v_cvt_u32_f32")                                                      \
  X(V_CVT_F32_UBYTE0, "v_cvt_f32_ubyte0")                                                \
  X(V_CVT_F32_UBYTE2, "v_cvt_f32_ubyte2")                                                \
  X(V_PACK_B32_F16, "v_pack_b32_f16")                                                    \
  X(V_MUL_F16, "v_mul_f16")                                                              \
  X(V_ADD_F16, "v_add_f16")                                                              \
  X(V_SUB_F16, "v_sub_f16")                                                              \
  X(V_MAX_F16, "v_max_f16")                                                              \
  X(V_RCP_F16, "v_rcp_f16")                                                              \
  X(V_DIV_FIXUP_F16, "v_div_fixup_f16")                                                  \
  X(V_PK_MUL_F16, "v_pk_mul_f16")                                                        \
  X(V_PK_ADD_F16, "v_pk_add_f16")                                                        \
  X(V_PK_MAX_F16, "v_pk_max_f16")                                                        \
  X(V_PK_FMA_F32, "v_pk_fma_f32")                                                        \
  X(V_PK_ADD_F32, "v_pk_add_f32")                                                        \
  X(V_PK_MUL_F32, "v_pk_mul_f32")                                                        \
  X(V_FMA_MIX_F32, "v_fma_mix_f32")                                                      \
  X(V_FMA_MIXLO_F16, "v_fma_mixlo_f16")                                                  \
  X(V_FMA_MIXHI_F16, "v_fma_mixhi_f16")                                                  \
  X(V_DOT2ACC_F32_F16, "v_dot2acc_f32_f16")                                              \
  X(V_AND_B32, "v_and_b32")                                                              \
  X(V_OR_B32, "v_or_b32")                                                                \
  X(V_XOR_B32, "v_xor_b32")                                                              \
  X(V_NOT_B32, "v_not_b32")                                                              \
  X(V_BFREV_B32, "v_bfrev_b32")                                                          \
  X(V_AND_OR_B32, "v_and_or_b32")                                                        \
  X(V_OR3_B32, "v_or3_b32")                                                              \
  X(V_LSHLREV_B32, "v_lshlrev_b32")                                                      \
  X(V_LSHRREV_B32, "v_lshrrev_b32")                                                      \
  X(V_ASHRREV_I32, "v_ashrrev_i32")                                                      \
  X(V_LSHLREV_B64, "v_lshlrev_b64")                                                      \
  X(V_LSHRREV_B64, "v_lshrrev_b64")                                                      \
  X(V_ASHRREV_I64, "v_ashrrev_i64")                                                      \
  X(V_LSHLREV_B16, "v_lshlrev_b16")                                                      \
  X(V_LSHRREV_B16, "v_lshrrev_b16")                                                      \
  X(V_ASHRREV_I16, "v_ashrrev_i16")                                                      \
  X(V_LSHL_ADD_U32, "v_lshl_add_u32")                                                    \
  X(V_LSHL_ADD_U64, "v_lshl_add_u64")                                                    \
  X(V_LSHL_OR_B32, "v_lshl_or_b32")                                                      \
  X(V_ADD_LSHL_U32, "v_add_lshl_u32")                                                    \
  X(V_ADD3_U32, "v_add3_u32")                                                            \
  X(V_XAD_U32, "v_xad_u32")                                                              \
  X(V_BFE_U32, "v_bfe_u32")                                                              \
  X(V_BFE_I32, "v_bfe_i32")                                                              \
  X(V_PERM_B32, "v_perm_b32")                                                            \
  X(V_ALIGNBIT_B32, "v_alignbit_b32")                                                    \
  X(V_BFI_B32, "v_bfi_b32")                                                              \
  X(V_ADD_NC_U32, "v_add_nc_u32")                                                        \
  X(V_SUB_NC_U32, "v_sub_nc_u32")                                                        \
  X(V_SUBREV_NC_U32, "v_subrev_nc_u32")                                                  \
  X(V_ADD_NC_U16, "v_add_nc_u16")                                                        \
  X(V_SUB_NC_U16, "v_sub_nc_u16")                                                        \
  X(V_SUBREV_NC_U16, "v_subrev_nc_u16")                                                  \
  X(V_MUL_LO_U16, "v_mul_lo_u16")                                                        \
  X(V_MAX_U16, "v_max_u16")                                                              \
  X(V_MIN_U16, "v_min_u16")                                                              \
  X(V_MAX_I16, "v_max_i16")                                                              \
  X(V_MIN_I16, "v_min_i16")                                                              \
  X(V_ADD_CO_U32, "v_add_co_u32")                                                        \
  X(V_SUB_CO_U32, "v_sub_co_u32")                                                        \
  X(V_SUBREV_CO_U32, "v_subrev_co_u32")                                                  \
  X(V_ADD_CO_CI_U32, "v_add_co_ci_u32")                                                  \
  X(V_SUB_CO_CI_U32, "v_sub_co_ci_u32")                                                  \
  X(V_SUBREV_CO_CI_U32, "v_subrev_co_ci_u32")                                            \
  X(V_MIN_I32, "v_min_i32")                                                              \
  X(V_MAX_I32, "v_max_i32")                                                              \
  X(V_MAX_U32, "v_max_u32")                                                              \
  X(V_MIN_U32, "v_min_u32")                                                              \
  X(V_MUL_LO_U32, "v_mul_lo_u32")                                                        \
  X(V_MUL_HI_U32, "v_mul_hi_u32")                                                        \
  X(V_MUL_U32_U24, "v_mul_u32_u24")                                                      \
  X(V_MUL_HI_U32_U24, "v_mul_hi_u32_u24")                                                \
  X(V_MUL_I32_I24, "v_mul_i32_i24")                                                      \
  X(V_MUL_HI_I32_I24, "v_mul_hi_i32_i24")                                                \
  X(V_MAD_U32_U24, "v_mad_u32_u24")                                                      \
  X(V_MAD_I32_I24, "v_mad_i32_i24")                                                      \
  X(V_MAD_U64_U32, "v_mad_u64_u32")                                                      \
  X(V_MAD_I64_I32, "v_mad_i64_i32")                                                      \
  X(V_MBCNT_LO_U32_B32, "v_mbcnt_lo_u32_b32")                                            \
  X(V_MBCNT_HI_U32_B32, "v_mbcnt_hi_u32_b32")                                            \
  X(V_MED3_I32, "v_med3_i32")                                                            \
  X(V_MINMAX_I32, "v_minmax_i32")                                                        \
  X(V_XOR3_B32, "v_xor3_b32")                                                            \
  X(V_MAD_U16, "v_mad_u16")                                                              \
  X(V_MUL_HI_I32, "v_mul_hi_i32")                                                        \
  X(V_CMP, "v_cmp")                                                                      \
  X(V_CMP_CLASS_F32, "v_cmp_class_f32")                                                  \
  X(V_ACCVGPR_READ_B32, "v_accvgpr_read_b32")                                            \
  X(V_ACCVGPR_WRITE_B32, "v_accvgpr_write_b32")                                          \
  X(V_WMMA_F32_16X16X16_F16, "v_wmma_f32_16x16x16_f16")                                  \
  X(V_WMMA_F32_16X16X16_BF16, "v_wmma_f32_16x16x16_bf16")                                \
  X(V_MFMA_F32_32X32X8_F16, "v_mfma_f32_32x32x8_f16")                                    \
  X(V_MFMA_F32_32X32X8_BF16, "v_mfma_f32_32x32x8_bf16")                                  \
  X(V_MFMA_F32_16X16X16_F16, "v_mfma_f32_16x16x16_f16")                                  \
  X(V_MFMA_F32_16X16X16_BF16, "v_mfma_f32_16x16x16_bf16")                                \
  X(DS_LOAD, "ds_load")                                                                  \
  X(DS_STORE, "ds_store")                                                                \
  X(DS_LOAD_2ADDR, "ds_load_2addr")                                                      \
  X(DS_STORE_2ADDR, "ds_store_2addr")                                                    \
  X(DS_ADD_U32, "ds_add_u32")                                                            \
  X(DS_BPERMUTE_B32, "ds_bpermute_b32")                                                  \
  X(GLOBAL_LOAD, "global_load")                                                          \
  X(GLOBAL_STORE, "global_store")                                                        \
  X(GLOBAL_ATOMIC_ADD_U32, "global_atomic_add_u32")                                      \
  X(SCRATCH_LOAD, "scratch_load")                                                        \
  X(SCRATCH_STORE, "scratch_store")

typedef enum kgrt_emu_opc {
#define KGRT_EMU_ENUM(e, s) KGRT_EMU_OP_##e,
  KGRT_EMU_OPS(KGRT_EMU_ENUM)
#undef KGRT_EMU_ENUM
      KGRT_EMU_OP_COUNT
} kgrt_emu_opc_t;

/* An operand's kind. S: a scalar register (an index into the wave's SGPR
 * array, where vcc is 106, m0 124, exec 126; NULL: writes dropped, reads 0).
 * V and A: vector and accumulation registers. K: a constant (inline or
 * literal) in `value`, already in the operation's source format. */
enum { KGRT_EMU_NONE = 0, KGRT_EMU_S, KGRT_EMU_V, KGRT_EMU_A, KGRT_EMU_K, KGRT_EMU_SCC };

#define KGRT_EMU_SGPR_VCC 106
#define KGRT_EMU_SGPR_M0 124
#define KGRT_EMU_SGPR_NULL 125
#define KGRT_EMU_SGPR_EXEC 126

/* The private aperture (src_private_base): a flat address whose high half is
 * KGRT_EMU_PRIVATE_HI is the lane's scratch offset in its low half. 2^47 is
 * above every user-space address of the host. */
#define KGRT_EMU_PRIVATE_HI 0x8000u

typedef struct kgrt_emu_operand {
  uint8_t kind;
  uint8_t count; /* registers (1, 2, 3, 4, 8, 16) */
  uint8_t neg, abs;
  uint8_t sext; /* SDWA sext(): the selected byte or word sign-extended */
  uint16_t reg;
  uint64_t value;   /* K: the constant's bits */
  double fvalue;    /* K: a float constant as written (1.0, 0.5, 0.15915494...) */
  uint8_t is_float; /* K: written as a float */
} kgrt_emu_operand_t;

/* Comparisons (v_cmp_*, s_cmp_*): the condition and the source type. */
enum {
  KGRT_EMU_CMP_F,
  KGRT_EMU_CMP_LT,
  KGRT_EMU_CMP_EQ,
  KGRT_EMU_CMP_LE,
  KGRT_EMU_CMP_GT,
  KGRT_EMU_CMP_LG,
  KGRT_EMU_CMP_GE,
  KGRT_EMU_CMP_O,
  KGRT_EMU_CMP_U,
  KGRT_EMU_CMP_NGE,
  KGRT_EMU_CMP_NLG,
  KGRT_EMU_CMP_NGT,
  KGRT_EMU_CMP_NLE,
  KGRT_EMU_CMP_NEQ,
  KGRT_EMU_CMP_NLT,
  KGRT_EMU_CMP_T,
  KGRT_EMU_CMP_NE
};
enum {
  KGRT_EMU_T_F16,
  KGRT_EMU_T_F32,
  KGRT_EMU_T_I16,
  KGRT_EMU_T_U16,
  KGRT_EMU_T_I32,
  KGRT_EMU_T_U32,
  KGRT_EMU_T_I64,
  KGRT_EMU_T_U64,
  KGRT_EMU_T_B32
};

/* SDWA selects */
enum {
  KGRT_EMU_SEL_DWORD = 0,
  KGRT_EMU_SEL_BYTE0,
  KGRT_EMU_SEL_BYTE1,
  KGRT_EMU_SEL_BYTE2,
  KGRT_EMU_SEL_BYTE3,
  KGRT_EMU_SEL_WORD0,
  KGRT_EMU_SEL_WORD1
};

typedef struct kgrt_emu_inst {
  uint16_t opc; /* kgrt_emu_opc_t */
  uint8_t size; /* bytes */
  uint8_t ndst, nsrc;
  uint8_t cmp, type; /* V_CMP, S_CMP: condition and type; loads/stores: see bytes */
  uint8_t cmpx;      /* v_cmpx: writes exec */
  uint8_t clamp,
      omod_mul; /* clamp; output multiplier: 0 none, 2 mul:2, 4 mul:4, 1 div:2 */
  uint8_t op_sel, op_sel_hi, neg_lo, neg_hi;
  uint8_t sdwa, dst_sel, dst_unused, src_sel[2];
  uint8_t bytes;  /* memory: bytes a lane moves */
  uint8_t sign;   /* memory: sign-extend a narrow load */
  uint8_t d16_hi; /* memory: a 16-bit load into the high half (1) or low half (2) */
  uint8_t stride64;
  uint8_t flat; /* flat_load/flat_store: the private aperture reaches scratch */
  uint8_t dual; /* a v_dual_ pair: the second half in inst[1] of the pair */
  int32_t offset, offset1; /* memory offsets; ds 2addr: offset0, offset1;
                            * s_waitcnt: vmcnt, lgkmcnt (-1: not waited on) */
  int64_t target;          /* branches: the target's address */
  kgrt_emu_operand_t dst[2];
  kgrt_emu_operand_t src[4];
} kgrt_emu_inst_t;

/* One decoded kernel: its instructions in address order and, per 4-byte
 * word of its code, the instruction that starts there (-1: none). */
typedef struct kgrt_emu_code {
  uint64_t lo, hi; /* the code's device addresses [lo, hi) */
  kgrt_emu_inst_t *insts;
  char **text; /* LLVM's text of each, for messages */
  int32_t *at; /* (hi - lo) / 4 entries */
  uint32_t count;
} kgrt_emu_code_t;

#endif /* KGRT_EMU_INST_H */
