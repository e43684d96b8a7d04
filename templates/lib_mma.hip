/* lib_mma.hip - matrix fragments for the GEMM and attention templates
 * (templates/gemm.hip, attention.hip): one struct per matrix-instruction
 * kind, each loading its operands from LDS tiles and multiplying them on one
 * wave. kgen defines KG_MMA_<KIND> for each
 * kind the target's data file lists (targets/<arch>.lua, `mma`), so a source
 * only holds the kinds its target can compile; the FMA kind exists everywhere
 * (f32 on every target, and every dtype on targets without matrix cores).
 *
 * Tiles in LDS hold the storage type T, k contiguous: A is [rows][LD], B is
 * [columns][LD] (w's rows, as w [N, K] stores them). LD = the tile's k extent
 * plus a pad of 16 bytes, so rows start 16-byte aligned and consecutive rows
 * fall in different LDS banks.
 *
 * A fragment struct F (template <typename T, int LD>) gives:
 *   F::M, F::N, F::K   the shape one F::mma multiplies (A M x K, B K x N)
 *   F::ACC             accumulator floats per lane; acc_t indexes as acc[r]
 *   F::load_a(a, As, row0, k0)   this lane's A registers, rows row0.. of As
 *   F::load_b(b, Bs, col0, k0)   this lane's B registers, columns col0..
 *   F::mma(acc, a, b)            acc += A B (f32)
 *   F::row(r), F::col(r)         where element r of this lane's acc lies
 *   F::RUN             elements r .. r + RUN - 1 (r a multiple of RUN) are
 *                      consecutive columns of one row (stored as one vector)
 *   F::B2              1: F::load_b2(b0, b1, Bs, col0, k0) loads columns col0..
 *                      and col0 + N.. with one instruction (kg_mma_load_bs)
 *   F::WAVES           waves that multiply one fragment together (1; 4 for
 *                      the warpgroup kind, whose lanes hold parts of one D)
 *   F::at(r, c)        where element (r, c) of a tile lies (r LD + c but for
 *                      the warpgroup kind's swizzled rows)
 *   F::RS, F::rslot(r) the rows of the fragment this lane's acc holds
 *                      elements of, and which of them element r is
 *   F::ROWX            the lanes that share a row: l ^ m for m < ROWX (a
 *                      power of two), so a row's sum is the lane's own
 *                      elements of it, then a butterfly over m = 1 .. ROWX / 2
 *   F::CS, F::cslot(r), F::COLX_LO, F::COLX_HI  the same for columns: the
 *                      lanes sharing a column are l ^ m for the powers of two
 *                      m from COLX_LO to COLX_HI
 *   F::load_bt(b, Bs, col0, k0)  B from a tile stored [k][LD] instead
 *                      (attention's V: B[k][n] at Bs[k LD + n])
 *   F::PREG            1: an accumulator packs into pk_t (its elements
 *                      rounded to T, in pairs: F::acc_to_pk), and two of
 *                      adjacent n-fragments (columns 16j .., 16j + 8 ..) are
 *                      the A operand of k columns 16j .. 16j + 15
 *                      (F::pk_to_a): attention's P, with no trip through LDS
 *   F::TR              1: a lane's acc holds one column and many rows (the
 *                      AMD kinds), so row-wise work (attention's softmax) is
 *                      cheaper on the transposed product, whose B operands
 *                      load_b reads whole (load_bt gathers them element by
 *                      element there)
 *   F::base(lds)       the first tile's address in the LDS buffer, aligned as
 *                      the kind needs (the buffer has F::ALIGN - 16 bytes spare)
 * The warpgroup kind (kg_mma_wgmma) has no load_a / load_b / mma: it reads
 * the tiles through descriptors (F::mma_tile, F::wait, below).
 * The register layouts are the ones prelude_sim.hip documents (with their
 * sources) and emulates, so the sim runs these same functions. */

/* Registers and accumulators at namespace scope, so that fragments of one
 * kind over tiles of different LD (attention's P and V) share their types. */
template <int N> struct kg_mma_regs {
  unsigned r[N];
};
template <int N> struct kg_mma_acc {
  float v[N];
  KG_INLINE_SPEC float &operator[](int i) { return v[i]; }
  KG_INLINE_SPEC const float &operator[](int i) const { return v[i]; }
};

/* Tiles of rows of LD elements, one fragment per wave: what every kind but
 * the warpgroup one shares. pk_t: an accumulator's elements packed in pairs
 * (F::PREG kinds). */
template <int LD> struct kg_mma_plain {
  enum { WAVES = 1, ALIGN = 16 };
  typedef kg_mma_regs<2> pk_t;
  KG_INLINE_SPEC static int at(int r, int c) { return r * LD + c; }
  KG_INLINE_SPEC static unsigned char *base(unsigned char *lds) { return lds; }
};

#if defined(KG_MMA_WMMA) || defined(KG_MMA_MFMA)
/* The operand vectors of the AMD builtins, by storage type: f16 builtins
 * take _Float16 vectors, bf16 ones the bf16 bits as shorts. */
template <typename T> struct kg_mma_vec;
template <> struct kg_mma_vec<kg_f16> {
  typedef kg_v16h v16;
  typedef kg_v4h v4;
};
template <> struct kg_mma_vec<kg_bf16> {
  typedef kg_v16s v16;
  typedef kg_v4s v4;
};

/* N 16-bit elements of an LDS tile, STRIDE elements apart (1: consecutive),
 * as the builtin's vector V. */
template <typename V, int N, int STRIDE = 1, typename T> KG_INLINE V kg_mma_ld16(const T *p) {
  typedef short S __attribute__((vector_size(2 * N)));
  S s;
  const unsigned short *u = (const unsigned short *)p;
#pragma unroll
  for (int e = 0; e < N; e++)
    s[e] = (short)u[e * STRIDE];
  return __builtin_bit_cast(V, s);
}
#endif

#if defined(KG_MMA_WMMA)
KG_INLINE kg_v8f kg_mma_wmma(kg_v16h a, kg_v16h b, kg_v8f c) {
  return __builtin_amdgcn_wmma_f32_16x16x16_f16_w32(a, b, c);
}
KG_INLINE kg_v8f kg_mma_wmma(kg_v16s a, kg_v16s b, kg_v8f c) {
  return __builtin_amdgcn_wmma_f32_16x16x16_bf16_w32(a, b, c);
}

/* RDNA3 WMMA 16x16x16, wave32. A: lane l holds row l % 16 (16 k values);
 * B: column l % 16; lanes 16-31 repeat lanes 0-15, as the ISA requires.
 * D: element r is row 2r + l / 16, column l % 16. */
template <typename T, int LD> struct kg_mma_wmma_16x16x16 : kg_mma_plain<LD> {
  enum { M = 16, N = 16, K = 16, ACC = 8, RUN = 1, B2 = 0, RS = 8, ROWX = 16 };
  enum { CS = 1, COLX_LO = 16, COLX_HI = 16, TR = 1, PREG = 0 };
  typedef typename kg_mma_vec<T>::v16 a_t;
  typedef a_t b_t;
  typedef kg_v8f acc_t;
  KG_INLINE_SPEC static void load_a(a_t &a, const T *As, int row0, int k0) {
    a = kg_mma_ld16<a_t, 16>(As + (row0 + (int)(kg_lane_id() % 16u)) * LD + k0);
  }
  KG_INLINE_SPEC static void load_b(b_t &b, const T *Bs, int col0, int k0) {
    b = kg_mma_ld16<b_t, 16>(Bs + (col0 + (int)(kg_lane_id() % 16u)) * LD + k0);
  }
  KG_INLINE_SPEC static void load_bt(b_t &b, const T *Bs, int col0, int k0) {
    b = kg_mma_ld16<b_t, 16, LD>(Bs + k0 * LD + col0 + (int)(kg_lane_id() % 16u));
  }
  KG_INLINE_SPEC static void mma(acc_t &acc, const a_t &a, const b_t &b) {
    acc = kg_mma_wmma(a, b, acc);
  }
  KG_INLINE_SPEC static int row(int r) { return 2 * r + (int)(kg_lane_id() % 32u / 16u); }
  KG_INLINE_SPEC static int col(int) { return (int)(kg_lane_id() % 16u); }
  KG_INLINE_SPEC static int rslot(int r) { return r; }
  KG_INLINE_SPEC static int cslot(int) { return 0; }
};
#endif

#if defined(KG_MMA_MFMA)
KG_INLINE kg_v16f kg_mma_mfma32(kg_v4h a, kg_v4h b, kg_v16f c) {
  return __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, c, 0, 0, 0);
}
KG_INLINE kg_v16f kg_mma_mfma32(kg_v4s a, kg_v4s b, kg_v16f c) {
  return __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(a, b, c, 0, 0, 0);
}
KG_INLINE kg_v4f kg_mma_mfma16(kg_v4h a, kg_v4h b, kg_v4f c) {
  return __builtin_amdgcn_mfma_f32_16x16x16f16(a, b, c, 0, 0, 0);
}
KG_INLINE kg_v4f kg_mma_mfma16(kg_v4s a, kg_v4s b, kg_v4f c) {
  return __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(a, b, c, 0, 0, 0);
}

/* CDNA MFMA 32x32x8, wave64, one block. A: lane l holds row l % 32, k =
 * 4 (l / 32) + 0..3; B: column l % 32, the same k. D: element r is row
 * 8 (r / 4) + 4 (l / 32) + r % 4, column l % 32. */
template <typename T, int LD> struct kg_mma_mfma_32x32x8 : kg_mma_plain<LD> {
  enum { M = 32, N = 32, K = 8, ACC = 16, RUN = 1, B2 = 0, RS = 16, ROWX = 32 };
  enum { CS = 1, COLX_LO = 32, COLX_HI = 32, TR = 1, PREG = 0 };
  typedef typename kg_mma_vec<T>::v4 a_t;
  typedef a_t b_t;
  typedef kg_v16f acc_t;
  KG_INLINE_SPEC static void load_a(a_t &a, const T *As, int row0, int k0) {
    const int l = (int)(kg_lane_id() % 64u);
    a = kg_mma_ld16<a_t, 4>(As + (row0 + l % 32) * LD + k0 + 4 * (l / 32));
  }
  KG_INLINE_SPEC static void load_b(b_t &b, const T *Bs, int col0, int k0) {
    const int l = (int)(kg_lane_id() % 64u);
    b = kg_mma_ld16<b_t, 4>(Bs + (col0 + l % 32) * LD + k0 + 4 * (l / 32));
  }
  KG_INLINE_SPEC static void load_bt(b_t &b, const T *Bs, int col0, int k0) {
    const int l = (int)(kg_lane_id() % 64u);
    b = kg_mma_ld16<b_t, 4, LD>(Bs + (k0 + 4 * (l / 32)) * LD + col0 + l % 32);
  }
  KG_INLINE_SPEC static void mma(acc_t &acc, const a_t &a, const b_t &b) {
    acc = kg_mma_mfma32(a, b, acc);
  }
  KG_INLINE_SPEC static int row(int r) {
    return 8 * (r / 4) + 4 * (int)(kg_lane_id() % 64u / 32u) + r % 4;
  }
  KG_INLINE_SPEC static int col(int) { return (int)(kg_lane_id() % 32u); }
  KG_INLINE_SPEC static int rslot(int r) { return r; }
  KG_INLINE_SPEC static int cslot(int) { return 0; }
};

/* CDNA MFMA 16x16x16, wave64. A: lane l holds row l % 16, k = 4 (l / 16) +
 * 0..3; B: column l % 16, the same k. D: element r is row 4 (l / 16) + r,
 * column l % 16. */
template <typename T, int LD> struct kg_mma_mfma_16x16x16 : kg_mma_plain<LD> {
  enum { M = 16, N = 16, K = 16, ACC = 4, RUN = 1, B2 = 0, RS = 4, ROWX = 16 };
  enum { CS = 1, COLX_LO = 16, COLX_HI = 32, TR = 1, PREG = 0 };
  typedef typename kg_mma_vec<T>::v4 a_t;
  typedef a_t b_t;
  typedef kg_v4f acc_t;
  KG_INLINE_SPEC static void load_a(a_t &a, const T *As, int row0, int k0) {
    const int l = (int)(kg_lane_id() % 64u);
    a = kg_mma_ld16<a_t, 4>(As + (row0 + l % 16) * LD + k0 + 4 * (l / 16));
  }
  KG_INLINE_SPEC static void load_b(b_t &b, const T *Bs, int col0, int k0) {
    const int l = (int)(kg_lane_id() % 64u);
    b = kg_mma_ld16<b_t, 4>(Bs + (col0 + l % 16) * LD + k0 + 4 * (l / 16));
  }
  KG_INLINE_SPEC static void load_bt(b_t &b, const T *Bs, int col0, int k0) {
    const int l = (int)(kg_lane_id() % 64u);
    b = kg_mma_ld16<b_t, 4, LD>(Bs + (k0 + 4 * (l / 16)) * LD + col0 + l % 16);
  }
  KG_INLINE_SPEC static void mma(acc_t &acc, const a_t &a, const b_t &b) {
    acc = kg_mma_mfma16(a, b, acc);
  }
  KG_INLINE_SPEC static int row(int r) { return 4 * (int)(kg_lane_id() % 64u / 16u) + r; }
  KG_INLINE_SPEC static int col(int) { return (int)(kg_lane_id() % 16u); }
  KG_INLINE_SPEC static int rslot(int r) { return r; }
  KG_INLINE_SPEC static int cslot(int) { return 0; }
};
#endif

#if defined(KG_MMA_MMA) || defined(KG_MMA_WGMMA)
template <typename T> struct kg_mma_is_bf16 {
  enum { value = 0 };
};
template <> struct kg_mma_is_bf16<kg_bf16> {
  enum { value = 1 };
};
#endif

#if defined(KG_MMA_MMA)
/* NVIDIA mma.sync m16n8k16 (f32 accumulate), warp 32, fragments loaded with
 * ldmatrix (kg_ldmatrix_x4_at / _x2_at in the cuda and sim preludes, at the
 * tile's shared address plus bytes: T is 16 bits). With
 * g = l / 4 and t = l % 4: A's four registers are rows g, g + 8 at k 0..7,
 * then the same rows at k 8..15 (two elements each: k = 2t, 2t + 1); lane l
 * addresses row l % 16 at k 8 (l / 16) for ldmatrix.x4. B's two registers are
 * column g at k = 2t, 2t + 1 and at 8 + 2t, 9 + 2t; lanes 0-15 address
 * column l % 8 at k 8 ((l / 8) % 2) for ldmatrix.x2. D: element r is row
 * g + 8 (r / 2), column 2t + r % 2. */
template <typename T, int LD> struct kg_mma_mma_16x8x16 : kg_mma_plain<LD> {
  enum { M = 16, N = 8, K = 16, ACC = 4, RUN = 2, B2 = 1, RS = 2, ROWX = 4 };
  enum { CS = 2, COLX_LO = 4, COLX_HI = 16, TR = 0, PREG = 1 };
  typedef kg_mma_regs<4> a_t;
  typedef kg_mma_regs<2> b_t;
  typedef kg_mma_acc<4> acc_t;
  KG_INLINE_SPEC static void load_a(a_t &a, const T *As, int row0, int k0) {
    const int l = (int)(kg_lane_id() % 32u);
    kg_ldmatrix_x4_at(a.r, kg_lds_addr(As) + 2 * ((row0 + l % 16) * LD + k0 + 8 * (l / 16)));
  }
  KG_INLINE_SPEC static void load_b(b_t &b, const T *Bs, int col0, int k0) {
    const int l = (int)(kg_lane_id() % 32u);
    kg_ldmatrix_x2_at(b.r, kg_lds_addr(Bs) + 2 * ((col0 + l % 8) * LD + k0 + 8 * ((l / 8) % 2)));
  }
  /* two B fragments, columns col0.. and col0 + 8.., with one ldmatrix.x4:
   * lanes 8q..8q+7 address matrix q, column col0 + 8 (q / 2) + l % 8 at k
   * k0 + 8 (q % 2); registers 0-1 are the first fragment, 2-3 the second */
  KG_INLINE_SPEC static void load_b2(b_t &b0, b_t &b1, const T *Bs, int col0, int k0) {
    const int l = (int)(kg_lane_id() % 32u);
    unsigned r[4];
    kg_ldmatrix_x4_at(r, kg_lds_addr(Bs) +
                             2 * ((col0 + 8 * (l / 16) + l % 8) * LD + k0 + 8 * ((l / 8) % 2)));
    b0.r[0] = r[0];
    b0.r[1] = r[1];
    b1.r[0] = r[2];
    b1.r[1] = r[3];
  }
  /* B from a [k][LD] tile: ldmatrix .trans, lanes 0-15 addressing rows k0 +
   * l % 16 at column col0 (the transposed 8 x 8 matrices are B's .col
   * registers: register q holds B[k0 + 2t + 8q + h][col0 + g]) */
  KG_INLINE_SPEC static void load_bt(b_t &b, const T *Bs, int col0, int k0) {
    const int l = (int)(kg_lane_id() % 32u);
    kg_ldmatrix_x2_trans_at(b.r, kg_lds_addr(Bs) + 2 * ((k0 + l % 16) * LD + col0));
  }
  /* two of them, columns col0.. and col0 + 8.., with one ldmatrix.x4.trans:
   * lanes 16-31 address the same rows at column col0 + 8 */
  KG_INLINE_SPEC static void load_bt2(b_t &b0, b_t &b1, const T *Bs, int col0, int k0) {
    const int l = (int)(kg_lane_id() % 32u);
    unsigned r[4];
    kg_ldmatrix_x4_trans_at(r, kg_lds_addr(Bs) + 2 * ((k0 + l % 16) * LD + col0 + 8 * (l / 16)));
    b0.r[0] = r[0];
    b0.r[1] = r[1];
    b1.r[0] = r[2];
    b1.r[1] = r[3];
  }
  KG_INLINE_SPEC static void mma(acc_t &acc, const a_t &a, const b_t &b) {
    kg_mma_16x8x16<kg_mma_is_bf16<T>::value>(acc.v, a.r, b.r);
  }
  /* an accumulator's rows g (elements 0, 1) and g + 8 (2, 3) as T pairs */
  KG_INLINE_SPEC static void acc_to_pk(kg_mma_regs<2> &p, const acc_t &c) {
    p.r[0] = kg_pack2<T>(c[0], c[1]);
    p.r[1] = kg_pack2<T>(c[2], c[3]);
  }
  /* A's register q holds rows g + 8 (q % 2), columns 2t + 8 (q / 2) + 0, 1:
   * word q % 2 of p0 (q < 2) or p1 */
  KG_INLINE_SPEC static void pk_to_a(a_t &a, const kg_mma_regs<2> &p0,
                                     const kg_mma_regs<2> &p1) {
    a.r[0] = p0.r[0];
    a.r[1] = p0.r[1];
    a.r[2] = p1.r[0];
    a.r[3] = p1.r[1];
  }
  KG_INLINE_SPEC static int row(int r) { return (int)(kg_lane_id() % 32u / 4u) + 8 * (r / 2); }
  KG_INLINE_SPEC static int col(int r) { return 2 * (int)(kg_lane_id() % 4u) + r % 2; }
  KG_INLINE_SPEC static int rslot(int r) { return r / 2; }
  KG_INLINE_SPEC static int cslot(int r) { return r % 2; }
};
#endif

#if defined(KG_MMA_WGMMA)
/* NVIDIA wgmma.mma_async m64nNk16 (sm_90a; f32 accumulate): the 4 waves of a
 * warpgroup multiply one 64 x N fragment, A and B read from LDS through
 * descriptors (kg_wgmma_64xNx16, prelude_cuda.hip, which documents the
 * layouts; the sim emulates it). Tiles are BK = 128 bytes of k per row,
 * 16-byte chunks swizzled: chunk c of row r lies at chunk c ^ (r % 8), and
 * tiles start 1024-byte aligned (so every tile of the ring is a multiple of
 * 1024 bytes: rows come in multiples of 8). D: element r is row 16 w + l / 4
 * + 8 ((r / 2) % 2), column 8 (r / 4) + 2 (l % 4) + r % 2, for lane l of wave
 * w of the warpgroup. */
template <typename T, int NC> struct kg_mma_wgmma {
  enum { M = 64, N = NC, K = 16, ACC = NC / 2, RUN = 2, B2 = 0, WAVES = 4, ALIGN = 1024 };
  enum { E = 16 / (int)sizeof(T) }; /* elements per 16-byte chunk */
  struct acc_t {
    float v[ACC];
    KG_INLINE_SPEC float &operator[](int i) { return v[i]; }
    KG_INLINE_SPEC const float &operator[](int i) const { return v[i]; }
  };
  KG_INLINE_SPEC static int at(int r, int c) {
    return r * (128 / (int)sizeof(T)) + ((c / E) ^ (r % 8)) * E + c % E;
  }
  KG_INLINE_SPEC static unsigned char *base(unsigned char *lds) {
    return lds + ((ALIGN - (unsigned)(unsigned long long)kg_lds_addr(lds) % ALIGN) % ALIGN);
  }
  KG_INLINE_SPEC static int row(int r) {
    return 16 * (int)(threadIdx.x / 32u % 4u) + (int)(kg_lane_id() % 32u / 4u) + 8 * (r / 2 % 2);
  }
  KG_INLINE_SPEC static int col(int r) { return 8 * (r / 4) + 2 * (int)(kg_lane_id() % 4u) + r % 2; }
  /* acc += the BK-wide tiles as (this warpgroup's 64 rows) times bs (N
   * rows), issued as one group; done at F::wait */
  template <int BK> KG_INLINE_SPEC static void mma_tile(acc_t &acc, const T *as, const T *bs) {
    static_assert(BK * sizeof(T) == 128, "kg_mma_wgmma: a tile row is 128 bytes");
    const kg_wg_desc_t da = kg_wg_desc_sw128(kg_lds_addr(as));
    const kg_wg_desc_t db = kg_wg_desc_sw128(kg_lds_addr(bs));
    kg_wg_fence_acc(acc.v);
    kg_wg_fence();
#pragma unroll
    for (int k = 0; k < BK; k += K)
      kg_wgmma_64xNx16<NC, kg_mma_is_bf16<T>::value>(acc.v, kg_wg_desc_add(da, 2 * k),
                                                     kg_wg_desc_add(db, 2 * k));
    kg_wg_commit();
  }
  /* at most P groups issued are pending; acc, if its group is done, may
   * be read */
  template <int P> KG_INLINE_SPEC static void wait(acc_t &acc) {
    kg_wg_wait<P>();
    kg_wg_fence_acc(acc.v);
  }
  /* this thread's tile writes (copies, stores) are seen by the wgmmas once
   * a barrier follows */
  KG_INLINE_SPEC static void tiles_written() { kg_wg_tiles_written(); }
};
template <typename T, int LD> using kg_mma_wgmma_64x256x16 = kg_mma_wgmma<T, 256>;
template <typename T, int LD> using kg_mma_wgmma_64x128x16 = kg_mma_wgmma<T, 128>;
#endif

/* FMA on the vector ALUs, any dtype, wave W: the wave's lanes are W / 8 rows
 * by 8 columns of 4 x 4 outputs each, so one fragment is (W / 2) x 32 and
 * one step takes one k. Lane l holds rows 4 (l / 8) + 0..3 and columns
 * 4 (l % 8) + 0..3; element r is row 4 (l / 8) + r / 4, column 4 (l % 8) + r % 4. */
struct kg_mma_fma_regs {
  float v[4];
};
struct kg_mma_fma_acc {
  float v[16];
  KG_INLINE_SPEC float &operator[](int i) { return v[i]; }
  KG_INLINE_SPEC const float &operator[](int i) const { return v[i]; }
};
template <typename T, int LD, int W> struct kg_mma_fma : kg_mma_plain<LD> {
  enum { M = W / 2, N = 32, K = 1, ACC = 16, RUN = 4, B2 = 0, RS = 4, ROWX = 8 };
  enum { CS = 4, COLX_LO = 8, COLX_HI = W / 2, TR = 0, PREG = 0 };
  typedef kg_mma_fma_regs a_t;
  typedef kg_mma_fma_regs b_t;
  typedef kg_mma_fma_acc acc_t;
  KG_INLINE_SPEC static void load_a(a_t &a, const T *As, int row0, int k0) {
    const int r = row0 + 4 * (int)(kg_lane_id() % (unsigned)W / 8u);
#pragma unroll
    for (int i = 0; i < 4; i++)
      a.v[i] = kg_to_f32(As[(r + i) * LD + k0]);
  }
  KG_INLINE_SPEC static void load_b(b_t &b, const T *Bs, int col0, int k0) {
    const int c = col0 + 4 * (int)(kg_lane_id() % 8u);
#pragma unroll
    for (int j = 0; j < 4; j++)
      b.v[j] = kg_to_f32(Bs[(c + j) * LD + k0]);
  }
  KG_INLINE_SPEC static void load_bt(b_t &b, const T *Bs, int col0, int k0) {
    const int c = col0 + 4 * (int)(kg_lane_id() % 8u);
#pragma unroll
    for (int j = 0; j < 4; j++)
      b.v[j] = kg_to_f32(Bs[k0 * LD + c + j]);
  }
  KG_INLINE_SPEC static void mma(acc_t &acc, const a_t &a, const b_t &b) {
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
      for (int j = 0; j < 4; j++)
        acc.v[4 * i + j] += a.v[i] * b.v[j];
  }
  KG_INLINE_SPEC static int row(int r) {
    return 4 * (int)(kg_lane_id() % (unsigned)W / 8u) + r / 4;
  }
  KG_INLINE_SPEC static int col(int r) { return 4 * (int)(kg_lane_id() % 8u) + r % 4; }
  KG_INLINE_SPEC static int rslot(int r) { return r / 4; }
  KG_INLINE_SPEC static int cslot(int r) { return r % 4; }
};
/* The FMA kind at each wave size, named like the others (NAME<T, LD>). */
template <typename T, int LD> using kg_mma_fma_w32 = kg_mma_fma<T, LD, 32>;
template <typename T, int LD> using kg_mma_fma_w64 = kg_mma_fma<T, LD, 64>;

/* FN B fragments, columns col0 + j F::N (j < FN) at k k0: in pairs where the
 * fragment loads two at once (F::B2), else one by one. */
template <typename F, int FN, typename T>
KG_INLINE void kg_mma_load_bs(typename F::b_t (&b)[FN], const T *Bs, int col0, int k0) {
  if constexpr (F::B2 && FN % 2 == 0) {
#pragma unroll
    for (int j = 0; j < FN; j += 2)
      F::load_b2(b[j], b[j + 1], Bs, col0 + j * F::N, k0);
  } else {
#pragma unroll
    for (int j = 0; j < FN; j++)
      F::load_b(b[j], Bs, col0 + j * F::N, k0);
  }
}

/* F::acc_to_pk and F::pk_to_a where the kind has them (F::PREG); templates,
 * so that code for every kind may name them behind if constexpr. */
template <typename F>
KG_INLINE void kg_mma_acc_to_pk(typename F::pk_t &p, const typename F::acc_t &c) {
  if constexpr (F::PREG)
    F::acc_to_pk(p, c);
}
template <typename F>
KG_INLINE void kg_mma_pk_to_a(typename F::a_t &a, const typename F::pk_t &p0,
                              const typename F::pk_t &p1) {
  if constexpr (F::PREG)
    F::pk_to_a(a, p0, p1);
}

/* The same from a [k][LD] tile (F::load_bt): in pairs where the fragment
 * has load_bt2 (F::B2), else one by one. */
template <typename F, int FN, typename T>
KG_INLINE void kg_mma_load_bts(typename F::b_t (&b)[FN], const T *Bs, int col0, int k0) {
  if constexpr (F::B2 && FN % 2 == 0) {
#pragma unroll
    for (int j = 0; j < FN; j += 2)
      F::load_bt2(b[j], b[j + 1], Bs, col0 + j * F::N, k0);
  } else {
#pragma unroll
    for (int j = 0; j < FN; j++)
      F::load_bt(b[j], Bs, col0 + j * F::N, k0);
  }
}

/* Copies VEC elements of T from global g[i..] to LDS s[0..] (zeros when
 * !valid): asynchronously where the platform can and the size allows
 * (kg_async_copy: 4, 8 or 16 bytes), else through registers. */
template <int VEC, typename T>
KG_INLINE void kg_tile_copy(T *s, KG_GLOBAL(const T) g, long i, bool valid) {
  if constexpr (VEC * sizeof(T) >= 4) {
    kg_async_copy<VEC>(s, g, i, valid);
  } else {
#pragma unroll
    for (int e = 0; e < VEC; e++)
      s[e] = valid ? kg_ld(g, i + e) : kg_from_f32<T>(0.0f);
  }
}
