/* attention: flash attention of one KV head's keys for a tile of query rows
 * (lua/ops/attention.lua). q [tq, H, D]; key j of KV head h is k[layer LSTRIDE + h KVS
 * + j KJS .. + D] (a tensor [S, KVH, D] or a layer of a cache [L, KVH,
 * S_max, D]), v likewise; sk keys in all. The G = H / KVH query heads of a
 * KV head are packed as rows rho = t G + g; row rho sits at position
 * rho / G + sk - tq.
 * Workgroup i takes row tile (tiles - 1 - i / REPEAT) (the last rows first:
 * under a causal mask they see the most keys) and, of i % REPEAT, KV head /
 * SPLITS and split % SPLITS. Its keys are [kb, ke): all, or those up to its
 * last row's position (CAUSAL) and from its first row's position - WINDOW + 1;
 * split s takes its share of their BN-key tiles (SPLITS > 1: decode), at
 * least MINT of them (the last splits may then have none; paged decode
 * shares them among the first nsplit splits, fewer the more row tiles the
 * run has).
 * Each key tile goes through a ring of STAGES LDS buffers (K as [BN][LDQ],
 * DP = D padded to whole fragments, the pad zeros; V likewise, or transposed
 * [DP][LDV] for the transposed product below); Q's tile stays in LDS.
 * Waves: WM along the rows (FM fragments of rows each), WK along the tile's
 * keys (BNW each). Per tile a wave computes its scores S = Q K^T on the
 * target's fragments (FRAG, templates/lib_mma.hip), scales them to base 2
 * (SCALE2 = scale log2 e, taken where the exponential is; SOFTCAP:
 * cap tanh(scale s / cap) log2 e), masks
 * what its rows may not see (only on tiles that cross a mask edge or the
 * end), and updates its rows' running maximum m and sum l (online softmax; a
 * row that has seen nothing keeps m = -inf and takes 0 for it, so no
 * inf - inf); P = 2^(S - m) goes through the wave's own LDS tile (as Q_T) to
 * the product O += P V, or stays in registers where the fragment turns
 * accumulators into A operands (F::PREG: NVIDIA's mma.sync). Fragments whose accumulators hold one column and many
 * rows per lane (F::TR, the AMD kinds) compute the transposed products, S^T =
 * K Q^T and O^T = V^T P^T, so that a lane holds one query row and its
 * softmax state is a single m and l. l sums this lane's share and is reduced
 * across the row's lanes at the end.
 * DIRECT (prefill, WK = 1): each lane stores its elements O / l to out.
 * GATHER (decode, or WK > 1): the wave groups' m, l and O meet in LDS (over
 * the ring) and are added in group order; FINAL writes O / l; PARTIAL
 * (decode) writes the sums of this split to part[((split TD + t) H + h) LDR
 * + c] (O, then m, l at D, D + 1; base 2) and counts itself in cnt[kvh RTMAX
 * + row tile]; the last of the row tile's SPLITS (paged: nsplit) workgroups
 * to count (which resets the count for the next run) adds the splits up
 * into out, in split order, so the bits never depend on which finished
 * first (only those with tiles: at a short context the last splits have
 * none). SCRATCH: the
 * kernel takes part and cnt (the node's decode path writes them). OLDKV
 * (attention's `appended`): this run writes only the caches' keys from
 * position sk - tq on, so the first tiles' older keys are copied before
 * kg_dep_wait(), q and this run's keys after it.
 * A row that sees no key gives 0. */
extern "C" __global__ void __launch_bounds__({{BLOCK}})
{{KERNEL}}(KG_GLOBAL(const {{Q_T}}) q, KG_GLOBAL(const {{Q_T}}) k, KG_GLOBAL(const {{Q_T}}) v,{{#if PAGED}}
    KG_GLOBAL(const int) pos, KG_GLOBAL(const int) seq, KG_GLOBAL(const int) ctx, KG_GLOBAL(const int) bt,{{/if}}
    KG_GLOBAL({{Q_T}}) out,{{#if SCRATCH}} KG_GLOBAL(float) part, KG_GLOBAL(int) cnt,{{/if}} long tq, long sk, long layer{{#if FIRST}},
    long first{{/if}}) {
  typedef {{Q_T}} T;
  typedef {{FRAG}}<T, {{LDQ}}> F;  /* Q and K tiles (and V, [BN][LDQ]) */
  typedef {{FRAG}}<T, {{LDP}}> FP; /* a wave's P tile */
  typedef {{FRAG}}<T, {{LDV}}> FV; /* V transposed (TR) */
  constexpr bool TR = F::TR;
  constexpr int BM = {{BM}}, BN = {{BN}}, BNW = {{BNW}}, DP = {{DP}}, LDQ = {{LDQ}}, LDP = {{LDP}};
  constexpr int LDV = {{LDV}}, VSTAGE = TR ? DP * LDV : BN * LDQ;
  constexpr int WK = {{WK}}, FM = {{FM}}, STAGES = {{STAGES}}, CPR = DP / {{VEC}};
  /* a fragment's query rows, and its keys (S) or head-dim columns (O) */
  constexpr int RF = TR ? F::N : F::M, KF = TR ? F::M : F::N;
  constexpr int FNS = BNW / KF, FND = DP / KF;
  constexpr int NS = TR ? F::CS : F::RS; /* rows of a fragment in a lane */
  constexpr int KU = F::K == 1 ? 4 : 8;  /* k steps unrolled */
  /* P stays in registers where the fragment makes A of accumulators */
  constexpr bool PREG = !TR && F::PREG;
  constexpr int KUP = PREG ? BNW / F::K : KU;
  constexpr int XLO = TR ? F::COLX_LO : 1, XHI = TR ? F::COLX_HI : F::ROWX / 2;
  constexpr int G = {{G}}, H = {{H}}, D = {{D}};
  /* scores are kept as the products; SC turns them (and m) to base 2 where
   * the exponential is taken (SOFTCAP scales them before the tanh) */
  constexpr float SC = {{#if PLAIN}}{{SCALE2}}{{/if}}{{#if SOFTCAP}}1.0f{{/if}};
  KG_SHARED_BUFFER(lds, {{SHARED_BYTES}});
  T *const Qs = (T *)lds;                          /* [BM][LDQ] */
  T *const Ps = Qs + BM * LDQ;                     /* per wave [FM RF][LDP] */
  T *const Ks = Ps + (PREG ? 0 : {{WM}} * WK * FM * RF * LDP); /* [STAGES][BN][LDQ] */
  T *const Vs = Ks + STAGES * BN * LDQ;            /* [STAGES] VSTAGE */
{{#if STREAM}}  /* at the end: each row's position and pass (-1: none), then the passes'
   * table (below) */
  constexpr int PMAX = BM + 1; /* passes of a tile at most: one per token */
  int *const Rp = (int *)(void *)(lds + {{SHARED_BYTES}} - BM * 8 - (PMAX + 2) * 32 -
                                  PMAX * 12);
  int *const Rq = Rp + BM;
  int *const Pt = Rq + BM;             /* [PMAX + 2][8] */
  int *const Tq = Pt + (PMAX + 2) * 8; /* [PMAX] the tile's tokens' sequences, */
  int *const Tp = Tq + PMAX;           /* positions */
  int *const Tc = Tp + PMAX;           /* and their sequences' contexts (-1: none) */
{{else}}{{#if PAGED}}  /* each row's position in this pass (-1: another pass's), at the end */
  int *const Rp = (int *)(void *)(lds + {{SHARED_BYTES}} - BM * 4);
{{/if}}{{/if}}  /* element r of a fragment's accumulator: its row, its key or column, and
   * which of the lane's rows it is in */
  auto rowof = [](int r) { return TR ? F::col(r) : F::row(r); };
  auto colof = [](int r) { return TR ? F::row(r) : F::col(r); };
  auto slot = [](int r) { return TR ? F::cslot(r) : F::rslot(r); };

  /* early launch (common.hip): nothing is read before the kernels before
   * this one are done (kv_append may just have written the cache), but for
   * OLDKV's keys of earlier runs (below) */
  kg_dep_launch();
{{#if OLDKV}}{{else}}  kg_dep_wait();
{{/if}}  const int tid = (int)threadIdx.x, wave = tid / {{WAVE}};
  const int wm = wave / WK, wk = wave % WK;
  /* rows, positions and keys in 32 bits: kgen keeps tq G and sk below 2^30;
   * memory offsets in 64 */
  const int bid = (int)blockIdx.x;
  const int rest = (int)(bid % {{REPEAT}});
  const int kvh = rest / {{SPLITS}}, split = rest % {{SPLITS}};
{{#if FIRST}}  /* the step's first `first` tokens are another launch's (the decode path's,
   * paged_attention's decode_tokens): this one takes tokens first .. tq - 1,
   * its grid sized for all tq (the workgroups past its tiles return) */
  {
    const long t0 = first < 0 ? 0 : first > tq ? tq : first;
    q = kg_gofs(q, t0 * H * D);
    out = kg_gofs(out, t0 * H * D);
    pos = kg_gofs(pos, t0);
    seq = kg_gofs(seq, t0);
    tq -= t0;
  }
{{/if}}  const int rows = (int)tq * G;
  const int tiles = (rows + BM - 1) / BM;
  const int r0 = (tiles - 1 - bid / {{REPEAT}}) * BM;
{{#if FIRST}}  if (r0 < 0)
    return;
{{/if}}{{#if PAGED}}  /* the tile's tokens t_lo .. t_hi, of sequences taken one a pass below */
  const int t_lo = r0 / G;
  const int t_hi = ((r0 + BM < rows ? r0 + BM : rows) - 1) / G;
  constexpr int CTX_MAX = {{MAXB}} * {{BS}}; /* a sequence's keys at most */
  /* sequence s's context, within its block table's row */
  auto context = [&](int s) {
    const int c = kg_ld(ctx, s);
    return c < 0 ? 0 : c > CTX_MAX ? CTX_MAX : c;
  };
  /* a pass's keys [kb, ke) (key tiles at multiples of BN, so a row's tiles
   * never depend on the rows beside it), its rows' positions p_lo .. p_hi,
   * and this split's tiles [t_begin, t_end) of the keys: at least MINT a
   * split */
  int kb = 0, ke = 0, p_lo = 0, p_hi = 0, t_begin = 0, t_end = 0, per = 0;
  (void)p_lo;
  (void)p_hi;
  /* the splits that take keys this run: SPLITW workgroups a KV head over
   * this run's row tiles, 1 to SPLITS (a step of a few sequences splits
   * their contexts SPLITS ways; one of 64 has row tiles enough, and each
   * workgroup streams its sequences' whole contexts), the same for every
   * row tile of the run; the others return at once, and the last of the
   * nsplit to count adds the parts */
  const int wants = {{SPLITW}} / tiles;
  const int nsplit = wants < 1 ? 1 : wants > {{SPLITS}} ? {{SPLITS}} : wants;
{{#if PARTIAL}}  if (split >= nsplit)
    return; /* no keys this run: neither parts nor a count */
{{/if}}  auto split_tiles = [&](int ntiles) {
    const int per0 = (ntiles + nsplit - 1) / nsplit;
    const int pmin = ntiles < {{MINT}} ? ntiles : {{MINT}};
    per = per0 > pmin ? per0 : pmin;
    t_begin = split * per < ntiles ? split * per : ntiles;
    t_end = t_begin + per < ntiles ? t_begin + per : ntiles;
  };
{{#if PARTIAL}}  if (r0 / BM >= {{RTMAX}})
    return; /* past the counts of finished splits (T over its decode maximum) */
  /* decode: a sequence's keys from its context alone (its tokens are its
   * last TD positions at most), whichever tile its rows are in, so that its
   * splits, and the bits of their sum, are its own */
  auto decode_kb = [&](int cs) {
{{#if WINDOW}}    const int k0 = cs - {{TD}} - {{WINDOW}} + 1;
    return k0 > 0 ? k0 / BN * BN : 0;
{{else}}    (void)cs;
    return 0;
{{/if}}  };
{{/if}}{{else}}  const int off = (int)(sk - tq); /* position of query row t: t + off */
  const int p_lo = r0 / G + off;
  const int p_hi = ((r0 + BM < rows ? r0 + BM : rows) - 1) / G + off;
  (void)p_lo;
  (void)p_hi;

  /* the keys this workgroup's rows may see, and this split's tiles of them */
  int kb = 0, ke = (int)sk;
{{#if CAUSAL}}  ke = p_hi + 1 < ke ? p_hi + 1 : ke;
{{/if}}{{#if WINDOW}}  kb = p_lo - {{WINDOW}} + 1 > 0 ? p_lo - {{WINDOW}} + 1 : 0;
{{/if}}  const int ntiles = ke > kb ? (ke - kb + BN - 1) / BN : 0;
  /* at least MINT tiles a split (fewer splits with tiles at a short context:
   * each runs its tiles through the ring, and the combine has fewer parts) */
  const int per0 = (ntiles + {{SPLITS}} - 1) / {{SPLITS}};
  const int pmin = ntiles < {{MINT}} ? ntiles : {{MINT}};
  const int per = per0 > pmin ? per0 : pmin;
  const int t_begin = split * per;
  const int t_end = t_begin + per < ntiles ? t_begin + per : ntiles;
{{/if}}
  /* key tile kt's keys in [lo, hi) into stage s (zeros past ke and D) */
{{#if PAGED}}  int lkb = 0, lke = 0, lsq = 0; /* the item load_kv copies: its keys, sequence */
{{/if}}  auto load_kv = [&](int s, int kt, int lo, int hi) {
    const int j0 = {{#if PAGED}}lkb{{else}}kb{{/if}} + kt * BN;
    for (int u = tid; u < BN * CPR; u += {{BLOCK}}) {
      const int r = u / CPR, c = u % CPR * {{VEC}};
      if (j0 + r < lo || j0 + r >= hi)
        continue;
{{#if PAGED}}      /* key j is slot j % BS of the sequence's block j / BS (zeros for a
       * block outside the pool) */
      const int j = j0 + r;
      const int blk = j < lke && c < D ? kg_ld(bt, (long)lsq * {{MAXB}} + j / {{BS}}) : -1;
      const bool ok = blk >= 0 && blk < {{NBLK}};
      const long src = layer * {{LSTRIDE}}L + kvh * {{KVS}}L +
                       ((long)blk * {{BS}} + j % {{BS}}) * {{KJS}}L + c;
{{else}}      const bool ok = j0 + r < ke && c < D;
      const long src = layer * {{LSTRIDE}}L + kvh * {{KVS}}L + (long)(j0 + r) * {{KJS}}L + c;
{{/if}}      kg_tile_copy<{{VEC}}>(&Ks[(s * BN + r) * LDQ + c], k, ok ? src : 0, ok);
      if constexpr (TR) {
        kg_vec<T, {{VEC}}> x = {};
        if (ok)
          x = kg_ldv<{{VEC}}>(v, src);
#pragma unroll
        for (int e = 0; e < {{VEC}}; e++)
          Vs[s * VSTAGE + (c + e) * LDV + r] = x.v[e];
      } else {
        kg_tile_copy<{{VEC}}>(&Vs[s * VSTAGE + r * LDQ + c], v, ok ? src : 0, ok);
      }
    }
  };

  /* this wave's rows (relative to r0; rbase absolute) and its running state */
  const int wr0 = wm * FM * RF;
  const int rbase = r0 + wr0;
  typename F::acc_t oacc[FM][FND];
  float m_run[FM][NS], l_run[FM][NS];
#pragma unroll
  for (int i = 0; i < FM; i++) {
#pragma unroll
    for (int j = 0; j < FND; j++)
#pragma unroll
      for (int r = 0; r < F::ACC; r++)
        oacc[i][j][r] = 0.0f;
#pragma unroll
    for (int s = 0; s < NS; s++) {
      m_run[i][s] = -__builtin_inff();
      l_run[i][s] = 0.0f;
    }
  }
  T *const ps = Ps + wave * FM * RF * LDP;

  /* tiles are copied AHEAD ahead of their turn (none with one stage) */
  constexpr int AHEAD = STAGES - 1, ALL = 1 << 30;
  /* OLDKV: the keys before this run's rows (position sk - tq on) were
   * written by earlier runs, which the runtime lets finish before a run's
   * first kernel starts (kgrt.c, kgrt_model_run_step): the first tiles' copies
   * of them are issued before kg_dep_wait(), this run's rows after it */
  const int fresh = {{#if OLDKV}}off{{else}}0{{/if}};
{{#if OLDKV}}#pragma unroll
  for (int s = 0; s < AHEAD; s++)
    if (t_begin + s < t_end)
      load_kv(s, t_begin + s, 0, fresh);
  kg_dep_wait();
{{/if}}  /* Q's rows (zeros past the last row and D) */
  for (int u = tid; u < BM * CPR; u += {{BLOCK}}) {
    const int r = u / CPR, c = u % CPR * {{VEC}};
    const int rho = r0 + r;
    const bool ok = rho < rows && c < D;
    const long src = ((long)(rho / G) * H + kvh * G + rho % G) * D + c;
    kg_tile_copy<{{VEC}}>(&Qs[r * LDQ + c], q, ok ? src : 0, ok);
  }
{{#if PAGED}}{{#if PARTIAL}}  /* the tile's tokens in passes, a pass a sequence's run of tokens (a
   * sequence's tokens are contiguous; the rows of other passes are hidden
   * from its keys), each with its keys [kb, ke), its rows' positions p_lo ..
   * p_hi and this split's tiles of them. The passes' tiles run through the
   * ring as one stream of items, so that a pass's first tiles are copied
   * while the pass before multiplies its last. A row's state changes only
   * at its own pass's tiles, in their order: the same bits as a pass at a
   * time. Thread 0 writes the table: Pt[p] = sequence, kb, ke, p_lo, p_hi,
   * mixed, first tile, first item; Pt[np][7] the items in all (a sentinel);
   * Pt[PMAX + 1][0] the items, too. Each row's position (Rp, clamped to
   * [-1, CTX_MAX] so that position arithmetic stays in 32 bits) and pass
   * (Rq; -1: none). */
  auto position = [&](int t) {
    const int p = kg_ld(pos, t);
    return p < 0 ? -1 : p > CTX_MAX ? CTX_MAX : p;
  };
  /* the tokens' facts, a thread each, so that their loads are in flight
   * together (a tile holds at most PMAX tokens) */
  for (int u = tid; u <= t_hi - t_lo; u += {{BLOCK}}) {
    const int s = kg_ld(seq, t_lo + u);
    Tq[u] = s;
    Tp[u] = position(t_lo + u);
    Tc[u] = s >= 0 && s < (int)sk ? context(s) : -1;
  }
  __syncthreads();
  if (tid == 0) {
    for (int u = 0; u < BM; u++)
      Rp[u] = Rq[u] = -1;
    int np = 0, items = 0;
    for (int ta = t_lo; ta <= t_hi;) {
      const int sa = Tq[ta - t_lo];
      int tb = ta;
      while (tb < t_hi && Tq[tb + 1 - t_lo] == sa)
        tb++;
      const int pa = ta;
      const bool mixed = ta > t_lo || tb < t_hi;
      ta = tb + 1;
      if (Tc[pa - t_lo] < 0)
        continue; /* not a sequence: its rows see no key (zeros) */
      const int cs = Tc[pa - t_lo];
      p_lo = CTX_MAX;
      p_hi = -1;
      for (int t = pa; t <= tb; t++) {
        const int p = Tp[t - t_lo];
        p_lo = p < p_lo ? p : p_lo;
        p_hi = p > p_hi ? p : p_hi;
        for (int g = 0; g < G; g++) {
          const int rho = t * G + g;
          if (rho >= r0 && rho < r0 + BM && rho < rows) {
            Rp[rho - r0] = p;
            Rq[rho - r0] = np;
          }
        }
      }
      kb = decode_kb(cs);
      ke = cs;
      split_tiles(ke > kb ? (ke - kb + BN - 1) / BN : 0);
      int *const P = Pt + np * 8;
      P[0] = sa;
      P[1] = kb;
      P[2] = ke;
      P[3] = p_lo;
      P[4] = p_hi;
      P[5] = mixed;
      P[6] = t_begin;
      P[7] = items;
      items += t_end - t_begin;
      np++;
    }
    Pt[np * 8 + 7] = items;
    Pt[(PMAX + 1) * 8] = items;
  }
  __syncthreads(); /* the table and the rows' positions and passes */
  const int nitems = Pt[(PMAX + 1) * 8];
  /* item it of the stream: pass lp (load_item) or cp (the loop's), tile
   * P[6] + it - P[7] of its keys; both passes only move forward */
  int lp = 0, cp = 0;
  auto load_item = [&](int s, int it) {
    while (Pt[(lp + 1) * 8 + 7] <= it)
      lp++;
    const int *const P = Pt + lp * 8;
    lsq = P[0];
    lkb = P[1];
    lke = P[2];
    load_kv(s, P[6] + it - P[7], 0, ALL);
  };
#pragma unroll
  for (int s = 0; s < AHEAD; s++) {
    if (s < nitems)
      load_item(s, s);
    kg_async_commit();
  }
  for (int it = 0; it < nitems; it++) {
    const int stage = it % STAGES;
    while (Pt[(cp + 1) * 8 + 7] <= it)
      cp++;
    kb = Pt[cp * 8 + 1];
    ke = Pt[cp * 8 + 2];
    p_lo = Pt[cp * 8 + 3];
    p_hi = Pt[cp * 8 + 4];
    const bool mixed = Pt[cp * 8 + 5] != 0;
    const int kt = Pt[cp * 8 + 6] + it - Pt[cp * 8 + 7];
    if constexpr (AHEAD == 0) {
      __syncthreads(); /* every wave is done with the one stage */
      load_item(0, it);
      kg_async_commit();
      kg_async_wait<0>();
    } else {
      kg_async_wait<AHEAD - 1>();
    }
    __syncthreads(); /* item it is in; the stage refilled next is free */
    if constexpr (AHEAD > 0) {
      if (it + AHEAD < nitems)
        load_item((it + AHEAD) % STAGES, it + AHEAD);
      kg_async_commit();
    }
{{else}}  for (int ta = t_lo; ta <= t_hi;) {
    /* this pass: tokens ta .. tb of sequence sq (a sequence's tokens are
     * contiguous; rows of other sequences are hidden from its keys) */
    const int sq = kg_ld(seq, ta);
    int tb = ta;
    while (tb < t_hi && kg_ld(seq, tb + 1) == sq)
      tb++;
    const int pa = ta;
    const bool mixed = ta > t_lo || tb < t_hi;
    ta = tb + 1;
    if (sq < 0 || sq >= (int)sk)
      continue; /* not a sequence: its rows see no key (zeros) */
    const int cs = context(sq);
    /* each row's position (-1: another pass's row, or none), clamped to
     * [-1, CTX_MAX] so that position arithmetic stays in 32 bits; the rows'
     * (Rp) are read after the barrier that begins the first tile */
    auto position = [&](int t) {
      const int p = kg_ld(pos, t);
      return p < 0 ? -1 : p > CTX_MAX ? CTX_MAX : p;
    };
    p_lo = CTX_MAX;
    p_hi = -1;
    for (int t = pa; t <= tb; t++) {
      const int p = position(t);
      p_lo = p < p_lo ? p : p_lo;
      p_hi = p > p_hi ? p : p_hi;
    }
    for (int u = tid; u < BM; u += {{BLOCK}}) {
      const int rho = r0 + u, t = rho / G;
      Rp[u] = rho < rows && t >= pa && t <= tb ? position(t) : -1;
    }
    kb = 0;
{{#if WINDOW}}    if (p_lo - {{WINDOW}} + 1 > 0)
      kb = (p_lo - {{WINDOW}} + 1) / BN * BN;
{{/if}}    ke = cs;
{{#if CAUSAL}}    ke = p_hi + 1 < ke ? p_hi + 1 : ke;
{{/if}}    split_tiles(ke > kb ? (ke - kb + BN - 1) / BN : 0);
    lsq = sq;
    lkb = kb;
    lke = ke;
{{/if}}{{/if}}{{#if STREAM}}{{else}}#pragma unroll
  for (int s = 0; s < AHEAD; s++) {
    if (t_begin + s < t_end)
      load_kv(s, t_begin + s, fresh, ALL);
    kg_async_commit();
  }
  for (int kt = t_begin; kt < t_end; kt++) {
    const int stage = (kt - t_begin) % STAGES;
    if constexpr (AHEAD == 0) {
      __syncthreads(); /* every wave is done with the one stage */
      load_kv(0, kt, 0, ALL);
      kg_async_commit();
      kg_async_wait<0>();
    } else {
      kg_async_wait<AHEAD - 1>();
    }
    __syncthreads(); /* tile kt is in; the stage refilled next is free */
    if constexpr (AHEAD > 0) {
      if (kt + AHEAD < t_end)
        load_kv((kt + AHEAD - t_begin) % STAGES, kt + AHEAD, 0, ALL);
      kg_async_commit();
    }
{{/if}}    const int j0 = kb + kt * BN + wk * BNW; /* this wave's first key */
    const T *ks = Ks + (stage * BN + wk * BNW) * LDQ;
    const T *vs = Vs + stage * VSTAGE + (TR ? wk * BNW : wk * BNW * LDQ);
    const T *qs = Qs + wr0 * LDQ;
    kg_compiler_barrier(); /* Q's fragments are loaded per tile, not held across the loop */

    /* S = Q K^T (TR: S^T = K Q^T) */
    typename F::acc_t sacc[FM][FNS];
#pragma unroll
    for (int i = 0; i < FM; i++)
#pragma unroll
      for (int j = 0; j < FNS; j++)
#pragma unroll
        for (int r = 0; r < F::ACC; r++)
          sacc[i][j][r] = 0.0f;
    /* JB B fragments at a time: two where one instruction loads both */
    constexpr int JB = F::B2 && FNS % 2 == 0 && FND % 2 == 0 ? 2 : 1;
    /* k steps: a few unrolled (fewer for FMA fragments, one k per step) */
#pragma unroll KU
    for (int kk = 0; kk < DP; kk += F::K) {
      if constexpr (TR) {
        typename F::b_t qb[FM];
#pragma unroll
        for (int i = 0; i < FM; i++)
          F::load_b(qb[i], qs, i * F::N, kk);
#pragma unroll
        for (int j = 0; j < FNS; j++) {
          typename F::a_t ka;
          F::load_a(ka, ks, j * F::M, kk);
#pragma unroll
          for (int i = 0; i < FM; i++)
            F::mma(sacc[i][j], ka, qb[i]);
        }
      } else {
        typename F::a_t a[FM];
#pragma unroll
        for (int i = 0; i < FM; i++)
          F::load_a(a[i], qs, i * F::M, kk);
#pragma unroll
        for (int j = 0; j < FNS; j += JB) {
          typename F::b_t b[JB];
          kg_mma_load_bs<F, JB>(b, ks, j * F::N, kk);
#pragma unroll
          for (int jj = 0; jj < JB; jj++)
#pragma unroll
            for (int i = 0; i < FM; i++)
              F::mma(sacc[i][j + jj], a[i], b[jj]);
        }
      }
    }

    /* base-2 scores, masked where this tile crosses an edge (positions and
     * keys relative to this wave's first key j0, in 32 bits) */
    const int kb_tile = kb + kt * BN;
    bool edge = kb_tile + BN > ke{{#if PAGED}} || mixed{{/if}};
{{#if CAUSAL}}    edge = edge || kb_tile + BN - 1 > p_lo;
{{/if}}{{#if WINDOW}}    edge = edge || kb_tile <= p_hi - {{WINDOW}};
{{/if}}    const int last = ke - 1 - j0 < BNW ? ke - 1 - j0 : BNW; /* the last key */
{{#if PAGED}}{{else}}    const int offj = off - j0;
    (void)offj;
{{/if}}    float mx[FM][NS];
#pragma unroll
    for (int i = 0; i < FM; i++)
#pragma unroll
      for (int s = 0; s < NS; s++)
        mx[i][s] = -__builtin_inff();
#pragma unroll
    for (int i = 0; i < FM; i++)
#pragma unroll
      for (int j = 0; j < FNS; j++)
#pragma unroll
        for (int r = 0; r < F::ACC; r++) {
{{#if PLAIN}}          float s = sacc[i][j][r];
{{/if}}{{#if SOFTCAP}}          float s = kg_tanh(sacc[i][j][r] * {{CAP_IN}}) * {{CAP_OUT}};
{{/if}}          if (edge) {
            const int key = j * KF + colof(r);
{{#if PAGED}}            const int rrow = wr0 + i * RF + rowof(r);
            const int pos = Rp[rrow] - j0;
{{#if STREAM}}            bool hide = key > last || Rq[rrow] != cp || Rp[rrow] < 0;
{{else}}            bool hide = key > last || Rp[rrow] < 0;
{{/if}}
{{else}}            const int pos = (rbase + i * RF + rowof(r)) / G + offj;
            (void)pos;
            bool hide = key > last;
{{/if}}{{#if CAUSAL}}            hide = hide || key > pos;
{{/if}}{{#if WINDOW}}            hide = hide || key <= pos - {{WINDOW}};
{{/if}}            s = hide ? -__builtin_inff() : s;
          }
          sacc[i][j][r] = s;
          mx[i][slot(r)] = kg_max(mx[i][slot(r)], s);
        }
    /* new maxima (over the row's lanes), the old state rescaled */
    float m_use[FM][NS];
#pragma unroll
    for (int i = 0; i < FM; i++)
#pragma unroll
      for (int s = 0; s < NS; s++) {
#pragma unroll
        for (int x = XLO; x <= XHI; x *= 2)
          mx[i][s] = kg_max(mx[i][s], kg_shfl_xor(mx[i][s], (unsigned)x));
        const float m_new = kg_max(m_run[i][s], mx[i][s]);
        m_use[i][s] = m_new == -__builtin_inff() ? 0.0f : m_new * SC;
        /* 1 exactly when the maximum stays (a hidden row's among them):
         * m_run SC - m_use, contracted to an FMA, is m_run SC's rounding
         * error, not 0 */
        const float alpha =
            m_new == m_run[i][s] ? 1.0f : kg_exp2(m_run[i][s] * SC - m_use[i][s]);
        m_run[i][s] = m_new;
        l_run[i][s] *= alpha;
        mx[i][s] = alpha;
      }
#pragma unroll
    for (int i = 0; i < FM; i++)
#pragma unroll
      for (int j = 0; j < FND; j++)
#pragma unroll
        for (int r = 0; r < F::ACC; r++)
          oacc[i][j][r] *= mx[i][slot(r)];
    /* P = 2^(SC S - SC m): into the wave's tile, [rows][keys], or packed in
     * registers (pk) */
    typename F::pk_t pk[FM][FNS];
#pragma unroll
    for (int i = 0; i < FM; i++)
#pragma unroll
      for (int j = 0; j < FNS; j++) {
#pragma unroll
        for (int r = 0; r < F::ACC; r++) {
          const float p = kg_exp2(sacc[i][j][r] * SC - m_use[i][slot(r)]);
          l_run[i][slot(r)] += p;
          if constexpr (PREG)
            sacc[i][j][r] = p;
          else
            ps[(i * RF + rowof(r)) * LDP + j * KF + colof(r)] = kg_from_f32<T>(p);
        }
        kg_mma_acc_to_pk<F>(pk[i][j], sacc[i][j]);
      }
    if constexpr (!PREG)
      kg_wave_sync();
    /* O += P V (TR: O^T += V^T P^T) */
#pragma unroll KUP
    for (int kk = 0; kk < BNW; kk += F::K) {
      if constexpr (TR) {
        typename F::b_t pb[FM];
#pragma unroll
        for (int i = 0; i < FM; i++)
          FP::load_b(pb[i], ps, i * F::N, kk);
#pragma unroll
        for (int j = 0; j < FND; j++) {
          typename F::a_t va;
          FV::load_a(va, vs, j * F::M, kk);
#pragma unroll
          for (int i = 0; i < FM; i++)
            F::mma(oacc[i][j], va, pb[i]);
        }
      } else {
        typename F::a_t pa[FM];
#pragma unroll
        for (int i = 0; i < FM; i++) {
          if constexpr (PREG)
            kg_mma_pk_to_a<F>(pa[i], pk[i][kk / F::N], pk[i][kk / F::N + 1]);
          else
            FP::load_a(pa[i], ps, i * F::M, kk);
        }
#pragma unroll
        for (int j = 0; j < FND; j += JB) {
          typename F::b_t b[JB];
          kg_mma_load_bts<F, JB>(b, vs, j * F::N, kk);
#pragma unroll
          for (int jj = 0; jj < JB; jj++)
#pragma unroll
            for (int i = 0; i < FM; i++)
              F::mma(oacc[i][j + jj], pa[i], b[jj]);
        }
      }
    }
    if constexpr (!PREG)
      kg_wave_sync(); /* the P tile is read before the next tile writes it */
  }
{{#if PAGED}}{{#if STREAM}}{{else}}    kg_async_wait<0>();
    __syncthreads(); /* every wave is done with the ring: the next pass fills it */
  }
{{/if}}{{/if}}  kg_async_wait<0>();

  /* each row's sum over its lanes */
#pragma unroll
  for (int i = 0; i < FM; i++)
#pragma unroll
    for (int s = 0; s < NS; s++)
#pragma unroll
      for (int x = XLO; x <= XHI; x *= 2)
        l_run[i][s] += kg_shfl_xor(l_run[i][s], (unsigned)x);
{{#if DIRECT}}
  /* O / l, each lane its own elements; runs of F::RUN columns at once */
#pragma unroll
  for (int i = 0; i < FM; i++)
#pragma unroll
    for (int j = 0; j < FND; j++)
#pragma unroll
      for (int r = 0; r < F::ACC; r += F::RUN) {
        const int rho = r0 + wr0 + i * RF + rowof(r);
        const int c = j * KF + colof(r);
        const float l = l_run[i][slot(r)];
        const float inv = l > 0.0f ? 1.0f / l : 0.0f;
        if (rho < rows && c < D) {
          const long idx = ((long)(rho / G) * H + kvh * G + rho % G) * D + c;
          if (!TR && F::RUN > 1 && c + F::RUN <= D) {
            kg_vec<T, F::RUN> o;
#pragma unroll
            for (int e = 0; e < F::RUN; e++)
              o.v[e] = kg_from_f32<T>(oacc[i][j][r + e] * inv);
            kg_stv<F::RUN>(out, idx, o);
          } else {
#pragma unroll
            for (int e = 0; e < F::RUN; e++)
              if (c + e < D)
                kg_st(out, idx + e, kg_from_f32<T>(oacc[i][j][r + e] * inv));
          }
        }
      }
{{/if}}{{#if GATHER}}
  /* the wave groups' state meets in LDS, over the ring: O [WK][BM][DP + 4],
   * then m and l [WK][BM][2] */
  constexpr int LDO = DP + 4;
  float *const Os = (float *)(void *)Ks;
  float *const ML = Os + WK * BM * LDO;
  __syncthreads(); /* every wave is done with the ring */
#pragma unroll
  for (int i = 0; i < FM; i++)
#pragma unroll
    for (int j = 0; j < FND; j++)
#pragma unroll
      for (int r = 0; r < F::ACC; r++) {
        const int row = wr0 + i * RF + rowof(r), c = j * KF + colof(r);
        Os[(wk * BM + row) * LDO + c] = oacc[i][j][r];
        if (j == 0 && colof(r) == 0) { /* one lane per row */
          ML[(wk * BM + row) * 2] = m_run[i][slot(r)] * SC; /* base 2 */
          ML[(wk * BM + row) * 2 + 1] = l_run[i][slot(r)];
        }
      }
  __syncthreads();
  /* thread u: row u / CPR, columns u % CPR VEC .. + VEC */
  for (int u = tid; u < BM * CPR; u += {{BLOCK}}) {
    const int row = u / CPR, c = u % CPR * {{VEC}};
    const int rho = r0 + row;
    if (rho >= rows || c >= D)
      continue;
    float m = -__builtin_inff();
#pragma unroll
    for (int w = 0; w < WK; w++)
      m = kg_max(m, ML[(w * BM + row) * 2]);
    const float m_use = m == -__builtin_inff() ? 0.0f : m;
    float l = 0.0f, o[{{VEC}}];
#pragma unroll
    for (int e = 0; e < {{VEC}}; e++)
      o[e] = 0.0f;
#pragma unroll
    for (int w = 0; w < WK; w++) {
      const float f = kg_exp2(ML[(w * BM + row) * 2] - m_use);
      l += f * ML[(w * BM + row) * 2 + 1];
#pragma unroll
      for (int e = 0; e < {{VEC}}; e++)
        o[e] += f * Os[(w * BM + row) * LDO + c + e];
    }
    const long t = rho / G, h = kvh * G + rho % G;
{{#if PARTIAL}}{{#if PAGED}}    if (t >= {{PTD}}L)
      continue; /* past the parts' rows (T over its decode maximum) */
{{/if}}    const long base = ((split * {{PTD}}L + t) * H + h) * {{LDR}};
    kg_vec<float, 4> st;
#pragma unroll
    for (int e = 0; e < {{VEC}}; e += 4) {
#pragma unroll
      for (int x = 0; x < 4; x++)
        st.v[x] = o[e + x];
      kg_stv<4>(part, base + c + e, st);
    }
    if (c == 0) {
      kg_st(part, base + D, m);
      kg_st(part, base + D + 1, l);
    }
{{/if}}{{#if FINAL}}    const float inv = l > 0.0f ? 1.0f / l : 0.0f;
    kg_vec<T, {{VEC}}> st;
#pragma unroll
    for (int e = 0; e < {{VEC}}; e++)
      st.v[e] = kg_from_f32<T>(o[e] * inv);
    kg_stv<{{VEC}}>(out, (t * H + h) * D + c, st);
{{/if}}  }
{{/if}}{{#if PARTIAL}}
  /* count this split; the last one of the row tile goes on */
  __shared__ int last;
  __syncthreads(); /* every thread's part of the split is written */
  if (tid == 0) {
    const int at = kvh * {{RTMAX}} + r0 / BM;
    kg_fence_device(); /* release: the split before the count */
    last = kg_atomic_add(cnt, at, 1) == {{#if PAGED}}nsplit{{else}}{{SPLITS}}{{/if}} - 1;
    if (last)
      kg_st(cnt, at, 0); /* every split has counted: ready for the next run */
  }
  __syncthreads();
  if (!last)
    return;
  kg_fence_device(); /* acquire: the other splits' parts */
  /* out = sum_s w_s O_s / sum_s w_s l_s, w_s = 2^(m_s - M), M = max_s m_s:
   * CHUNK splits at a time (64 floats of O), their loads in flight together,
   * added in split order into a running maximum, sum and output. Only the
   * first NACT splits have tiles; the rest wrote m = -inf, l = 0, O = 0,
   * which would add nothing (w_s = 0, and a chunk of them alone scales by
   * 2^0): they are not read, the same bits with fewer loads (a short
   * context on a grid sized for the longest) */
  constexpr int CHUNK = {{SPLITS}} < 64 / {{VEC}} ? {{SPLITS}} : 64 / {{VEC}};
{{#if PAGED}}{{else}}  const int nact = per > 0 ? (ntiles + per - 1) / per : 0;
{{/if}}  for (int u = tid; u < BM * CPR; u += {{BLOCK}}) {
    const int row = u / CPR, c = u % CPR * {{VEC}};
    const int rho = r0 + row;
    if (rho >= rows || c >= D)
      continue;
    const long t = rho / G, h = kvh * G + rho % G;
{{#if PAGED}}    if (t >= {{PTD}}L)
      continue;
    /* the splits of this row's sequence that took tiles */
    const int sr = kg_ld(seq, t);
    int nact = 0;
    if (sr >= 0 && sr < (int)sk) {
      const int cs = context(sr), k0 = decode_kb(cs);
      const int nt = cs > k0 ? (cs - k0 + BN - 1) / BN : 0;
      split_tiles(nt);
      nact = per > 0 ? (nt + per - 1) / per : 0;
    }
{{/if}}    float m = -__builtin_inff(), l = 0.0f, o[{{VEC}}];
#pragma unroll
    for (int e = 0; e < {{VEC}}; e++)
      o[e] = 0.0f;
#pragma unroll 1
    for (int s0 = 0; s0 < nact; s0 += CHUNK) { /* one chunk's loads at a time */
      float ms[CHUNK], ls[CHUNK];
      kg_vec<float, {{VEC}}> os[CHUNK];
#pragma unroll
      for (int s = 0; s < CHUNK; s++) {
        ms[s] = -__builtin_inff();
        ls[s] = 0.0f;
        os[s] = {};
        if (s0 + s < nact) {
          const long base = (((s0 + s) * {{PTD}}L + t) * H + h) * {{LDR}};
          ms[s] = kg_ld(part, base + D);
          ls[s] = kg_ld(part, base + D + 1);
          os[s] = kg_ldv<{{VEC}}>(part, base + c);
        }
      }
      float mc = m;
#pragma unroll
      for (int s = 0; s < CHUNK; s++)
        mc = kg_max(mc, ms[s]);
      const float m_use = mc == -__builtin_inff() ? 0.0f : mc;
      const float alpha = kg_exp2(m - m_use); /* the splits before this chunk */
      l *= alpha;
#pragma unroll
      for (int e = 0; e < {{VEC}}; e++)
        o[e] *= alpha;
#pragma unroll
      for (int s = 0; s < CHUNK; s++) {
        const float w = kg_exp2(ms[s] - m_use);
        l += w * ls[s];
#pragma unroll
        for (int e = 0; e < {{VEC}}; e++)
          o[e] += w * os[s].v[e];
      }
      m = mc;
    }
    const float inv = l > 0.0f ? 1.0f / l : 0.0f;
    kg_vec<T, {{VEC}}> st;
#pragma unroll
    for (int e = 0; e < {{VEC}}; e++)
      st.v[e] = kg_from_f32<T>(o[e] * inv);
    kg_stv<{{VEC}}>(out, (t * H + h) * D + c, st);
  }
{{/if}}}
