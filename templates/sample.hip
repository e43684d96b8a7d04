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
 * the next run) takes the best of the row's parts, ties to the lowest index. */
extern "C" __global__ void __launch_bounds__({{BLOCK}})
{{KERNEL}}(KG_GLOBAL(const {{X_T}}) x, KG_GLOBAL(const int) seed, KG_GLOBAL(int) y{{#if GREEDY}}, KG_GLOBAL(int) part, KG_GLOBAL(int) cnt{{/if}}) {
  const int tid = (int)threadIdx.x;
{{#if GREEDY}}
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
{{/if}}{{#if SAMPLE}}
  const long base = (long)blockIdx.x * {{COLS}};
  /* the inverse-CDF chunk: a whole number of vectors */
  constexpr long CH = ({{COLS}} / {{VEC}} + {{BLOCK}} - 1) / {{BLOCK}} * {{VEC}};
  const float inv_t = {{INV_T}};
  float m = -__builtin_inff();
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
{{#if TOPK}}
  const kg_cut ck = kg_radix_cut<{{WAVE}}, {{BLOCK}}, {{VEC}}, {{COLS}}, false, {{X_T}}>(
      x, base, inv_t, m, {{TOPK}}u, 0.0f);
  cut_key = ck.key;
  if (ck.take < ck.ties)
    cut_index = kg_nth_with_key<{{WAVE}}, {{BLOCK}}, {{VEC}}, {{COLS}}, CH, {{X_T}}>(
        x, base, ck.key, ck.take);
{{/if}}{{#if TOPP}}
  {
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
        x, base, inv_t, m, {{TOPK_OR_ALL}}u, {{TOPP}} * mass);
    cut_key = cp.key;
    cut_index = {{COLS}};
    if (cp.take < cp.ties)
      cut_index = kg_nth_with_key<{{WAVE}}, {{BLOCK}}, {{VEC}}, {{COLS}}, CH, {{X_T}}>(
          x, base, cp.key, cp.take);
  }
{{/if}}
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
      if ((key > cut_key || (key == cut_key && c + k <= cut_index)){{#if MINP}} && w >= {{MINP}}{{/if}} && w > 0.0f) {
        own += w;
        last = c + k;
      }
    }
  }
  float total;
  const float before = kg_block_scan_excl<{{WAVE}}, {{BLOCK}}>(own, &total);
  const int last_kept = kg_block_argbest<{{WAVE}}, {{BLOCK}}>((unsigned)(last + 1), (int)(last + 1));
  kg_u32x4 ctr;
  ctr.x = blockIdx.x;
  ctr.y = {{#if SEED2}}(unsigned)kg_ld(seed, 1){{/if}}{{#if SEED1}}0u{{/if}};
  ctr.z = 0u;
  ctr.w = 0u;
  const float u = kg_u01(kg_philox4x32_10(ctr, (unsigned)kg_ld(seed, 0), 0u).x);
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
        if ((key > cut_key || (key == cut_key && c + k <= cut_index)){{#if MINP}} && w >= {{MINP}}{{/if}} && w > 0.0f) {
          run += w;
          if (run > target && pick == 0x7fffffff)
            pick = (int)(c + k);
        }
      }
    }
  }
  pick = kg_block_argbest<{{WAVE}}, {{BLOCK}}>(pick != 0x7fffffff ? 1u : 0u, pick);
  if (tid == 0)
    kg_st(y, (long)blockIdx.x, pick != 0x7fffffff ? pick : (last_kept > 0 ? last_kept - 1 : 0));
{{/if}}
}
