/* gemm: y[b, m, n] = sum_k x[b, m, k] * w[b, n, k] (w [N, K]; with KN, w is
 * [K, N] and read w[b, k, n]) for M rows per batch (given at run time) and
 * BATCH batches (w without a batch dim: BATCH = 1).
 * One workgroup per BM x BN tile of y: workgroup i takes tile row i / REPEAT
 * and, of i % REPEAT, batch / TILES_N and tile column % TILES_N. Its WM x WN
 * units (a wave, or F::WAVES waves together) each own a (BM / WM) x (BN / WN)
 * part: FM x FN fragments of the target's matrix instruction (FRAG,
 * templates/lib_mma.hip), whose F::at places the tiles' elements. K is walked
 * in tiles of BK through a ring of STAGES LDS buffers: while the waves
 * multiply tile t, tile t + AHEAD is being copied in (asynchronously where
 * the platform can). SYNC: the fragments are loaded into registers and
 * multiplied (every kind but wgmma); WG: the warpgroup kind multiplies
 * straight from LDS, asynchronously (F::mma_tile, F::wait). Elements past M, N or K are copied as zeros, so every
 * fragment multiplies whole tiles; VEC elements per copy (VEC divides K, and
 * N with KN). f32 accumulation. The stored value is EPI over acc0, acc1
 * (PAIR: the same product with a second weight w1 of w's shape, for a gate/up
 * pair) and operands e<k> read at the result's index (a<k> in EPI), rounded
 * to OUT_T once; a lane's runs of consecutive columns are stored as one vector.
 * QUANT: w [N, K] is in a GGUF block format (FMT), stored as GGUF stores it:
 * row n is the RB bytes of its blocks, and w comes as 16-bit units (W_T; for
 * float weights W_T is T). Its B tile is dequantized into LDS as T, a group
 * of 32 weights of one row per thread and turn (BK is a multiple of 32 and K
 * one of the block, so a group lies all in K or all past it); the fragments
 * thus read the weights rounded to T (f16, bf16), as llama.cpp's
 * dequantize-then-GEMM does; with f32 x (the FMA fragment) they stay exact.
 * QRAW (the k tile is whole blocks, QROW bytes of each row, a multiple of 4,
 * and K a multiple of BK): the tile's raw bytes travel like x's, copied
 * asynchronously AHEAD tiles ahead into a ring of their own (Bq, STAGES
 * stages of QS bytes, QBN rows QROW apart: BN of w, then with PAIR BN of
 * w1, decoded into Bs1); each tile is decoded from there
 * (QDEQ, lib_quant.hip, whose integers may carry the offsets QB0, QB1) into
 * the B ring while the tile before it is multiplied, so the B ring needs
 * BSTAGES = 2 stages. QSYNC (other formats and K): each thread decodes its
 * groups straight from global memory (DEQ) while copying the tile in,
 * synchronously: plain loads and LDS stores.
 * Regions (REGIONS): sibling matmuls of the same x (the Q, K and V
 * projections) as one N, as gemv.hip takes them: column n < R1 is row n of
 * w and goes to y [M, R1]; from R1 (up to R2, else N) row n - R1 of wr1 to
 * yr1; from R2 row n - R2 of wr2 to yr2; w [N, K], unbatched (w [K, N]
 * takes the template gemm_kn, which takes no regions).
 * Region epilogue (REPI): a region's result may be rotated (ROPE<r>) and
 * stored to a KV cache (KV<r>) as gemv.hip does; the pair of column n is
 * n ^ 1, the next element of the staged row. A row's slot is
 * taken by a later row of the same position (the last token wins); where
 * the positions of all M rows strictly ascend, none is (rows_ascend), so
 * the epilogue skips the search. Regions store through LDS: the tile's
 * products are staged F::M rows at a time, and each thread stores
 * elements of consecutive columns, so the epilogue is one loop (inlined
 * into every accumulator it was 14 times the kernel's code: 793 KB for
 * sm_90a's 128 x 256 tile).
 * A split RMS norm (fuse.c's split_plan), at prefill where the norm's
 * operand is a GEMM's epilogue result (a residual) and its consumers are
 * GEMMs: NOUT, this GEMM's result y is the operand; it also stores z = y
 * times the norm's weight nog (NOG_T; none without one) as NOUT_T where the
 * norm's result would be, and the squares of y as stored, summed per 32
 * columns (NPC) of a row, into part [rows, N / NPC]: y and z are stored
 * from the registers as the plain epilogue stores y, and the squares go
 * through LDS as the regions' products do, each run of 32 summed by one
 * thread in a fixed order (the same bits every run).
 * RSCALE, x is such a z: each row of the products is scaled by
 * rsqrt(sum of its RS_K / NPC sums / RS_K + RS_EPS) before any epilogue, so
 * no kernel computes the norm.
 * Early launch (common.hip): the first AHEAD tiles of w are copied before
 * kg_dep_wait(), everything else after it (lower.c marks the kernel only
 * where each w is a model weight). */
{{#if REPI}}{{> region_fns}}{{/if}}extern "C" __global__ void __launch_bounds__({{BLOCK}})
{{KERNEL}}(KG_GLOBAL(const {{T}}) x, KG_GLOBAL(const {{W_T}}) w,{{#if PAIR}} KG_GLOBAL(const {{W_T}}) w1,{{/if}}{{#if REGIONS}} KG_GLOBAL(const {{W_T}}) wr1,{{#if R2}} KG_GLOBAL(const {{W_T}}) wr2,{{/if}}{{/if}}{{#if NOG_T}} KG_GLOBAL(const {{NOG_T}}) nog,{{/if}}{{#if RSCALE}} KG_GLOBAL(const float) rsum,{{/if}}{{#if REPI}}{{> region_epi_args}}{{#if KSPLIT}} KG_GLOBAL(float) kpart, KG_GLOBAL(int) kcnt,{{/if}}{{> region_epi_dims}}{{else}}{{> epi_args}}{{#if REGIONS}}, KG_GLOBAL({{OUT_T}}) yr1{{#if R2}}, KG_GLOBAL({{OUT_T}}) yr2{{/if}}{{/if}}{{#if NOUT}}, KG_GLOBAL({{NOUT_T}}) z, KG_GLOBAL(float) part{{/if}}{{#if KSPLIT}}, KG_GLOBAL(float) kpart, KG_GLOBAL(int) kcnt{{/if}}, long M{{/if}}) {
  typedef {{FRAG}} F;
  /* the LDS ring: As[STAGES][BM * LD], Bs[STAGES][BN * LD] (and Bs1) */
  KG_SHARED_BUFFER(lds, {{SHARED_BYTES}});
  typedef {{T}} a_tile[{{BM}} * {{LD}}];
  typedef {{T}} b_tile[{{BN}} * {{LD}}];
  a_tile *const As = (a_tile *)F::base(lds);
  b_tile *const Bs = (b_tile *)(As + {{STAGES}});
{{#if PAIR}}  b_tile *const Bs1 = Bs + {{BSTAGES}};
{{/if}}{{#if QRAW}}  unsigned char *const Bq = (unsigned char *)(Bs + {{BSTAGES}}{{#if PAIR}} * 2{{/if}});
{{/if}}
  const long bid = (long)blockIdx.x;
  const long rest = bid % {{REPEAT}};
  const long batch = {{#if KSPLIT}}0; /* w unbatched; rest / TILES_N is the split */{{else}}rest / {{TILES_N}};{{/if}}
  const long m0 = bid / {{REPEAT}} * {{BM}}, n0 = rest % {{TILES_N}} * {{BN}};
  /* unit: the waves that multiply one fragment together (F::WAVES) */
  const int tid = (int)threadIdx.x, unit = tid / {{WAVE}} / F::WAVES;
  const int wm = unit / {{WN}} * ({{BM}} / {{WM}}), wn = unit % {{WN}} * ({{BN}} / {{WN}});
  const long xoff = batch * M * {{K}}L, woff = batch * {{N}}L * {{K}}L;
{{#if KSPLIT}}  /* split K (KSPLIT: the small-M GEMM, alone or with an epilogue; w
   * unbatched): KSPLIT workgroups per tile (REPEAT = TILES_N KSPLIT, the
   * split in place of the batch), each taking KT consecutive k tiles from
   * kt0; each writes its f32 products to kpart [KSPLIT, M, N] and counts
   * itself in kcnt [tile] (persistent, zeroed at load); the last of a
   * tile's splits to count resets the count, adds the parts in split order
   * (the same bits whatever the schedule or M) and stores as one would */
  const int KT = ({{K}} + {{BK}} - 1) / {{BK}} / {{KSPLIT}};
  const int split = (int)(rest / {{TILES_N}}), kt0 = split * KT;
{{else}}  const int KT = ({{K}} + {{BK}} - 1) / {{BK}};
{{/if}}
  /* tile kt of x and w into stage s: copy u = tid + i BLOCK of a tile is
   * row u / CPR, column u % CPR * VEC (CPR = BK / VEC copies per row), in
   * loops of constant trips. Where the BLOCK threads cover whole rows (ROWS)
   * thread tid keeps column cc and steps RP rows, so every address is a base
   * plus a constant. */
  constexpr int CPR = {{BK}} / {{VEC}};
  constexpr bool ROWS = {{BLOCK}} % CPR == 0;
  constexpr int RP = ROWS ? {{BLOCK}} / CPR : 1;
  const int cr = tid / CPR, cc = tid % CPR * {{VEC}};
  auto load_x = [&](int s, int kt) {
    const long k0 = {{#if KSPLIT}}(long)(kt0 + kt){{else}}(long)kt{{/if}} * {{BK}};
#pragma unroll
    for (int i = 0; i < ({{BM}} * CPR + {{BLOCK}} - 1) / {{BLOCK}}; i++) {
      const int u = tid + i * {{BLOCK}};
      const int r = ROWS ? cr + i * RP : u / CPR, c = ROWS ? cc : u % CPR * {{VEC}};
      if (({{BM}} * CPR) % {{BLOCK}} == 0 || u < {{BM}} * CPR)
        kg_tile_copy<{{VEC}}>(&As[s][F::at(r, c)], x, xoff + (m0 + r) * {{K}}L + k0 + c,
                              ({{K}} % {{BK}} == 0 || k0 + c < {{K}}) && m0 + r < M);
    }
  };
  auto load_w = [&](int s, int kt) {
    const long k0 = {{#if KSPLIT}}(long)(kt0 + kt){{else}}(long)kt{{/if}} * {{BK}};
{{#if KN}}
    /* w [K, N]: VEC consecutive columns of one k, stored transposed */
    for (int u = tid; u < {{BN}} * {{BK}} / {{VEC}}; u += {{BLOCK}}) {
      const int c = u / ({{BN}} / {{VEC}}), r = u % ({{BN}} / {{VEC}}) * {{VEC}};
      const bool ok = n0 + r < {{N}} && k0 + c < {{K}};
      kg_vec<{{T}}, {{VEC}}> v;
      if (ok)
        v = kg_ldv<{{VEC}}>(w, woff + (k0 + c) * {{N}}L + n0 + r);
#pragma unroll
      for (int e = 0; e < {{VEC}}; e++)
        Bs[s][F::at(r + e, c)] = ok ? v.v[e] : kg_from_f32<{{T}}>(0.0f);
    }
{{/if}}
{{#if NK}}
#pragma unroll
    for (int i = 0; i < ({{BN}} * CPR + {{BLOCK}} - 1) / {{BLOCK}}; i++) {
      const int u = tid + i * {{BLOCK}};
      const int r = ROWS ? cr + i * RP : u / CPR, c = ROWS ? cc : u % CPR * {{VEC}};
      if (({{BN}} * CPR) % {{BLOCK}} == 0 || u < {{BN}} * CPR) {
        const bool ok = ({{K}} % {{BK}} == 0 || k0 + c < {{K}}) && n0 + r < {{N}};
{{#if REGIONS}}        const long n = n0 + r < {{N}} ? n0 + r : {{N}} - 1;
        {{> region_row}}
        kg_tile_copy<{{VEC}}>(&Bs[s][F::at(r, c)], wsel, wrow * {{K}}L + k0 + c, ok);
{{else}}        kg_tile_copy<{{VEC}}>(&Bs[s][F::at(r, c)], w, woff + (n0 + r) * {{K}}L + k0 + c, ok);
{{/if}}
{{#if PAIR}}        kg_tile_copy<{{VEC}}>(&Bs1[s][F::at(r, c)], w1, woff + (n0 + r) * {{K}}L + k0 + c, ok);
{{/if}}      }
    }
{{/if}}
{{#if QRAW}}
    /* the QROW bytes of each row's blocks, 4 at a time (raw row q: row q %
     * BN of w, or of w1 from BN on); rows past N zeros */
    for (int u = tid; u < {{QBN}} * ({{QROW}} / 4); u += {{BLOCK}}) {
      const int q = u / ({{QROW}} / 4), r = q{{#if PAIR}} % {{BN}}{{/if}}, c = u % ({{QROW}} / 4) * 4;
{{#if REGIONS}}      const long n = n0 + r < {{N}} ? n0 + r : {{N}} - 1;
      {{> region_row}}
{{else}}      const long wrow = n0 + r;
      const auto wsel = {{#if PAIR}}q >= {{BN}} ? w1 : {{/if}}w;
{{/if}}      kg_async_copy<2>((unsigned short *)(Bq + s * {{QS}} + q * {{QROW}} + c), wsel,
                       (wrow * {{RB}}L + k0 / 32 * {{BB}} + c) / 2, n0 + r < {{N}});
    }
{{/if}}{{#if QSYNC}}
    /* group u: row r, weights c .. c + 31 of the tile; one past N or K
     * decodes row N - 1, group 0 instead (no branch around the loads) and
     * stores zeros */
    for (int u = tid; u < {{QBN}} * ({{BK}} / 32); u += {{BLOCK}}) {
{{#if PAIR}}      const int wt = u / ({{BK}} / 32) / {{BN}}; /* 1: w1's rows */
{{/if}}      const int r = u / ({{BK}} / 32){{#if PAIR}} % {{BN}}{{/if}}, c = u % ({{BK}} / 32) * 32;
      const bool ok = n0 + r < {{N}} && k0 + c < {{K}};
      float q[32], sc[2], mn;
      const long n = ok ? n0 + r : {{N}} - 1;
{{#if REGIONS}}      {{> region_row}}
{{else}}      const long wrow = n;
      const auto wsel = {{#if PAIR}}wt ? w1 : {{/if}}w;
{{/if}}      {{DEQ}}(wsel, wrow * {{RB}}L, ok ? (k0 + c) / 32 : 0, q, sc, &mn);
#pragma unroll
      for (int e = 0; e < 32; e++)
        Bs[s{{#if PAIR}} + wt * {{BSTAGES}}{{/if}}][F::at(r, c + e)] = kg_from_f32<{{T}}>(ok ? sc[e >> 4] * q[e] - mn : 0.0f);
    }
{{/if}}
  };
{{#if QRAW}}
  /* raw stage s into B stage b: group u is raw row r, weights 32 g .. 32 g +
   * 31, stored 16 bytes at a time (F::at keeps 16-byte runs of a row
   * together) to row r % BN of Bs (from BN on, of Bs1: PAIR); rows past N
   * were copied as zeros and decode to zeros */
  auto decode_tile = [&](int s, int b) {
    constexpr int E = 16 / (int)sizeof({{T}});
    constexpr int GROUPS = {{QBN}} * ({{BK}} / 32);
    /* constant trips, unrolled: a thread's groups decode side by side */
#pragma unroll
    for (int i = 0; i < (GROUPS + {{BLOCK}} - 1) / {{BLOCK}}; i++) {
      const int u = tid + i * {{BLOCK}};
      if (GROUPS % {{BLOCK}} != 0 && u >= GROUPS)
        break;
      const int r = u / ({{BK}} / 32), g = u % ({{BK}} / 32);
      float q[32], sc[2], mn;
      {{QDEQ}}((const unsigned *)(Bq + s * {{QS}} + r * {{QROW}}), g, q, sc, &mn);
      /* the decoder's offsets QB0, QB1 of each half (lib_quant.hip) taken off
       * in the same FMA: sc q - (QB sc + mn) is the weight, exactly */
      const float off[2] = { {{QB0}} * sc[0] + mn, {{QB1}} * sc[1] + mn };
#pragma unroll
      for (int e = 0; e < 32; e += E) {
        kg_vec<{{T}}, E> v;
#pragma unroll
        for (int j = 0; j < E; j++)
          v.v[j] = kg_from_f32<{{T}}>(sc[(e + j) >> 4] * q[e + j] - off[(e + j) >> 4]);
{{#if PAIR}}        *(kg_vec<{{T}}, E> *)&Bs[b + r / {{BN}} * {{BSTAGES}}][F::at(r % {{BN}}, g * 32 + e)] = v;
{{else}}        *(kg_vec<{{T}}, E> *)&Bs[b][F::at(r, g * 32 + e)] = v;
{{/if}}
      }
    }
  };
{{/if}}
  typename F::acc_t acc[{{FM}}][{{FN}}];
{{#if PAIR}}  typename F::acc_t acc_up[{{FM}}][{{FN}}]; /* the second weight's (w1) */
{{/if}}#pragma unroll
  for (int i = 0; i < {{FM}}; i++)
#pragma unroll
    for (int j = 0; j < {{FN}}; j++)
#pragma unroll
      for (int r = 0; r < F::ACC; r++) {
        acc[i][j][r] = 0.0f;
{{#if PAIR}}        acc_up[i][j][r] = 0.0f;
{{/if}}      }

  /* tiles are copied AHEAD k tiles before they are multiplied: STAGES - 1,
   * or STAGES - 2 for the warpgroup kind, which keeps one tile's wgmmas in
   * flight while it issues the next (so the stage refilled is the one
   * multiplied two tiles ago) */
  constexpr int AHEAD = {{STAGES}} - {{#if WG}}2{{/if}}{{#if SYNC}}1{{/if}};
  /* early launch (common.hip): the first tiles of w, a model weight where
   * the kernel is marked for it, are copied before kg_dep_wait(), x's after
   * (the first commit group holds them all, so tile 0 waits for them) */
  kg_dep_launch();
#pragma unroll
  for (int s = 0; s < AHEAD; s++)
    if (s < KT)
      load_w(s, s);
  kg_dep_wait();
#pragma unroll
  for (int s = 0; s < AHEAD; s++) {
    if (s < KT)
      load_x(s, s);
    kg_async_commit();
  }
{{#if RSCALE}}
  /* while the first tiles come in: the rsqrt(mean square + RS_EPS) of the
   * split RMS norm of each of the tile's rows, from the RS_K / NPC sums of
   * squares its producer wrote (rsum [rows, RS_K / NPC]): row r by a group
   * of 32 lanes, lane l adding sums l, l + 32, ... in order, then a shuffle
   * tree (the same bits every run); every group's rows unrolled, so their
   * loads are in flight together */
  __shared__ float rsc[{{BM}}];
  {
    constexpr int P = {{RS_K}} / {{NPC}}, G = {{BLOCK}} / 32, RG = ({{BM}} + G - 1) / G;
    static_assert({{BLOCK}} % 32 == 0, "a row's sums take a group of 32 lanes");
    const int l = tid % 32;
    float s[RG];
    /* the loads first (no store between them), then the trees */
#pragma unroll
    for (int i = 0; i < RG; i++) {
      const int r = i * G + tid / 32;
      const long m = m0 + r;
      s[i] = 0.0f;
#pragma unroll
      for (int j = 0; j < (P + 31) / 32; j++)
        if (l + 32 * j < P && r < {{BM}} && m < M)
          s[i] += kg_ld(rsum, (batch * M + m) * P + l + 32 * j);
    }
#pragma unroll
    for (int i = 0; i < RG; i++) {
      const int r = i * G + tid / 32;
      const float sum = kg_wave_sum<32>(s[i]);
      if (l == 0 && r < {{BM}})
        rsc[r] = kg_rsqrt(sum * (1.0f / {{RS_K}}) + {{RS_EPS}});
    }
  }
{{/if}}{{#if QRAW}}  /* tile 0's weights decoded; each later tile's while the one before it is
   * multiplied (the loop's end) */
  kg_async_wait<AHEAD - 1>();
  __syncthreads();
  decode_tile(0, 0);
{{/if}}  for (int kt = 0; kt < KT; kt++) {
{{#if QRAW}}{{else}}    kg_async_wait<AHEAD - 1>();
{{/if}}{{#if WG}}    F::tiles_written();
{{/if}}    /* tile kt is in (QRAW: and decoded); every wave is done with the tile
     * whose stage is refilled */
    __syncthreads();
    if (kt + AHEAD < KT) {
      load_x((kt + AHEAD) % {{STAGES}}, kt + AHEAD);
      load_w((kt + AHEAD) % {{STAGES}}, kt + AHEAD);
    }
    kg_async_commit();
    const {{T}} *as = As[kt % {{STAGES}}] + wm * {{LD}};
    const {{T}} *bs = Bs[kt % {{BSTAGES}}] + wn * {{LD}};
{{#if PAIR}}    const {{T}} *bs1 = Bs1[kt % {{BSTAGES}}] + wn * {{LD}};
{{/if}}{{#if WG}}
    /* the warpgroup's wgmmas of this tile (one group per weight); those of
     * the tile before are done once the newest NG groups alone may pend */
    constexpr int NG = 1{{#if PAIR}} + 1{{/if}};
    F::template mma_tile<{{BK}}>(acc[0][0], as, bs);
{{#if PAIR}}    F::template mma_tile<{{BK}}>(acc_up[0][0], as, bs1);
    F::template wait<NG>(acc_up[0][0]);
{{/if}}    F::template wait<NG>(acc[0][0]);
{{/if}}{{#if SYNC}}
#pragma unroll
    for (int kk = 0; kk < {{BK}}; kk += F::K) {
      typename F::a_t a[{{FM}}];
#pragma unroll
      for (int i = 0; i < {{FM}}; i++)
        F::load_a(a[i], as, i * F::M, kk);
      /* JB B fragments at a time: two where one instruction loads both */
      constexpr int JB = F::B2 && {{FN}} % 2 == 0 ? 2 : 1;
#pragma unroll
      for (int j = 0; j < {{FN}}; j += JB) {
        typename F::b_t b[JB];
        kg_mma_load_bs<F, JB>(b, bs, j * F::N, kk);
#pragma unroll
        for (int jj = 0; jj < JB; jj++)
#pragma unroll
          for (int i = 0; i < {{FM}}; i++)
            F::mma(acc[i][j + jj], a[i], b[jj]);
{{#if PAIR}}        kg_mma_load_bs<F, JB>(b, bs1, j * F::N, kk);
#pragma unroll
        for (int jj = 0; jj < JB; jj++)
#pragma unroll
          for (int i = 0; i < {{FM}}; i++)
            F::mma(acc_up[i][j + jj], a[i], b[jj]);
{{/if}}      }
    }
{{/if}}{{#if QRAW}}
    /* tile kt + 1's blocks are in (this thread's copies, then everyone's),
     * and every wave is done with tile kt - 1 (WG: its products, waited for
     * above), whose B stage tile kt + 1 takes */
    if (kt + 1 < KT) {
      kg_async_wait<AHEAD - 1>();
      __syncthreads();
      decode_tile((kt + 1) % {{STAGES}}, (kt + 1) % {{BSTAGES}});
    }
{{/if}}  }
{{#if WG}}  F::template wait<0>(acc[0][0]);
{{#if PAIR}}  F::template wait<0>(acc_up[0][0]);
{{/if}}{{/if}}{{#if KSPLIT}}
  /* split K: this split's products to kpart, then counted; the last adds */
#pragma unroll
  for (int i = 0; i < {{FM}}; i++)
#pragma unroll
    for (int j = 0; j < {{FN}}; j++)
#pragma unroll
      for (int r = 0; r < F::ACC; r++) {
        const long m = m0 + wm + i * F::M + F::row(r), n = n0 + wn + j * F::N + F::col(r);
        if (m < M && n < {{N}})
          kg_st(kpart, ((long)split * M + m) * {{N}}L + n, acc[i][j][r]);
      }
  __shared__ int last;
  __syncthreads(); /* every thread's part of the split is written */
  if (tid == 0) {
    const long at = bid / {{REPEAT}} * {{TILES_N}} + rest % {{TILES_N}};
    kg_fence_device(); /* release: the split before the count */
    last = kg_atomic_add(kcnt, at, 1) == {{KSPLIT}} - 1;
    if (last)
      kg_st(kcnt, at, 0); /* every split has counted: ready for the next run */
  }
  __syncthreads();
  if (!last)
    return;
  kg_fence_device(); /* acquire: the other splits' parts */
#pragma unroll
  for (int i = 0; i < {{FM}}; i++)
#pragma unroll
    for (int j = 0; j < {{FN}}; j++)
#pragma unroll
      for (int r = 0; r < F::ACC; r++) {
        const long m = m0 + wm + i * F::M + F::row(r), n = n0 + wn + j * F::N + F::col(r);
        float sum = 0.0f;
        if (m < M && n < {{N}})
          for (int s = 0; s < {{KSPLIT}}; s++)
            sum += kg_ld(kpart, ((long)s * M + m) * {{N}}L + n);
        acc[i][j][r] = sum;
      }
{{/if}}
{{#if RSCALE}}
  /* the split RMS norm x comes from (x is z, the operand times the norm's
   * weight): each row's products times its rsqrt, rsc (computed before the
   * k loop, whose barriers publish it) */
#pragma unroll
  for (int i = 0; i < {{FM}}; i++)
#pragma unroll
    for (int j = 0; j < {{FN}}; j++)
#pragma unroll
      for (int r = 0; r < F::ACC; r++) {
        const float sc = rsc[wm + i * F::M + F::row(r)];
        acc[i][j][r] *= sc;
{{#if PAIR}}        acc_up[i][j][r] *= sc;
{{/if}}      }
{{/if}}
{{#if REPI}}
  /* do the positions of all M rows strictly ascend? then no row's slot is
   * taken by a later row (the region epilogue's search) */
  __shared__ int descents;
  if (tid == 0)
    descents = 0;
  __syncthreads();
  bool up = true;
  for (long u = tid; u + 1 < M; u += {{BLOCK}})
    up = up && kg_ld({{#if KVSLOTS}}slots{{else}}positions{{/if}}, u) < kg_ld({{#if KVSLOTS}}slots{{else}}positions{{/if}}, u + 1);
  if (!up)
    descents = 1;
  __syncthreads();
  const bool rows_ascend = descents == 0;
{{#if KVSLOTS}}  /* a paged cache's slots (KVSLOTS): which of this tile's rows have their
   * slot taken by a later row, found once a row (not once a column) where
   * the slots do not ascend */
  __shared__ unsigned char taken[{{BM}}];
  for (int r = tid; r < {{BM}}; r += {{BLOCK}}) {
    const long m = m0 + r;
    bool t = false;
    if (!rows_ascend && m < M) {
      const int s = kg_ld(slots, m);
      for (long u = m + 1; u < M; ++u)
        t = t || kg_ld(slots, u) == s;
    }
    taken[r] = t;
  }
  __syncthreads();
  auto slot_taken = [&](long m, int) { return taken[m - m0] != 0; };
{{/if}}  /* column n0 + c of row m: rotated and stored (part_region_epi.hip) */
  auto region_out = [&](long m, long n0, int c, float acc0, float accp) {
    {{> region_epi}}
  };
{{else}}{{#if REGIONS}}
  /* column n0 + c of row m to its region's result */
  auto region_out = [&](long m, long n0, int c, float acc0, float) {
    {{> region_store}}
  };
{{/if}}{{/if}}{{#if REGIONS}}
  /* The products go out through LDS (the ring is free now), F::M rows of
   * one row of units at a time: the units of that row write their
   * fragments' rows in (part_tile_stage.hip), then every thread takes
   * elements in order, a row's columns side by side (the stores coalesce),
   * each with its pair (c ^ 1) for a rotation. One copy of the epilogue in
   * the code, not one per accumulator. */
  constexpr int SB = {{BN}};
  float *const stage = (float *)(void *)As;
  static_assert(F::M * SB * sizeof(float) + F::ALIGN <= {{SHARED_BYTES}},
                "the epilogue's LDS stage is larger than the ring");
#pragma unroll
  for (int i = 0; i < {{FM}}; i++)
    for (int g = 0; g < {{WM}}; g++) {
      {{> tile_stage}}
      const long mg = m0 + g * ({{BM}} / {{WM}}) + i * F::M;
      for (int e = tid; e < F::M * {{BN}}; e += {{BLOCK}}) {
        const int c = e % {{BN}};
        const long m = mg + e / {{BN}};
        if (m < M && n0 + c < {{N}})
          region_out(m, n0, c, stage[e], stage[e ^ 1]);
      }
    }
{{else}}
  /* the stored value of one element: EPI at y's index idx */
  auto epi = [&](long idx, float acc0{{#if PAIR}}, float acc1{{/if}}) {
    {{> epi_load}}return kg_from_f32<{{OUT_T}}>({{EPI}});
  };
  /* each lane stores the elements its accumulators hold: runs of F::RUN
   * consecutive columns of one row at once where they are whole and aligned.
   * NOUT: y is the operand of a split RMS norm; each element also goes out
   * as z = y times the norm's weight (nog), and its accumulator keeps the
   * square of y as stored (0 past M or N) for the sums below */
#pragma unroll
  for (int i = 0; i < {{FM}}; i++)
#pragma unroll
    for (int j = 0; j < {{FN}}; j++)
#pragma unroll
      for (int r = 0; r < F::ACC; r += F::RUN) {
        const long m = m0 + wm + i * F::M + F::row(r), n = n0 + wn + j * F::N + F::col(r);
{{#if NOUT}}        float sq[F::RUN];
#pragma unroll
        for (int e = 0; e < F::RUN; e++)
          sq[e] = 0.0f;
{{/if}}        if (m < M) {
          const long idx = (batch * M + m) * {{N}}L + n;
          if (F::RUN > 1 && n + F::RUN <= {{N}} && idx % F::RUN == 0) {
            kg_vec<{{OUT_T}}, F::RUN> v;
#pragma unroll
            for (int e = 0; e < F::RUN; e++)
              v.v[e] = epi(idx + e, acc[i][j][r + e]{{#if PAIR}}, acc_up[i][j][r + e]{{/if}});
            kg_stv<F::RUN>(y, idx, v);
{{#if NOUT}}{{#if NOG_T}}            const kg_vec<{{NOG_T}}, F::RUN> gv = kg_ldv<F::RUN>(nog, n);
{{/if}}            kg_vec<{{NOUT_T}}, F::RUN> zv;
#pragma unroll
            for (int e = 0; e < F::RUN; e++) {
              const float f = kg_to_f32(v.v[e]);
              zv.v[e] = kg_from_f32<{{NOUT_T}}>(f{{#if NOG_T}} * kg_to_f32(gv.v[e]){{/if}});
              sq[e] = f * f;
            }
            kg_stv<F::RUN>(z, idx, zv);
{{/if}}          } else {
#pragma unroll
            for (int e = 0; e < F::RUN; e++)
              if (n + e < {{N}}) {
                const {{OUT_T}} v = epi(idx + e, acc[i][j][r + e]{{#if PAIR}}, acc_up[i][j][r + e]{{/if}});
                kg_st(y, idx + e, v);
{{#if NOUT}}                const float f = kg_to_f32(v);
                kg_st(z, idx + e, kg_from_f32<{{NOUT_T}}>(f{{#if NOG_T}} * kg_to_f32(kg_ld(nog, n + e)){{/if}}));
                sq[e] = f * f;
{{/if}}              }
          }
        }
{{#if NOUT}}#pragma unroll
        for (int e = 0; e < F::RUN; e++)
          acc[i][j][r + e] = sq[e];
{{/if}}      }
{{#if NOUT}}
  /* the squares through LDS, F::M rows of one row of units at a time
   * (part_tile_stage.hip; rows SB floats apart: fewer bank conflicts for
   * fragments whose lanes span rows); then a thread adds the 32 squares of
   * one run of 32 columns of a row, starting where the 32 lanes of a wave
   * hit 32 banks (an order fixed by the run: the same bits every run), into
   * part [rows, N / NPC] */
  constexpr int SB = {{BN}} + 8, RUNS = {{BN}} / {{NPC}};
  float *const stage = (float *)(void *)As;
  static_assert(F::M * SB * sizeof(float) + F::ALIGN <= {{SHARED_BYTES}},
                "the epilogue's LDS stage is larger than the ring");
  static_assert({{NPC}} == 32 && {{BN}} % 32 == 0 && {{N}} % 32 == 0,
                "a split norm's sums cover runs of 32 columns");
#pragma unroll
  for (int i = 0; i < {{FM}}; i++)
    for (int g = 0; g < {{WM}}; g++) {
      {{> tile_stage}}
      const long mg = m0 + g * ({{BM}} / {{WM}}) + i * F::M;
#pragma unroll
      for (int t = 0; t < (F::M * RUNS + {{BLOCK}} - 1) / {{BLOCK}}; t++) {
        const int u = tid + t * {{BLOCK}};
        if ((F::M * RUNS) % {{BLOCK}} != 0 && u >= F::M * RUNS)
          break;
        const long m = mg + u / RUNS, n = n0 + u % RUNS * {{NPC}};
        const float *const run = stage + u / RUNS * SB + u % RUNS * {{NPC}};
        const int rot = (u - u / RUNS * SB) & 31; /* bank (k + u) % 32 */
        float s = 0.0f;
#pragma unroll
        for (int k = 0; k < 32; k++)
          s += run[(k + rot) & 31];
        if (m < M && n < {{N}})
          kg_st(part, (batch * M + m) * ({{N}}L / {{NPC}}) + n / {{NPC}}, s);
      }
    }
{{/if}}{{/if}}}
