/* lib_sample.hip - device helpers of the sample, sort and sketch families:
 * the Philox-4x32-10 counter-based generator (Salmon et al., "Parallel random
 * numbers: as easy as 1, 2, 3", SC'11), an order-preserving u32 key of a
 * float, workgroup scans and (key, index) reductions, and the radix cut that
 * finds a top-k / top-p boundary of a row without sorting it.
 * Needs common.hip. Every reduction here combines in a fixed order, so the
 * results are the same on every run. */

struct kg_u32x4 {
  unsigned x, y, z, w;
};

KG_INLINE unsigned kg_mulhi_u32(unsigned a, unsigned b) {
  return (unsigned)(((unsigned long long)a * (unsigned long long)b) >> 32);
}

/* Philox-4x32-10 of counter c under key (k0, k1). */
KG_INLINE kg_u32x4 kg_philox4x32_10(kg_u32x4 c, unsigned k0, unsigned k1) {
#pragma unroll
  for (int r = 0; r < 10; ++r) {
    if (r > 0) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    const unsigned lo0 = 0xD2511F53u * c.x, hi0 = kg_mulhi_u32(0xD2511F53u, c.x);
    const unsigned lo1 = 0xCD9E8D57u * c.z, hi1 = kg_mulhi_u32(0xCD9E8D57u, c.z);
    kg_u32x4 n;
    n.x = hi1 ^ c.y ^ k0;
    n.y = lo1;
    n.z = hi0 ^ c.w ^ k1;
    n.w = lo0;
    c = n;
  }
  return c;
}

/* A uniform float in [0, 1) from the top 24 bits of r (exact: k * 2^-24). */
KG_INLINE float kg_u01(unsigned r) { return (float)(r >> 8) * 0x1p-24f; }

/* An unsigned key with the order of the floats: a < b iff key(a) < key(b);
 * -0 and +0 get the same key; NaN gets 0, below -inf (whose key is 0x007fffff). */
KG_INLINE unsigned kg_order_key(float f) {
  unsigned u = kg_f32_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return 0u;
  if (u == 0x80000000u)
    u = 0u;
  return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}
/* The float of a key (kg_order_key's inverse on non-NaN values). */
KG_INLINE float kg_order_key_f32(unsigned k) {
  return kg_bits_f32((k & 0x80000000u) ? (k & 0x7fffffffu) : ~k);
}

/* Exclusive prefix sum of v over the workgroup in thread order; *total gets
 * the sum of all. Adds in a fixed order (a wave scan, then the wave totals in
 * wave order). Ends with a barrier. */
template <int WAVE, int BLOCK> KG_INLINE float kg_block_scan_excl(float v, float *total) {
  __shared__ float part[BLOCK / WAVE];
  const unsigned lane = kg_lane_id();
  float inc = v;
#pragma unroll
  for (int off = 1; off < WAVE; off *= 2) {
    const float o = kg_bits_f32(kg_shfl_u32(kg_f32_bits(inc), lane >= (unsigned)off ? lane - off : lane));
    if (lane >= (unsigned)off)
      inc += o;
  }
  if (lane == WAVE - 1)
    part[threadIdx.x / WAVE] = inc;
  __syncthreads();
  float before = 0.0f, all = 0.0f;
  for (int w = 0; w < BLOCK / WAVE; ++w) {
    if (w == (int)(threadIdx.x / WAVE))
      before = all;
    all += part[w];
  }
  __syncthreads();
  *total = all;
  return before + inc - v;
}

/* The index of the best (key, index) pair of the workgroup: the largest key,
 * ties to the lowest index. Every thread gets it. Ends with a barrier. */
KG_INLINE bool kg_pair_better(unsigned ka, int ia, unsigned kb, int ib) {
  return ka > kb || (ka == kb && ia < ib);
}
template <int WAVE, int BLOCK> KG_INLINE int kg_block_argbest(unsigned key, int idx) {
  __shared__ unsigned pkey[BLOCK / WAVE];
  __shared__ int pidx[BLOCK / WAVE];
#pragma unroll
  for (int off = WAVE / 2; off > 0; off /= 2) {
    const unsigned ok = kg_shfl_u32(key, kg_lane_id() ^ off);
    const int oi = (int)kg_shfl_u32((unsigned)idx, kg_lane_id() ^ off);
    if (kg_pair_better(ok, oi, key, idx)) {
      key = ok;
      idx = oi;
    }
  }
  if (kg_lane_id() == 0) {
    pkey[threadIdx.x / WAVE] = key;
    pidx[threadIdx.x / WAVE] = idx;
  }
  __syncthreads();
  key = pkey[0];
  idx = pidx[0];
  for (int w = 1; w < BLOCK / WAVE; ++w)
    if (kg_pair_better(pkey[w], pidx[w], key, idx)) {
      key = pkey[w];
      idx = pidx[w];
    }
  __syncthreads();
  return idx;
}

/* The weight of a logit f at inverse temperature inv_t against the row's
 * largest scaled logit m: exp(f inv_t - m); 0 for -inf and NaN. */
KG_INLINE float kg_sample_weight(float f, float inv_t, float m) {
  const float z = f * inv_t;
  return (z == z && z > -__builtin_inff()) ? kg_exp(z - m) : 0.0f;
}

/* Where a radix cut ends: the boundary element's key; of the elements with
 * that key (`ties` of them), the `take` with the lowest indices are in. */
struct kg_cut {
  unsigned key, take, ties;
};

/* Orders the row x[base .. base + COLS) by (key desc, index asc) and finds
 * the first element e at which count(through e) >= cnt_limit or (MASS)
 * weight(through e) >= mass_limit (weights: kg_sample_weight), without
 * sorting: eight passes over the row, each a 16-bin histogram of the next 4
 * bits of the keys that match the bits fixed so far (per-thread LDS columns,
 * summed in a fixed order). Every thread gets the cut. Needs BLOCK >= 16. */
template <int WAVE, int BLOCK, int VEC, long COLS, bool MASS, typename T, typename P>
KG_INLINE kg_cut kg_radix_cut(P x, long base, float inv_t, float m, unsigned cnt_limit,
                              float mass_limit) {
  __shared__ unsigned hcnt[16][BLOCK];
  __shared__ float hmass[16][MASS ? BLOCK : 1];
  __shared__ unsigned pcnt[16][BLOCK / 16];
  __shared__ float pmass[16][MASS ? BLOCK / 16 : 1];
  __shared__ unsigned bcnt[16];
  __shared__ float bmass[16];
  const int tid = (int)threadIdx.x;
  unsigned prefix = 0, above_cnt = 0;
  float above_mass = 0.0f;
  int pick = 0;
  for (int level = 0; level < 8; ++level) {
    const int shift = 28 - 4 * level;
    for (int b = 0; b < 16; ++b) {
      hcnt[b][tid] = 0;
      if (MASS)
        hmass[b][tid] = 0.0f;
    }
    for (long c = (long)tid * VEC; c < COLS; c += (long)BLOCK * VEC) {
      const kg_vec<T, VEC> v = kg_ldv<VEC>(x, base + c);
#pragma unroll
      for (int k = 0; k < VEC; ++k) {
        const float f = kg_to_f32(v.v[k]);
        const unsigned key = kg_order_key(f);
        if (level == 0 || (key >> (shift + 4)) == prefix) {
          const unsigned d = (key >> shift) & 15u;
          hcnt[d][tid] += 1u;
          if (MASS)
            hmass[d][tid] += kg_sample_weight(f, inv_t, m);
        }
      }
    }
    __syncthreads();
    /* thread t sums 16 columns of bin t % 16, then threads 0..15 sum their
     * bin's partials: fixed order, no shuffles */
    {
      const int b = tid & 15, seg = tid >> 4;
      unsigned cnt = 0;
      float mass = 0.0f;
#pragma unroll
      for (int j = 0; j < 16; ++j) {
        cnt += hcnt[b][seg * 16 + j];
        if (MASS)
          mass += hmass[b][seg * 16 + j];
      }
      pcnt[b][seg] = cnt;
      if (MASS)
        pmass[b][seg] = mass;
    }
    __syncthreads();
    if (tid < 16) {
      unsigned cnt = 0;
      float mass = 0.0f;
      for (int j = 0; j < BLOCK / 16; ++j) {
        cnt += pcnt[tid][j];
        if (MASS)
          mass += pmass[tid][j];
      }
      bcnt[tid] = cnt;
      bmass[tid] = mass;
    }
    __syncthreads();
    /* the first non-empty bin (from the top) where a limit is reached, else
     * the last non-empty one */
    unsigned ac = above_cnt;
    float am = above_mass;
    pick = -1;
    for (int b = 15; b >= 0; --b) {
      if (bcnt[b] == 0)
        continue;
      pick = b;
      above_cnt = ac;
      above_mass = am;
      if (ac + bcnt[b] >= cnt_limit || (MASS && am + bmass[b] >= mass_limit))
        break;
      ac += bcnt[b];
      am += bmass[b];
    }
    prefix = (prefix << 4) | (unsigned)pick;
  }
  kg_cut cut;
  cut.key = prefix;
  cut.ties = bcnt[pick];
  const float w = kg_sample_weight(kg_order_key_f32(prefix), inv_t, m);
  cut.take = cut.ties;
  for (unsigned j = 1; j < cut.ties; ++j)
    if (above_cnt + j >= cnt_limit || (MASS && above_mass + (float)j * w >= mass_limit)) {
      cut.take = j;
      break;
    }
  __syncthreads(); /* bcnt is reused by the next call */
  return cut;
}

/* The index of the n-th (1-based) element of the row whose key is `key`,
 * in index order; each thread scans a contiguous chunk of CH elements. */
template <int WAVE, int BLOCK, int VEC, long COLS, long CH, typename T, typename P>
KG_INLINE long kg_nth_with_key(P x, long base, unsigned key, unsigned n) {
  __shared__ long found;
  const long beg = (long)threadIdx.x * CH;
  const long end = beg + CH < COLS ? beg + CH : COLS;
  float cnt = 0.0f;
  for (long c = beg; c < end; c += VEC) {
    const kg_vec<T, VEC> v = kg_ldv<VEC>(x, base + c);
#pragma unroll
    for (int k = 0; k < VEC; ++k)
      cnt += kg_order_key(kg_to_f32(v.v[k])) == key ? 1.0f : 0.0f;
  }
  float total;
  const float before = kg_block_scan_excl<WAVE, BLOCK>(cnt, &total);
  if (threadIdx.x == 0)
    found = COLS;
  __syncthreads();
  if (before < (float)n && (float)n <= before + cnt) {
    unsigned seen = (unsigned)before;
    for (long c = beg; c < end; c += VEC) {
      const kg_vec<T, VEC> v = kg_ldv<VEC>(x, base + c);
#pragma unroll
      for (int k = 0; k < VEC; ++k)
        if (kg_order_key(kg_to_f32(v.v[k])) == key && ++seen == n)
          found = c + k;
    }
  }
  __syncthreads();
  const long r = found;
  __syncthreads();
  return r;
}

/* A 32-bit integer hash (the "lowbias32" xorshift-multiply mix; full
 * avalanche). The sketch ops derive their buckets, signs and picks from it. */
KG_INLINE unsigned kg_hash32(unsigned v) {
  v ^= v >> 16;
  v *= 0x7feb352du;
  v ^= v >> 15;
  v *= 0x846ca68bu;
  v ^= v >> 16;
  return v;
}
