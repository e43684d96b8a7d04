// test_emu_isa_gfx942.s - micro kernels for the emu device's gfx942 (CDNA3,
// wave64) instructions; test_emu_isa.c runs them and checks every lane
// against the CDNA3 ISA guide's definition. The same conventions as
// test_emu_isa_gfx1100.s: kernargs (out, in), lane l's words
// in[4l .. 4l+3] in v2..v5 (a, b, c, d; gfx942's register tuples are
// even-aligned), v12..v15 to out[4l .. 4l+3].
.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text

.macro BEGIN name
  .globl \name
  .p2align 8
  .type \name,@function
\name:
.endm

.macro END name
.L\name\()_end:
  .size \name, .L\name\()_end - \name
.endm

.macro LOAD4
  s_load_dwordx4 s[4:7], s[0:1], 0
  v_lshlrev_b32 v10, 4, v0
  s_waitcnt lgkmcnt(0)
  global_load_dwordx4 v[2:5], v10, s[6:7]
  s_waitcnt vmcnt(0)
.endm

.macro STORE4
  global_store_dwordx4 v10, v[12:15], s[4:5]
  s_endpgm
.endm

// s_getpc_b64 and a .rodata table read through it
BEGIN k_getpc
  LOAD4
  s_getpc_b64 s[8:9]
.Lgetpc_after:
  s_sub_u32 s8, s8, .Lgetpc_after - k_getpc
  s_subb_u32 s9, s9, 0
  s_getpc_b64 s[12:13]
  s_add_u32 s12, s12, table@rel32@lo+4
  s_addc_u32 s13, s13, table@rel32@hi+12
  v_lshlrev_b32 v11, 2, v0
  global_load_dword v14, v11, s[12:13]
  v_mov_b32 v12, s8
  v_mov_b32 v13, s9
  v_mov_b32 v15, 0
  s_waitcnt vmcnt(0)
  STORE4
END k_getpc

// inline constants: 1/(2 pi) as f32 and f16, 0.5 and -4.0
BEGIN k_inline_const
  LOAD4
  v_mul_f32 v12, 0.15915494, v2
  v_mul_f16 v13, 0.15915494, v3
  v_fma_f32 v14, v4, 0.5, -4.0
  v_add_f32 v15, 1.0, v5
  STORE4
END k_inline_const

// 24-bit multiplies
BEGIN k_mul24
  LOAD4
  v_mul_u32_u24 v12, v2, v3
  v_mul_hi_u32_u24 v13, v2, v3
  v_mul_i32_i24 v14, v2, v3
  v_mad_u32_u24 v15, v2, v3, v4
  STORE4
END k_mul24

// carries, 16-bit ops (gfx9 zeroes the upper half), SDWA selects
BEGIN k_int
  LOAD4
  v_add_co_u32 v12, vcc, v2, v4
  v_addc_co_u32 v13, vcc, v3, v5, vcc
  v_mov_b32 v14, v4
  v_add_u16 v14, v2, v3
  v_mov_b32 v15, v5
  v_add_u32_sdwa v15, v2, v3 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_1 src1_sel:WORD_0
  STORE4
END k_int

// 64-bit moves and shifts, packed f32
BEGIN k_wide
  LOAD4
  v_lshl_add_u64 v[12:13], v[2:3], 3, v[4:5]
  v_pk_fma_f32 v[14:15], v[2:3], v[4:5], v[2:3]
  STORE4
END k_wide

BEGIN k_wide2
  LOAD4
  v_pk_mul_f32 v[12:13], v[2:3], v[4:5] op_sel:[1,0] op_sel_hi:[1,1]
  v_mov_b64 v[14:15], v[4:5]
  STORE4
END k_wide2

// f16 on gfx9: the upper half zeroed; SDWA's WORD_1 source
BEGIN k_f16
  LOAD4
  v_add_f16 v12, v3, v4
  v_rcp_f16_sdwa v13, v3 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
  v_div_fixup_f16 v14, v3, v4, v3
  v_max_f16 v15, v3, v4
  STORE4
END k_f16

// 16-bit integer ops (gfx9 zeroes the high half), an SDWA byte source
BEGIN k_int16
  LOAD4
  v_max_u16_sdwa v12, v2, v3 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:BYTE_0
  v_max_u16 v13, v2, v3
  v_min_i16 v14, v2, v3
  v_mad_u16 v15, v2, v3, v4
  STORE4
END k_int16

// compares and EXEC (64 lanes)
BEGIN k_cmp
  LOAD4
  v_cmp_gt_u32 vcc, v2, v3
  v_cndmask_b32 v12, v4, v5, vcc
  v_cmp_nlt_f32 s[12:13], v4, v5
  v_cndmask_b32 v13, 0, 1, s[12:13]
  v_mov_b32 v14, -1
  s_mov_b64 s[14:15], exec
  v_cmpx_lt_i32 vcc, v2, v3
  v_mov_b32 v14, 7
  s_mov_b64 exec, s[14:15]
  v_mbcnt_lo_u32_b32 v15, -1, 0
  v_mbcnt_hi_u32_b32 v15, -1, v15
  STORE4
END k_cmp

// LDS: stores from accumulation registers, loads of lanes outside EXEC
BEGIN k_lds
  LOAD4
  v_lshlrev_b32 v16, 2, v0
  v_accvgpr_write_b32 a1, v2
  ds_write_b32 v16, a1
  v_accvgpr_write_b32 a2, v3
  v_accvgpr_write_b32 a3, v4
  v_lshlrev_b32 v17, 3, v0
  ds_write_b64 v17, a[2:3] offset:256
  s_waitcnt lgkmcnt(0)
  v_mov_b32 v12, 0xdeadbeef
  v_mov_b32 v13, 0xdeadbeef
  v_mov_b32 v14, 0xdeadbeef
  v_mov_b32 v15, 0xdeadbeef
  s_mov_b64 s[12:13], exec
  s_mov_b32 exec_lo, 0x55555555
  s_mov_b32 exec_hi, 0x55555555
  ds_read_b32 v12, v16
  ds_read_b64 v[14:15], v17 offset:256
  s_waitcnt lgkmcnt(0)
  s_mov_b64 exec, s[12:13]
  STORE4
END k_lds

// 16-bit stores of a register's high half: to LDS and to global memory
BEGIN k_d16
  LOAD4
  v_lshlrev_b32 v16, 2, v0
  ds_write_b16 v16, v2
  ds_write_b16_d16_hi v16, v3 offset:2
  s_waitcnt lgkmcnt(0)
  ds_read_b32 v12, v16
  v_mov_b32 v13, v3
  v_mov_b32 v14, v4
  v_mov_b32 v15, v5
  s_waitcnt lgkmcnt(0)
  global_store_dwordx4 v10, v[12:15], s[4:5]
  global_store_short_d16_hi v10, v4, s[4:5] offset:14
  s_endpgm
END k_d16

// an LDS load used before its s_waitcnt: must fail
BEGIN k_nowait
  LOAD4
  v_lshlrev_b32 v16, 2, v0
  ds_write_b32 v16, v2
  ds_read_b32 v12, v16
  v_mov_b32 v13, v12
  s_waitcnt lgkmcnt(0)
  STORE4
END k_nowait

// MFMA: A v[2:3], B v[4:5] (words 0-3 of the lane), C from in + 0x1000 +
// 64 lane (32x32x8, 16 words, in AGPRs) or 16 lane (16x16x16, 4 words, VGPRs)
BEGIN k_mfma32
  s_load_dwordx4 s[4:7], s[0:1], 0
  v_lshlrev_b32 v10, 4, v0
  s_waitcnt lgkmcnt(0)
  global_load_dwordx4 v[2:5], v10, s[6:7]
  v_lshlrev_b32 v11, 6, v0
  v_add_u32 v11, 0x1000, v11
  global_load_dwordx4 v[12:15], v11, s[6:7]
  global_load_dwordx4 v[16:19], v11, s[6:7] offset:16
  global_load_dwordx4 v[20:23], v11, s[6:7] offset:32
  global_load_dwordx4 v[24:27], v11, s[6:7] offset:48
  s_waitcnt vmcnt(0)
  .irp i, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    v_accvgpr_write_b32 a\i, v[12+\i]
  .endr
  v_mfma_f32_32x32x8_f16 a[0:15], v[2:3], v[4:5], a[0:15]
  s_nop 15
  .irp i, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    v_accvgpr_read_b32 v[12+\i], a\i
  .endr
  v_lshlrev_b32 v11, 6, v0
  global_store_dwordx4 v11, v[12:15], s[4:5]
  global_store_dwordx4 v11, v[16:19], s[4:5] offset:16
  global_store_dwordx4 v11, v[20:23], s[4:5] offset:32
  global_store_dwordx4 v11, v[24:27], s[4:5] offset:48
  s_endpgm
END k_mfma32

BEGIN k_mfma16
  s_load_dwordx4 s[4:7], s[0:1], 0
  v_lshlrev_b32 v10, 4, v0
  s_waitcnt lgkmcnt(0)
  global_load_dwordx4 v[2:5], v10, s[6:7]
  v_add_u32 v11, 0x1000, v10
  global_load_dwordx4 v[12:15], v11, s[6:7]
  s_waitcnt vmcnt(0)
  v_mfma_f32_16x16x16_bf16 v[16:19], v[2:3], v[4:5], v[12:15]
  s_nop 7
  global_store_dwordx4 v10, v[16:19], s[4:5]
  s_endpgm
END k_mfma16

.rodata
.p2align 4
table:
  .irp i, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
    .long 0x2000 + 7 * \i
  .endr
  .irp i, 32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63
    .long 0x2000 + 7 * \i
  .endr
  .long 0x2000 + 7 * 64, 0x2000 + 7 * 65, 0x2000 + 7 * 66, 0x2000 + 7 * 67

// SDWA sources: a selected byte or word, sign-extended under sext() (kgen's
// conv2d computes its input offsets so), zero-extended without
BEGIN k_sdwa
  LOAD4
  v_add_u32_sdwa v12, v2, sext(v3) dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:BYTE_0
  v_add_u32_sdwa v13, v2, sext(v3) dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:WORD_1
  v_add_u32_sdwa v14, v2, v3 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:BYTE_1
  v_mul_lo_u16_sdwa v15, v4, v5 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_1 src1_sel:DWORD
  STORE4
END k_sdwa

.macro KD name, lds=0, accum=32
  .p2align 6
  .amdhsa_kernel \name
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_user_sgpr_count 2
    .amdhsa_next_free_vgpr 64
    .amdhsa_next_free_sgpr 24
    .amdhsa_accum_offset \accum
    .amdhsa_group_segment_fixed_size \lds
    .amdhsa_system_sgpr_workgroup_id_x 1
    .amdhsa_float_denorm_mode_32 3
  .end_amdhsa_kernel
.endm

KD k_getpc
KD k_inline_const
KD k_mul24
KD k_int
KD k_wide
KD k_wide2
KD k_f16
KD k_int16
KD k_cmp
KD k_lds, 1024
KD k_d16, 1024
KD k_nowait, 1024
KD k_mfma32
KD k_mfma16
KD k_sdwa

// kgrt's ELF reader wants the metadata note; the emu reads the descriptors
.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.kernels: []
...
.end_amdgpu_metadata
