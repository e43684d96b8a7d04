/* sample: y[r] = a token id drawn from row r of the logits x (COLS of them).
 * GREEDY: the argmax (ties to the lowest index). Otherwise, with weights
 * w_i = exp(x_i INV_T - max) and the tokens ordered by (logit desc, index
 * asc), the kept set is the shortest prefix of that order that holds TOPK
 * tokens or TOPP of the weight of the TOPK prefix (kg_radix_cut), less the
 * tokens with w_i < MINP; then u = Philox-4x32-10 uniform (key (seed[0], 0),
 * counter (row, seed[1] or 0, 0, 0), first word) and y = the first kept token,
 * in index order, whose running kept weight exceeds u times the kept total.
 * One workgroup per row; the inverse-CDF scan gives each thread a contiguous
 * chunk of CH elements. GREEDY takes PARTS workgroups per row instead
 * (workgroup i: row i / PARTS, logits [p CHUNK, (p + 1) CHUNK) of part
 * p = i % PARTS): each stores its best (key, index) in part and counts
 * itself in cnt[row]; the last to count (which sets the count back to 0 for
 * the next run) takes the best of the row's parts, ties to the lowest index.
 * SPLIT (top-k up to 256) also takes PARTS workgroups per row, of STEPS VEC
 * logits a thread: each keeps its part's TOPK best tokens as rank values
 * (kg_rank_value, so distinct) in part; the last to count selects the row's
 * TOPK best of the PARTS TOPK (which hold them: a token in the row's top-k is
 * in its part's), sorts them by counting, and applies top-p, min-p and the same inverse
 * CDF in index order to them alone: the same kept set and draw as the one
 * workgroup path, in a fraction of the reads.{{#if RUNTIME}}
 * RUNTIME: the one workgroup path with each row's settings read at run time
 * from params[row] (temperature, top-k, top-p, min-p; a temperature that is
 * not > 0 draws the argmax, a setting out of its range is off), its
 * uniform from its own key seed[row] and counter (0, counter[row], 0, 0),
 * so that a row's draw is its own wherever it sits in the batch.{{#if PARTS}}
 * With PARTS: the GREEDY path where the row's temperature is not > 0;
 * otherwise part 0 samples the whole row and the others leave.{{/if}}{{/if}} */
extern "C" __global__ void __launch_bounds__({{BLOCK}})
{{KERNEL}}(KG_GLOBAL(const {{X_T}}) x, KG_GLOBAL(const int) seed,{{#if RUNTIME}} KG_GLOBAL(const float) params, KG_GLOBAL(const int) counter,{{/if}} KG_GLOBAL(int) y{{#if PARTS}}, KG_GLOBAL(int) part, KG_GLOBAL(int) cnt{{/if}}) {
  kg_dep_launch();
  kg_dep_wait(); /* early launch: nothing is read before it (common.hip) */
  const int tid = (int)threadIdx.x;
{{#if GREEDY}}{{#if RUNTIME}}
  const float greedy_t = kg_ld(params, (long)blockIdx.x / {{PARTS}} * 4);
  if (!(greedy_t > 0.0f && greedy_t <= 3.0e38f)) {
{{/if}}
  (void)seed;
  const long row = (long)blockIdx.x / {{PARTS}};
  const long p = (long)blockIdx.x % {{PARTS}};
  const long base = row * {{COLS}};
  const long hi = (p + 1) * {{CHUNK}} < {{COLS}} ? (p + 1) * {{CHUNK}} : {{COLS}};
  unsigned best = 0;
  int at = 0x7fffffff;
  for (long c = p * {{CHUNK}} + (long)tid * {{VEC}}; c < hi; c += {{BLOCK}} * {{VEC}}) {
    const kg_vec<{{X_T}}, {{VEC}}> v = kg_ldv<{{VEC}}>(x, base + c);
#pragma unroll
    for (int k = 0; k < {{VEC}}; ++k) {
      const unsigned key = kg_order_key(kg_to_f32(v.v[k]));
      if (at == 0x7fffffff || key > best) {
        best = key;
        at = (int)(c + k);
      }
    }
  }
  at = kg_block_argbest<{{WAVE}}, {{BLOCK}}>(best, at);
  __shared__ int last;
  if (tid == 0) {
    const long slot = (row * {{PARTS}} + p) * 2;
    kg_st(part, slot, (int)kg_order_key(kg_to_f32(kg_ld(x, base + at))));
    kg_st(part, slot + 1, at);
    kg_fence_device(); /* release: the part before the count */
    last = kg_atomic_add(cnt, row, 1) == {{PARTS}} - 1;
    if (last)
      kg_st(cnt, row, 0); /* every part has counted: ready for the next run */
  }
  __syncthreads();
  if (!last)
    return;
  kg_fence_device(); /* acquire: the other parts' bests */
  best = 0;
  at = 0x7fffffff;
  for (int q = tid; q < {{PARTS}}; q += {{BLOCK}}) {
    const long slot = (row * {{PARTS}} + q) * 2;
    const unsigned key = (unsigned)kg_ld(part, slot);
    const int idx = kg_ld(part, slot + 1);
    if (at == 0x7fffffff || kg_pair_better(key, idx, best, at)) {
      best = key;
      at = idx;
    }
  }
  at = kg_block_argbest<{{WAVE}}, {{BLOCK}}>(best, at);
  if (tid == 0)
    kg_st(y, row, at);
{{#if RUNTIME}}  return;
  }
  if ((long)blockIdx.x % {{PARTS}} != 0)
    return;
{{/if}}{{/if}}{{#if SPLIT}}
  const long row = (long)blockIdx.x / {{PARTS}};
  const long p = (long)blockIdx.x % {{PARTS}};
  const long base = row * {{COLS}};
  const long lo = p * {{CHUNK}};
  const float inv_t = {{INV_T}};
  /* the row's uniform, drawn now: its seed loads overlap the logits' */
  kg_u32x4 ctr;
  ctr.x = (unsigned)row;
  ctr.y = {{#if SEED2}}(unsigned)kg_ld(seed, 1){{/if}}{{#if SEED1}}0u{{/if}};
  ctr.z = 0u;
  ctr.w = 0u;
  const float u = kg_u01(kg_philox4x32_10(ctr, (unsigned)kg_ld(seed, 0), 0u).x);
  /* this part's tokens as rank values; 0 past the row's end */
  unsigned long long v[{{STEPS}} * {{VEC}}];
#pragma unroll
  for (int s = 0; s < {{STEPS}}; ++s) {
    const long c = lo + ((long)s * {{BLOCK}} + tid) * {{VEC}};
    if (c < {{COLS}}) {
      const kg_vec<{{X_T}}, {{VEC}}> xv = kg_ldv<{{VEC}}>(x, base + c);
#pragma unroll
      for (int k = 0; k < {{VEC}}; ++k)
        v[s * {{VEC}} + k] = kg_rank_value(kg_to_f32(xv.v[k]), c + k);
    } else {
#pragma unroll
      for (int k = 0; k < {{VEC}}; ++k)
        v[s * {{VEC}} + k] = 0;
    }
  }
  const long here = {{COLS}} - lo < {{CHUNK}} ? {{COLS}} - lo : {{CHUNK}};
  const unsigned long long t = kg_radix_nth<{{WAVE}}, {{BLOCK}}, {{STEPS}} * {{VEC}}, false>(
      v, here < {{TOPK}} ? (unsigned)here : {{TOPK}}u);
  /* the part's TOPK slots: its best in thread order, then zeros */
  unsigned mine = 0;
#pragma unroll
  for (int i = 0; i < {{STEPS}} * {{VEC}}; ++i)
    mine += v[i] >= t;
  unsigned kept;
  unsigned at = kg_block_scan_excl<{{WAVE}}, {{BLOCK}}>(mine, &kept);
  const long slots = (row * {{PARTS}} + p) * {{TOPK}};
#pragma unroll
  for (int i = 0; i < {{STEPS}} * {{VEC}}; ++i)
    if (v[i] >= t)
      kg_st_rank(part, slots + at++, v[i]);
  for (unsigned j = kept + (unsigned)tid; j < {{TOPK}}u; j += {{BLOCK}})
    kg_st_rank(part, slots + j, 0ull);
  __shared__ int last;
  __syncthreads(); /* every thread's slots before the count */
  if (tid == 0) {
    kg_fence_device(); /* release: the slots before the count */
    last = kg_atomic_add(cnt, row, 1) == {{PARTS}} - 1;
    if (last)
      kg_st(cnt, row, 0); /* every part has counted: ready for the next run */
  }
  __syncthreads();
  if (!last)
    return;
  kg_fence_device(); /* acquire: the other parts' slots */
  /* the row's TOPK best of the PARTS TOPK candidates */
  unsigned long long w[{{CAND}}];
#pragma unroll
  for (int i = 0; i < {{CAND}}; ++i) {
    const long q = (long)i * {{BLOCK}} + tid;
    w[i] = 0;
    if (q < {{PARTS}} * {{TOPK}})
      w[i] = kg_ld_rank(part, row * {{PARTS}} * {{TOPK}} + q);
  }
  const unsigned long long t2 = kg_radix_nth<{{WAVE}}, {{BLOCK}}, {{CAND}}, true>(w, {{TOPK}}u);
  /* the row's TOPK best in thread order, then sorted: each one's place is
   * the count of better ones (the values are distinct) */
  __shared__ unsigned long long top[{{TOPK}}], best[{{TOPK}}];
  mine = 0;
#pragma unroll
  for (int i = 0; i < {{CAND}}; ++i)
    mine += w[i] >= t2;
  at = kg_block_scan_excl<{{WAVE}}, {{BLOCK}}>(mine, &kept);
#pragma unroll
  for (int i = 0; i < {{CAND}}; ++i)
    if (w[i] >= t2)
      top[at++] = w[i];
  __syncthreads();
  if (tid < {{TOPK}}) {
    const unsigned long long mine_v = top[tid];
    unsigned r = 0;
    for (int j = 0; j < {{TOPK}}; ++j)
      r += top[j] > mine_v;
    best[r] = mine_v;
  }
  __syncthreads();
  if (tid >= {{WAVE}})
    return;
  /* the first wave alone from here (no more barriers): lane l holds places
   * [l EP, (l + 1) EP) of the order */
  constexpr int EP = ({{TOPK}} + {{WAVE}} - 1) / {{WAVE}};
  const float m = kg_order_key_f32((unsigned)(best[0] >> 32)) * inv_t;
  unsigned idx[EP];
  float wt[EP];
#pragma unroll
  for (int j = 0; j < EP; ++j) {
    const int r = tid * EP + j;
    const unsigned long long e = r < {{TOPK}} ? best[r] : 0ull;
    idx[j] = ~(unsigned)e;
    wt[j] = r < {{TOPK}} ? kg_sample_weight(kg_order_key_f32((unsigned)(e >> 32)), inv_t, m) : 0.0f;
  }
  int len = {{TOPK}};
{{#if TOPP}}
  {
    /* the shortest prefix of the order that holds TOPP of the top-k weight */
    float own = 0.0f;
#pragma unroll
    for (int j = 0; j < EP; ++j)
      own += wt[j];
    const float incl = kg_wave_scan_incl<{{WAVE}}>(own);
    const float mass = kg_shfl_val(incl, {{WAVE}} - 1);
    float through = incl - own;
    int first = {{TOPK}} - 1;
#pragma unroll
    for (int j = 0; j < EP; ++j) {
      through += wt[j];
      const int r = tid * EP + j;
      if (r < first && through >= {{TOPP}} * mass)
        first = r;
    }
    len = kg_wave_min_i32<{{WAVE}}>(first) + 1;
  }
{{/if}}
  /* the kept tokens in index order: each one's place is the count of kept
   * tokens with lower indices */
  __shared__ unsigned kidx[EP * {{WAVE}}];
  __shared__ float kw[EP * {{WAVE}}];
  bool keep[EP];
  unsigned mine_k = 0;
#pragma unroll
  for (int j = 0; j < EP; ++j) {
    keep[j] = tid * EP + j < len && wt[j] > 0.0f{{#if MINP}} && wt[j] >= {{MINP}}{{/if}};
    mine_k += keep[j];
    kidx[tid * EP + j] = keep[j] ? idx[j] : 0xffffffffu;
  }
  const unsigned nk = kg_shfl_val(kg_wave_scan_incl<{{WAVE}}>(mine_k), {{WAVE}} - 1);
  kg_wave_sync();
  unsigned place[EP];
#pragma unroll
  for (int j = 0; j < EP; ++j) {
    place[j] = 0;
    if (keep[j])
      for (int q = 0; q < {{TOPK}}; ++q)
        place[j] += kidx[q] < idx[j];
  }
  kg_wave_sync(); /* every place is known before kidx is rewritten */
#pragma unroll
  for (int j = 0; j < EP; ++j) {
    if (keep[j]) {
      kidx[place[j]] = idx[j];
      kw[place[j]] = wt[j];
    }
    if ((unsigned)(tid * EP + j) >= nk)
      kw[tid * EP + j] = 0.0f;
  }
  kg_wave_sync();
  /* the inverse CDF: lane l scans places [l EP, (l + 1) EP) */
  float sw[EP], own = 0.0f;
#pragma unroll
  for (int j = 0; j < EP; ++j) {
    sw[j] = kw[tid * EP + j];
    own += sw[j];
  }
  const float incl = kg_wave_scan_incl<{{WAVE}}>(own);
  const float target = u * kg_shfl_val(incl, {{WAVE}} - 1);
  float run = incl - own;
  int hit = 0x7fffffff;
#pragma unroll
  for (int j = 0; j < EP; ++j) {
    run += sw[j];
    if (sw[j] > 0.0f && run > target && hit == 0x7fffffff)
      hit = tid * EP + j;
  }
  const int first = kg_wave_min_i32<{{WAVE}}>(hit);
  /* no hit (u total rounded to the total): the last kept token */
  if (tid == 0)
    kg_st(y, row, (int)(first != 0x7fffffff ? kidx[first] : nk > 0 ? kidx[nk - 1] : 0u));
{{/if}}{{#if SAMPLE}}
  const long base = (long)blockIdx.x{{#if PARTS}} / {{PARTS}}{{/if}} * {{COLS}};
  /* the inverse-CDF chunk: a whole number of vectors */
  constexpr long CH = ({{COLS}} / {{VEC}} + {{BLOCK}} - 1) / {{BLOCK}} * {{VEC}};
{{#if RUNTIME}}  const long row = (long)blockIdx.x{{#if PARTS}} / {{PARTS}}{{/if}};
  const float temp = kg_ld(params, row * 4), fk = kg_ld(params, row * 4 + 1);
  const float fp = kg_ld(params, row * 4 + 2), fm = kg_ld(params, row * 4 + 3);
  if (!(temp > 0.0f && temp <= 3.0e38f)) {
    /* the argmax (ties to the lowest index), as the GREEDY path */
    unsigned best = 0;
    int at = 0x7fffffff;
    for (long c = (long)tid * {{VEC}}; c < {{COLS}}; c += {{BLOCK}} * {{VEC}}) {
      const kg_vec<{{X_T}}, {{VEC}}> v = kg_ldv<{{VEC}}>(x, base + c);
#pragma unroll
      for (int k = 0; k < {{VEC}}; ++k) {
        const unsigned key = kg_order_key(kg_to_f32(v.v[k]));
        if (at == 0x7fffffff || key > best) {
          best = key;
          at = (int)(c + k);
        }
      }
    }
    at = kg_block_argbest<{{WAVE}}, {{BLOCK}}>(best, at);
    if (tid == 0)
      kg_st(y, row, at);
    return;
  }
  const float inv_t = 1.0f / temp;
  const bool use_topk = fk >= 1.0f && fk < (float){{COLS}};
  const unsigned topk = use_topk ? (unsigned)fk : 0u;
  const bool use_topp = fp > 0.0f && fp < 1.0f, use_minp = fm > 0.0f && fm < 1.0f;
  const float topp = fp, minp = fm;
{{else}}  const float inv_t = {{INV_T}};
  constexpr bool use_topk = {{#if TOPK}}true{{else}}false{{/if}};
  constexpr bool use_topp = {{#if TOPP}}true{{else}}false{{/if}};
  constexpr bool use_minp = {{#if MINP}}true{{else}}false{{/if}};
  constexpr unsigned topk = {{#if TOPK}}{{TOPK}}u{{else}}0u{{/if}};
  constexpr float topp = {{#if TOPP}}{{TOPP}}{{else}}1.0f{{/if}};
  constexpr float minp = {{#if MINP}}{{MINP}}{{else}}0.0f{{/if}};
{{/if}}  float m = -__builtin_inff();
  for (long c = (long)tid * {{VEC}}; c < {{COLS}}; c += {{BLOCK}} * {{VEC}}) {
    const kg_vec<{{X_T}}, {{VEC}}> v = kg_ldv<{{VEC}}>(x, base + c);
#pragma unroll
    for (int k = 0; k < {{VEC}}; ++k)
      m = kg_max(m, kg_to_f32(v.v[k]) * inv_t);
  }
  m = kg_block_max<{{WAVE}}, {{BLOCK}}>(m);
  /* the kept prefix ends at (cut_key, cut_index): kept iff key > cut_key or
   * key == cut_key and index <= cut_index */
  unsigned cut_key = 0;
  long cut_index = {{COLS}};
  if (use_topk) {
    const kg_cut ck = kg_radix_cut<{{WAVE}}, {{BLOCK}}, {{VEC}}, {{COLS}}, false, {{X_T}}>(
        x, base, inv_t, m, topk, 0.0f);
    cut_key = ck.key;
    if (ck.take < ck.ties)
      cut_index = kg_nth_with_key<{{WAVE}}, {{BLOCK}}, {{VEC}}, {{COLS}}, CH, {{X_T}}>(
          x, base, ck.key, ck.take);
  }
  if (use_topp) {
    /* the weight of the top-k prefix (all of the row without top-k) */
    float mass = 0.0f;
    for (long c = (long)tid * {{VEC}}; c < {{COLS}}; c += {{BLOCK}} * {{VEC}}) {
      const kg_vec<{{X_T}}, {{VEC}}> v = kg_ldv<{{VEC}}>(x, base + c);
#pragma unroll
      for (int k = 0; k < {{VEC}}; ++k) {
        const float f = kg_to_f32(v.v[k]);
        const unsigned key = kg_order_key(f);
        if (key > cut_key || (key == cut_key && c + k <= cut_index))
          mass += kg_sample_weight(f, inv_t, m);
      }
    }
    mass = kg_block_sum<{{WAVE}}, {{BLOCK}}>(mass);
    const kg_cut cp = kg_radix_cut<{{WAVE}}, {{BLOCK}}, {{VEC}}, {{COLS}}, true, {{X_T}}>(
        x, base, inv_t, m, use_topk ? topk : (unsigned){{COLS}}, topp * mass);
    cut_key = cp.key;
    cut_index = {{COLS}};
    if (cp.take < cp.ties)
      cut_index = kg_nth_with_key<{{WAVE}}, {{BLOCK}}, {{VEC}}, {{COLS}}, CH, {{X_T}}>(
          x, base, cp.key, cp.take);
  }
  /* inverse CDF over the kept tokens in index order */
  const long beg = (long)tid * CH;
  const long end = beg + CH < {{COLS}} ? beg + CH : {{COLS}};
  float own = 0.0f;
  long last = -1;
  for (long c = beg; c < end; c += {{VEC}}) {
    const kg_vec<{{X_T}}, {{VEC}}> v = kg_ldv<{{VEC}}>(x, base + c);
#pragma unroll
    for (int k = 0; k < {{VEC}}; ++k) {
      const float f = kg_to_f32(v.v[k]);
      const unsigned key = kg_order_key(f);
      const float w = kg_sample_weight(f, inv_t, m);
      if ((key > cut_key || (key == cut_key && c + k <= cut_index)) && (!use_minp || w >= minp) && w > 0.0f) {
        own += w;
        last = c + k;
      }
    }
  }
  float total;
  const float before = kg_block_scan_excl<{{WAVE}}, {{BLOCK}}>(own, &total);
  const int last_kept = kg_block_argbest<{{WAVE}}, {{BLOCK}}>((unsigned)(last + 1), (int)(last + 1));
  kg_u32x4 ctr;
{{#if RUNTIME}}  ctr.x = 0u;
  ctr.y = (unsigned)kg_ld(counter, row);
{{else}}  ctr.x = blockIdx.x;
  ctr.y = {{#if SEED2}}(unsigned)kg_ld(seed, 1){{/if}}{{#if SEED1}}0u{{/if}};
{{/if}}  ctr.z = 0u;
  ctr.w = 0u;
  const float u = kg_u01(kg_philox4x32_10(ctr, (unsigned)kg_ld(seed, {{#if RUNTIME}}row{{else}}0{{/if}}), 0u).x);
  const float target = u * total;
  int pick = 0x7fffffff;
  if (own > 0.0f && before <= target) {
    float run = before;
    for (long c = beg; c < end && pick == 0x7fffffff; c += {{VEC}}) {
      const kg_vec<{{X_T}}, {{VEC}}> v = kg_ldv<{{VEC}}>(x, base + c);
#pragma unroll
      for (int k = 0; k < {{VEC}}; ++k) {
        const float f = kg_to_f32(v.v[k]);
        const unsigned key = kg_order_key(f);
        const float w = kg_sample_weight(f, inv_t, m);
        if ((key > cut_key || (key == cut_key && c + k <= cut_index)) && (!use_minp || w >= minp) && w > 0.0f) {
          run += w;
          if (run > target && pick == 0x7fffffff)
            pick = (int)(c + k);
        }
      }
    }
  }
  pick = kg_block_argbest<{{WAVE}}, {{BLOCK}}>(pick != 0x7fffffff ? 1u : 0u, pick);
  if (tid == 0)
    kg_st(y, (long)blockIdx.x{{#if PARTS}} / {{PARTS}}{{/if}}, pick != 0x7fffffff ? pick : (last_kept > 0 ? last_kept - 1 : 0));
{{/if}}
}
