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

/* A lane's value as another lane sees it (kg_shfl_u32 of its bits). */
KG_INLINE float kg_shfl_val(float v, unsigned src) {
  return kg_bits_f32(kg_shfl_u32(kg_f32_bits(v), src));
}
KG_INLINE unsigned kg_shfl_val(unsigned v, unsigned src) { return kg_shfl_u32(v, src); }

/* Inclusive prefix sum of v (float or unsigned) over the wave in lane
 * order (Hillis-Steele: a fixed order). Every lane must call it. */
template <int WAVE, typename T> KG_INLINE T kg_wave_scan_incl(T v) {
  const unsigned lane = kg_lane_id();
#pragma unroll
  for (int off = 1; off < WAVE; off *= 2) {
    const T o = kg_shfl_val(v, lane >= (unsigned)off ? lane - off : lane);
    if (lane >= (unsigned)off)
      v += o;
  }
  return v;
}

/* The smallest of v over the wave; every lane gets it. */
template <int WAVE> KG_INLINE int kg_wave_min_i32(int v) {
#pragma unroll
  for (int off = WAVE / 2; off > 0; off /= 2) {
    const int o = (int)kg_shfl_u32((unsigned)v, kg_lane_id() ^ (unsigned)off);
    v = o < v ? o : v;
  }
  return v;
}

/* Exclusive prefix sum of v (float or unsigned) over the workgroup in thread
 * order; *total gets the sum of all. Adds in a fixed order (a wave scan, then
 * the wave totals in wave order). Ends with a barrier. */
template <int WAVE, int BLOCK, typename T> KG_INLINE T kg_block_scan_excl(T v, T *total) {
  __shared__ T part[BLOCK / WAVE];
  const T inc = kg_wave_scan_incl<WAVE>(v);
  if (kg_lane_id() == WAVE - 1)
    part[threadIdx.x / WAVE] = inc;
  __syncthreads();
  T before = 0, all = 0;
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

/* A token's rank value among a row's: (order key of its logit, ~index),
 * so that larger is better, ties of the logit to the lower index; distinct
 * for distinct indices and never 0 (the index is below 2^24). */
KG_INLINE unsigned long long kg_rank_value(float f, long index) {
  return ((unsigned long long)kg_order_key(f) << 32) | (unsigned)~(unsigned)index;
}

/* Rank values in an int buffer, two words each (low first), as one 8-byte
 * access: slot i is words 2i and 2i + 1. */
template <typename P> KG_INLINE void kg_st_rank(P p, long i, unsigned long long r) {
  kg_vec<int, 2> w;
  w.v[0] = (int)(unsigned)r;
  w.v[1] = (int)(unsigned)(r >> 32);
  kg_stv<2>(p, 2 * i, w);
}
template <typename P> KG_INLINE unsigned long long kg_ld_rank(P p, long i) {
  const kg_vec<int, 2> w = kg_ldv<2>(p, 2 * i);
  return (unsigned long long)(unsigned)w.v[0] | (unsigned long long)(unsigned)w.v[1] << 32;
}

/* The number of bits of x (0 for 0; 64 - count of leading zeros). */
KG_INLINE int kg_bit_width(unsigned long long x) {
  int n = 0;
#pragma unroll
  for (int s = 32; s > 0; s >>= 1)
    if (x >> s) {
      x >>= s;
      n += s;
    }
  return n + (x != 0);
}

/* The largest and the smallest of the workgroup's nonzero u64 values (0 and
 * ~0 where there are none). Every thread gets them. Ends with a barrier. */
template <int WAVE, int BLOCK>
KG_INLINE void kg_block_range_u64(unsigned long long *mx, unsigned long long *mn) {
  __shared__ unsigned long long pmax[BLOCK / WAVE], pmin[BLOCK / WAVE];
#pragma unroll
  for (int off = WAVE / 2; off > 0; off /= 2) {
    const unsigned src = kg_lane_id() ^ (unsigned)off;
    const unsigned long long a = (unsigned long long)kg_shfl_u32((unsigned)(*mx >> 32), src) << 32 |
                                 kg_shfl_u32((unsigned)*mx, src);
    const unsigned long long b = (unsigned long long)kg_shfl_u32((unsigned)(*mn >> 32), src) << 32 |
                                 kg_shfl_u32((unsigned)*mn, src);
    *mx = a > *mx ? a : *mx;
    *mn = b < *mn ? b : *mn;
  }
  if (kg_lane_id() == 0) {
    pmax[threadIdx.x / WAVE] = *mx;
    pmin[threadIdx.x / WAVE] = *mn;
  }
  __syncthreads();
  for (int w = 0; w < BLOCK / WAVE; ++w) {
    *mx = pmax[w] > *mx ? pmax[w] : *mx;
    *mn = pmin[w] < *mn ? pmin[w] : *mn;
  }
  __syncthreads();
}

/* The threshold t with exactly n of the workgroup's values >= t, where each
 * thread holds N values in v, the nonzero ones distinct, and n is at most the
 * count of nonzero ones (zeros stand for no value). A most significant digit
 * first radix select, up to 8 bits a pass: a 256-bin LDS histogram of the
 * values that match the digits fixed so far (counts, so the order of the
 * atomic adds does not matter), then the first wave finds the bin where the
 * n-th largest falls while the others clear the next pass's histogram; it
 * stops at the first pass whose bin holds exactly the values still wanted.
 * Two barriers a pass. RANGE first skips the high bits every nonzero value
 * shares (two more barriers; worth it where the values are a row's best
 * logits, which share their sign and exponent and would otherwise take a
 * pass for them). Every thread gets t. Needs BLOCK > WAVE. */
template <int WAVE, int BLOCK, int N, bool RANGE>
KG_INLINE unsigned long long kg_radix_nth(const unsigned long long (&v)[N], unsigned n) {
  static_assert(BLOCK > WAVE && 256 % WAVE == 0, "kg_radix_nth: a wave selects, the rest clear");
  constexpr int PER = 256 / WAVE; /* bins a lane of the first wave sums */
  __shared__ unsigned hist[2][256];
  __shared__ unsigned sel[3];
  const int tid = (int)threadIdx.x;
  for (int b = tid; b < 256; b += BLOCK)
    hist[0][b] = 0;
  /* bits at and above hs are fixed, to the bits of `fixed` */
  int hs = 64;
  unsigned long long fixed = 0;
  if (RANGE) {
    unsigned long long mx = 0, mn = ~0ull;
#pragma unroll
    for (int i = 0; i < N; ++i)
      if (v[i] != 0) {
        mx = v[i] > mx ? v[i] : mx;
        mn = v[i] < mn ? v[i] : mn;
      }
    kg_block_range_u64<WAVE, BLOCK>(&mx, &mn);
    hs = mx > mn ? kg_bit_width(mx ^ mn) : 1;
    fixed = hs >= 64 ? 0ull : mx >> hs << hs;
  } else {
    __syncthreads();
  }
  for (int pass = 0;; ++pass) {
    const int shift = hs > 8 ? hs - 8 : 0;
    const unsigned mask = (1u << (hs - shift)) - 1u;
    unsigned *h = hist[pass & 1];
#pragma unroll
    for (int i = 0; i < N; ++i)
      if (hs >= 64 || (v[i] >> hs) == (fixed >> hs))
        kg_atomic_add_lds(&h[(unsigned)(v[i] >> shift) & mask], 1u);
    __syncthreads();
    if (tid < WAVE) {
      /* lane l sums bins 255 - l PER down to 256 - (l + 1) PER */
      unsigned c[PER], sum = 0;
#pragma unroll
      for (int j = 0; j < PER; ++j) {
        c[j] = h[255 - tid * PER - j];
        sum += c[j];
      }
      unsigned above = kg_wave_scan_incl<WAVE>(sum) - sum;
      if (above < n && n <= above + sum) {
#pragma unroll
        for (int j = 0; j < PER; ++j) {
          if (above < n && n <= above + c[j]) {
            sel[0] = 255u - (unsigned)(tid * PER + j);
            sel[1] = above;
            sel[2] = c[j];
          }
          above += c[j];
        }
      }
    } else {
      unsigned *next = hist[(pass + 1) & 1];
      for (int b = tid - WAVE; b < 256; b += BLOCK - WAVE)
        next[b] = 0;
    }
    __syncthreads();
    const unsigned cnt = sel[2];
    n -= sel[1];
    fixed |= (unsigned long long)sel[0] << shift;
    hs = shift;
    if (cnt == n || hs == 0)
      return fixed; /* distinct values: a bin of the last bits holds one */
  }
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
