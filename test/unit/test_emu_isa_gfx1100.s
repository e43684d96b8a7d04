// test_emu_isa_gfx1100.s - micro kernels for the emu device's gfx1100 (RDNA3,
// wave32) instructions, one instruction class each; test_emu_isa.c runs them
// and checks every lane against the RDNA3 ISA guide's definition.
//
// Every kernel takes (out, in) as kernargs: lane l reads the four words
// in[4l .. 4l+3] into v1..v4 (a, b, c, d) and writes v5..v8 to
// out[4l .. 4l+3] (the matrix kernels: 24 words in, 8 out). Assembled with
// clang-19 and linked with ld.lld-19 by test/CMakeLists.txt.
.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
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

// s[4:5] = out, s[6:7] = in, v10 = 16 * lane, v1..v4 = the lane's inputs
.macro LOAD4
  s_load_b128 s[4:7], s[0:1], 0
  v_lshlrev_b32 v10, 4, v0
  s_waitcnt lgkmcnt(0)
  global_load_b128 v[1:4], v10, s[6:7]
  s_waitcnt vmcnt(0)
.endm

.macro STORE4
  global_store_b128 v10, v[5:8], s[4:5]
  s_endpgm
.endm

// scalar add/sub with carry and borrow through SCC, on lane 0's words
BEGIN k_salu_carry
  LOAD4
  s_load_b128 s[8:11], s[6:7], 0
  s_waitcnt lgkmcnt(0)
  s_add_u32 s12, s8, s9
  s_addc_u32 s13, s10, s11
  s_sub_u32 s14, s8, s9
  s_subb_u32 s15, s10, s11
  v_mov_b32 v5, s12
  v_mov_b32 v6, s13
  v_mov_b32 v7, s14
  v_mov_b32 v8, s15
  STORE4
END k_salu_carry

// s_bfe_u32, s_bfe_i32 (offset and width from lane 0's b), s_mul_hi_u32,
// s_min_i32 with its SCC
BEGIN k_salu_misc
  LOAD4
  s_load_b128 s[8:11], s[6:7], 0
  s_waitcnt lgkmcnt(0)
  s_and_b32 s9, s9, 0x1f001f
  s_bfe_u32 s12, s8, s9
  s_bfe_i32 s13, s8, s9
  s_mul_hi_u32 s14, s10, s11
  s_min_i32 s15, s10, s11
  s_cselect_b32 s16, 1, 0
  s_add_u32 s14, s14, s16
  v_mov_b32 v5, s12
  v_mov_b32 v6, s13
  v_mov_b32 v7, s14
  v_mov_b32 v8, s15
  STORE4
END k_salu_misc

// s_getpc_b64: the address of the next instruction; and a .rodata table
// read through it (rel32 relocations): out = entry's address, table[lane]
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
  global_load_b32 v7, v11, s[12:13]
  v_mov_b32 v5, s8
  v_mov_b32 v6, s9
  v_mov_b32 v8, 0
  s_waitcnt vmcnt(0)
  STORE4
END k_getpc

// inline constants: 1/(2 pi) as f32 and f16, 0.5 and -4.0
BEGIN k_inline_const
  LOAD4
  v_mul_f32 v5, 0.15915494, v1
  v_mul_f16 v6, 0.15915494, v2
  v_and_b32 v6, 0xffff, v6
  v_fma_f32 v7, v3, 0.5, -4.0
  v_add_f32 v8, 1.0, v4
  STORE4
END k_inline_const

// 24-bit multiplies: the upper 8 bits of each source are ignored
BEGIN k_mul24
  LOAD4
  v_mul_u32_u24 v5, v1, v2
  v_mul_hi_u32_u24 v6, v1, v2
  v_mul_i32_i24 v7, v1, v2
  v_mul_hi_i32_i24 v8, v1, v2
  STORE4
END k_mul24

BEGIN k_mad24
  LOAD4
  v_mad_u32_u24 v5, v1, v2, v3
  v_mad_i32_i24 v6, v1, v2, v3
  v_mul_lo_u32 v7, v3, v4
  v_mul_hi_u32 v8, v3, v4
  STORE4
END k_mad24

// bit fields, byte permutes, funnel shifts
BEGIN k_bits
  LOAD4
  v_and_b32 v9, 31, v2
  v_and_b32 v11, 31, v3
  v_bfe_u32 v5, v1, v9, v11
  v_bfe_i32 v6, v1, v9, v11
  v_perm_b32 v7, v1, v2, v4
  v_alignbit_b32 v8, v1, v2, v3
  STORE4
END k_bits

// carries through VCC and an SGPR: a 64-bit add (a, b) + (c, d), a borrow
BEGIN k_carry
  LOAD4
  v_add_co_u32 v5, vcc_lo, v1, v3
  v_add_co_ci_u32 v6, vcc_lo, v2, v4, vcc_lo
  v_sub_co_u32 v7, s10, v1, v2
  v_cndmask_b32 v8, 0, 1, s10
  STORE4
END k_carry

// clamped unsigned add and sub saturate; 16-bit ops keep the upper half
BEGIN k_clamp
  LOAD4
  v_sub_nc_u32 v5, v1, v2 clamp
  v_add_nc_u32 v6, v1, v2 clamp
  v_mov_b32 v7, v3
  v_add_nc_u16 v7, v1, v2
  v_mov_b32 v8, v4
  v_lshlrev_b16 v8, v1, v2
  STORE4
END k_clamp

// VOPD: both halves read their sources before either writes (the second
// half reads the first's destination: its old value)
BEGIN k_vopd
  LOAD4
  v_mov_b32 v5, v1
  v_mov_b32 v7, v3
  v_dual_mov_b32 v5, v2 :: v_dual_lshlrev_b32 v6, 1, v5
  v_dual_add_f32 v7, v4, v4 :: v_dual_mul_f32 v8, v7, v3
  STORE4
END k_vopd

// compares into VCC and an SGPR, v_cndmask, v_cmpx writing EXEC: lanes
// outside EXEC keep their registers
BEGIN k_cmp
  LOAD4
  v_cmp_gt_u32 vcc_lo, v1, v2
  v_cndmask_b32 v5, v3, v4, vcc_lo
  v_cmp_nlt_f32 s12, v3, v4
  v_cndmask_b32 v6, 0, 1, s12
  v_mov_b32 v7, -1
  s_mov_b32 s13, exec_lo
  v_cmpx_lt_i32 v1, v2
  v_mov_b32 v7, 7
  s_mov_b32 exec_lo, s13
  v_cmp_class_f32 s14, v3, 0x1a4
  v_cndmask_b32 v8, 0, 1, s14
  STORE4
END k_cmp

// lanes: readlane, readfirstlane after a partial EXEC, writelane,
// ds_bpermute (lane l reads lane (l + 3) % 32), mbcnt
BEGIN k_lanes
  LOAD4
  v_readlane_b32 s12, v1, 5
  v_mov_b32 v5, s12
  s_mov_b32 s13, exec_lo
  s_mov_b32 exec_lo, 0xfffffff0
  v_readfirstlane_b32 s14, v2
  s_mov_b32 exec_lo, s13
  v_mov_b32 v6, s14
  v_mov_b32 v6, v6
  v_writelane_b32 v6, s12, 9
  v_add_nc_u32 v9, 3, v0
  v_and_b32 v9, 31, v9
  v_lshlrev_b32 v9, 2, v9
  ds_bpermute_b32 v7, v9, v3
  v_mbcnt_lo_u32_b32 v8, -1, 0
  s_waitcnt lgkmcnt(0)
  STORE4
END k_lanes

// LDS loads of lanes outside EXEC leave their registers alone
BEGIN k_lds_inactive
  LOAD4
  v_lshlrev_b32 v9, 2, v0
  ds_store_b32 v9, v1
  s_waitcnt lgkmcnt(0)
  v_mov_b32 v5, 0xdeadbeef
  v_mov_b32 v6, 0xdeadbeef
  v_mov_b32 v7, 0xdeadbeef
  v_mov_b32 v8, 0xdeadbeef
  s_mov_b32 s13, exec_lo
  s_mov_b32 exec_lo, 0x55555555
  ds_load_b32 v5, v9
  v_lshlrev_b32 v11, 4, v0
  v_and_b32 v11, 0x70, v11
  ds_load_b96 v[6:8], v11
  s_waitcnt lgkmcnt(0)
  s_mov_b32 exec_lo, s13
  STORE4
END k_lds_inactive

// LDS addresses are 32-bit sums that wrap; the two-address forms (and
// stride64); ds_add_u32 from every lane
BEGIN k_lds_addr
  LOAD4
  v_lshlrev_b32 v9, 2, v0
  v_subrev_nc_u32 v11, 1024, v9
  ds_store_b32 v11, v1 offset:1024
  v_lshlrev_b32 v12, 3, v0
  ds_store_2addr_b32 v12, v2, v3 offset0:64 offset1:65
  v_mov_b32 v13, 0
  ds_store_b32 v13, v13 offset:2048
  s_waitcnt lgkmcnt(0)
  s_barrier
  ds_add_u32 v13, v4 offset:2048
  s_waitcnt lgkmcnt(0)
  s_barrier
  ds_load_b32 v5, v9
  ds_load_2addr_b32 v[6:7], v12 offset0:64 offset1:65
  ds_load_b32 v8, v13 offset:2048
  s_waitcnt lgkmcnt(0)
  STORE4
END k_lds_addr

// global: narrow loads (zero- and sign-extended, d16_hi), an atomic add
// with its return, scratch
BEGIN k_global
  LOAD4
  v_add_nc_u32 v11, 1, v10
  global_load_u8 v5, v11, s[6:7]
  global_load_i16 v6, v10, s[6:7] offset:6
  v_mov_b32 v7, v3
  global_load_d16_hi_b16 v7, v10, s[6:7] offset:12
  scratch_store_b32 off, v4, off offset:8
  s_waitcnt vmcnt(0)
  global_atomic_add_u32 v8, v10, v2, s[6:7] offset:4 glc
  s_waitcnt vmcnt(0)
  scratch_load_b32 v14, off, off offset:8
  s_waitcnt vmcnt(0)
  v_xor_b32 v8, v8, v14
  STORE4
END k_global

// f32: FMA with source modifiers, min/max with NaN, omod and clamp
BEGIN k_f32
  LOAD4
  v_fma_f32 v5, -v1, |v2|, v3
  v_max_f32 v6, v3, v4
  v_mul_f32 v7, v1, v2 mul:2
  v_add_f32 v8, v3, v4 clamp
  STORE4
END k_f32

// f32 denormals flushed, sources and results (FLOAT_DENORM_MODE_32 0)
BEGIN k_ftz
  LOAD4
  v_mul_f32 v5, v1, v2
  v_add_f32 v6, 0, v3
  v_mul_f32 v7, 0.5, v1
  v_fma_f32 v8, v1, v2, v4
  STORE4
END k_ftz

// transcendentals (the hardware: within 1 ulp)
BEGIN k_trans
  LOAD4
  v_rcp_f32 v5, v1
  v_sqrt_f32 v6, |v2|
  v_exp_f32 v7, v3
  v_log_f32 v8, |v4|
  STORE4
END k_trans

BEGIN k_trans2
  LOAD4
  v_rsq_f32 v5, |v1|
  v_sin_f32 v6, v2
  v_cos_f32 v7, v3
  v_cvt_i32_f32 v9, v1
  v_ldexp_f32 v8, v4, v9
  STORE4
END k_trans2

// conversions
BEGIN k_cvt
  LOAD4
  v_cvt_i32_f32 v5, v1
  v_cvt_u32_f32 v6, v2
  v_cvt_f32_i32 v7, v3
  v_rndne_f32 v8, v4
  STORE4
END k_cvt

// f16: packing, packed multiply, the mixed FMA, the dot product
BEGIN k_f16
  LOAD4
  v_cvt_f16_f32 v5, v1
  v_pack_b32_f16 v5, v5, v2 op_sel:[0,1]
  v_pk_mul_f16 v6, v2, v3
  v_fma_mix_f32 v7, v2, v3, v4 op_sel_hi:[1,1,0]
  v_mov_b32 v8, v4
  v_dot2acc_f32_f16 v8, v2, v3
  STORE4
END k_f16

// f16 halves: conversions of either half; a mixed FMA and a conversion into
// the low half (gfx11 keeps the high half)
BEGIN k_f16b
  LOAD4
  v_cvt_f32_f16 v5, v2
  v_lshrrev_b32 v9, 16, v2
  v_cvt_f32_f16 v6, v9
  v_mov_b32 v7, v3
  v_fma_mixlo_f16 v7, v2, v3, v4 op_sel_hi:[1,1,0]
  v_mov_b32 v8, v4
  v_cvt_f16_f32 v8, v1
  STORE4
END k_f16b

// packed f16 with op_sel_hi and negation; scalar f16 (gfx11 keeps the
// high half)
BEGIN k_f16c
  LOAD4
  v_pk_add_f16 v5, v2, v3 op_sel_hi:[1,0] neg_lo:[0,1] neg_hi:[0,1]
  v_pk_max_f16 v6, v2, v3
  v_mov_b32 v7, v4
  v_add_f16 v7, v2, v3
  v_mov_b32 v8, v1
  v_rcp_f16 v8, v3
  STORE4
END k_f16c

// 16-bit integer ops (gfx11 keeps the high half)
BEGIN k_int16
  LOAD4
  v_mov_b32 v5, v1
  v_max_u16 v5, v2, v3
  v_mov_b32 v6, v1
  v_min_i16 v6, v2, v3
  v_mov_b32 v7, v4
  v_mul_lo_u16 v7, v2, v3
  v_mov_b32 v8, v4
  v_mad_u16 v8, v2, v3, v1
  STORE4
END k_int16

// bit-field insert, 64-bit arithmetic shift, scalar sign extension and bit
// clear (lane 0's a and b)
BEGIN k_bits2
  LOAD4
  v_bfi_b32 v5, v1, v2, v3
  v_ashrrev_i64 v[6:7], v4, v[2:3]
  s_load_b64 s[8:9], s[6:7], 0
  s_waitcnt lgkmcnt(0)
  s_sext_i32_i16 s12, s8
  s_bitset0_b32 s12, s9
  v_mov_b32 v8, s12
  STORE4
END k_bits2

// 16-bit loads into either half, the other half kept
BEGIN k_d16
  LOAD4
  v_mov_b32 v5, v1
  global_load_d16_b16 v5, v10, s[6:7] offset:6
  v_mov_b32 v6, v2
  global_load_d16_hi_b16 v6, v10, s[6:7] offset:8
  v_lshlrev_b32 v9, 2, v0
  ds_store_b16 v9, v1
  ds_store_b16_d16_hi v9, v2 offset:2
  s_waitcnt lgkmcnt(0)
  ds_load_b32 v7, v9
  v_mov_b32 v8, v4
  s_waitcnt vmcnt(0) lgkmcnt(0)
  global_store_b128 v10, v[5:8], s[4:5]
  global_store_d16_hi_b16 v10, v3, s[4:5] offset:14
  s_endpgm
END k_d16

// WMMA f32 += f16: A in v[1:8], B in v[9:16], C in v[17:24] (24 words a lane)
.macro LOAD24
  s_load_b128 s[4:7], s[0:1], 0
  v_mul_u32_u24 v40, 0x60, v0
  s_waitcnt lgkmcnt(0)
  global_load_b128 v[1:4], v40, s[6:7]
  global_load_b128 v[5:8], v40, s[6:7] offset:16
  global_load_b128 v[9:12], v40, s[6:7] offset:32
  global_load_b128 v[13:16], v40, s[6:7] offset:48
  global_load_b128 v[17:20], v40, s[6:7] offset:64
  global_load_b128 v[21:24], v40, s[6:7] offset:80
  v_lshlrev_b32 v41, 5, v0
  s_waitcnt vmcnt(0)
.endm

.macro STORE8 first
  global_store_b128 v41, v[\first:\first+3], s[4:5]
  global_store_b128 v41, v[\first+4:\first+7], s[4:5] offset:16
  s_endpgm
.endm

BEGIN k_wmma_f16
  LOAD24
  v_wmma_f32_16x16x16_f16 v[25:32], v[1:8], v[9:16], v[17:24]
  STORE8 25
END k_wmma_f16

BEGIN k_wmma_bf16
  LOAD24
  v_wmma_f32_16x16x16_bf16 v[25:32], v[1:8], v[9:16], v[17:24]
  STORE8 25
END k_wmma_bf16

// flat loads and stores through 64-bit addresses (global memory)
BEGIN k_flat
  LOAD4
  v_add_co_u32 v12, vcc_lo, s6, v10
  v_add_co_ci_u32 v13, vcc_lo, s7, 0, vcc_lo
  v_add_co_u32 v14, vcc_lo, s4, v10
  v_add_co_ci_u32 v15, vcc_lo, s5, 0, vcc_lo
  flat_load_b32 v5, v[12:13] offset:4
  flat_load_u8 v6, v[12:13] offset:8
  v_mov_b32 v7, v4
  v_mov_b32 v8, 0
  s_waitcnt vmcnt(0) lgkmcnt(0)
  global_store_b128 v10, v[5:8], s[4:5]
  flat_store_b32 v[14:15], v1 offset:12
  s_endpgm
END k_flat

// f32 division as LLVM expands a / b (v_div_scale, v_rcp, FMAs, v_div_fmas,
// v_div_fixup): a / b; a in [64, 128) over a denominator above 2^126 (its
// reciprocal an f32 denormal: v_div_scale scales both down by 2^-64; the
// bf16 SiLU of -87 in the quantized GEMVs divides so); c / d
.macro FDIV d, n, den
  v_div_scale_f32 v11, null, \den, \den, \n
  v_rcp_f32 v12, v11
  v_fma_f32 v13, -v11, v12, 1.0
  v_fmac_f32 v12, v13, v12
  v_div_scale_f32 v13, vcc_lo, \n, \den, \n
  v_mul_f32 v14, v13, v12
  v_fma_f32 v15, -v11, v14, v13
  v_fmac_f32 v14, v15, v12
  v_fma_f32 v11, -v11, v14, v13
  v_div_fmas_f32 v11, v11, v12, v14
  v_div_fixup_f32 \d, v11, \den, \n
.endm
BEGIN k_fdiv
  LOAD4
  FDIV v5, v1, v2
  s_mov_b32 s8, 0x807fffff
  v_and_or_b32 v16, v1, s8, 0x42800000
  v_and_or_b32 v17, v2, s8, 0x7e800000
  FDIV v6, v16, v17
  FDIV v7, v3, v4
  v_mov_b32 v8, v17
  STORE4
END k_fdiv

// flat loads and stores into the lane's private memory: a pointer of
// src_private_base's high half and a scratch offset (kgen's f32 GEMM with
// RoPE and the KV write reads its arguments so)
BEGIN k_flat_private
  LOAD4
  scratch_store_b64 off, v[1:2], off offset:8
  s_mov_b64 s[8:9], src_private_base
  v_mov_b32 v12, 8
  v_mov_b32 v13, s9
  flat_load_b32 v5, v[12:13] offset:4
  flat_store_b32 v[12:13], v3
  s_waitcnt vmcnt(0) lgkmcnt(0)
  scratch_load_b32 v6, off, off offset:8
  v_mov_b32 v7, v4
  v_mov_b32 v8, v1
  s_waitcnt vmcnt(0)
  STORE4
END k_flat_private

// memory counters: loads land in order, so vmcnt(1) proves the first of two
// returned; a value used before its s_waitcnt fails (k_nowait_*)
BEGIN k_wait_order
  LOAD4
  global_load_b32 v5, v10, s[6:7]
  global_load_b32 v6, v10, s[6:7] offset:4
  s_waitcnt vmcnt(1)
  v_mov_b32 v7, v5
  s_waitcnt vmcnt(0)
  v_mov_b32 v8, v6
  v_mov_b32 v5, v3
  v_mov_b32 v6, v4
  STORE4
END k_wait_order

BEGIN k_nowait_vm
  LOAD4
  global_load_b32 v5, v10, s[6:7]
  global_load_b32 v6, v10, s[6:7] offset:4
  s_waitcnt vmcnt(1)
  v_add_nc_u32 v7, v6, v5
  STORE4
END k_nowait_vm

// a scalar load returns out of order: lgkmcnt(1) proves nothing
BEGIN k_nowait_lgkm
  LOAD4
  v_lshlrev_b32 v9, 2, v0
  ds_store_b32 v9, v1
  s_waitcnt lgkmcnt(0)
  ds_load_b32 v5, v9
  s_load_b32 s12, s[6:7], 0
  s_waitcnt lgkmcnt(1)
  v_mov_b32 v6, v5
  STORE4
END k_nowait_lgkm

// an out-of-bounds store: must fail, naming the pc and the instruction
BEGIN k_oob
  LOAD4
  global_store_b32 v10, v1, s[4:5] offset:2044
  s_endpgm
END k_oob

// an LDS load past the descriptor's LDS: must fail
BEGIN k_lds_oob
  LOAD4
  v_mov_b32 v9, 1024
  ds_load_b32 v5, v9
  s_waitcnt lgkmcnt(0)
  STORE4
END k_lds_oob

// an instruction the emu does not implement: must fail when it runs
BEGIN k_unknown
  LOAD4
  v_sad_u32 v5, v1, v2, v3
  STORE4
END k_unknown

.rodata
.p2align 4
table:
  .long 0x1000, 0x1007, 0x100e, 0x1015, 0x101c, 0x1023, 0x102a, 0x1031
  .long 0x1038, 0x103f, 0x1046, 0x104d, 0x1054, 0x105b, 0x1062, 0x1069
  .long 0x1070, 0x1077, 0x107e, 0x1085, 0x108c, 0x1093, 0x109a, 0x10a1
  .long 0x10a8, 0x10af, 0x10b6, 0x10bd, 0x10c4, 0x10cb, 0x10d2, 0x10d9
  .long 0x10e0, 0x10e7, 0x10ee, 0x10f5, 0x10fc, 0x1103, 0x110a, 0x1111
  .long 0x1118, 0x111f, 0x1126, 0x112d, 0x1134, 0x113b, 0x1142, 0x1149
  .long 0x1150, 0x1157, 0x115e, 0x1165, 0x116c, 0x1173, 0x117a, 0x1181
  .long 0x1188, 0x118f, 0x1196, 0x119d, 0x11a4, 0x11ab, 0x11b2, 0x11b9

.macro KD name, lds=0, vgprs=48, scratch=0, priv=0, denorm=3
  .p2align 6
  .amdhsa_kernel \name
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_user_sgpr_count 2
    .amdhsa_next_free_vgpr \vgprs
    .amdhsa_next_free_sgpr 24
    .amdhsa_wavefront_size32 1
    .amdhsa_group_segment_fixed_size \lds
    .amdhsa_private_segment_fixed_size \scratch
    .amdhsa_enable_private_segment \priv
    .amdhsa_system_sgpr_workgroup_id_x 1
    .amdhsa_float_denorm_mode_32 \denorm
  .end_amdhsa_kernel
.endm

KD k_salu_carry
KD k_salu_misc
KD k_getpc
KD k_inline_const
KD k_mul24
KD k_mad24
KD k_bits
KD k_carry
KD k_clamp
KD k_vopd
KD k_cmp
KD k_lanes
KD k_lds_inactive, 1024
KD k_lds_addr, 2052
KD k_global, 0, 48, 16, 1
KD k_f32
KD k_ftz, 0, 48, 0, 0, 0
KD k_trans
KD k_trans2
KD k_cvt
KD k_f16
KD k_f16b
KD k_f16c
KD k_bits2
KD k_int16
KD k_d16, 1024
KD k_wmma_f16
KD k_wmma_bf16
KD k_flat
KD k_fdiv
KD k_flat_private, 0, 48, 16, 1
KD k_wait_order
KD k_nowait_vm
KD k_nowait_lgkm, 1024
KD k_oob
KD k_lds_oob, 1024
KD k_unknown

// kgrt's ELF reader wants the metadata note; the emu reads the descriptors
.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.kernels: []
...
.end_amdgpu_metadata
