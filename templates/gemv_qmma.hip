/* gemv_qmma: gemv_q.hip on the tensor cores, for targets with mma.sync
 * m16n8k16 in x's dtype (T f16 or bf16; lua/ops/matmul.lua picks it for
 * {{FMT}} with K a multiple of 256): y[m, n] = sum_k x[m, k] * w[n, k] for
 * the M <= MMAX <= 8 rows of x (M given at run time), w [N, K] in GGUF
 * blocks of 32 weights in BB bytes (an f16 scale d, then qs), row n the RB
 * bytes of its blocks (w comes as 16-bit units; offsets below are bytes).
 * Each block is one product of A = 16 rows of w (output columns) by 32 of
 * the block's small integers q, exact in T (lib_quant.hip, kg_q8_0_mma_a /
 * kg_q4_0_mma_a: decoded from the bits, no int-to-float conversion), and
 * B = the same 32 elements of the 8 rows of x (columns m >= M unused): two
 * kg_mma_16x8x16 into a fresh f32 C, then acc += d[row] * C in f32; so the
 * sums are those of the f32 reference up to their rounding.
 * One workgroup per 16 rows of w (n0 .. n0 + 15); its KS warps split K. A
 * row is NCH chunks of 8 blocks (CB bytes, 16-byte aligned as K % 256 == 0);
 * stage s of the workgroup is chunks s KS .. s KS + KS - 1, warp v taking
 * chunk s KS + v: it copies its chunk of the 16 rows into its part of the
 * stage with 16-byte kg_async_copy pieces, a ring of S stages, so while
 * stage s is multiplied stages s + 1 .. s + S - 1 are in flight. Each warp
 * reads back only what its own lanes copied; the barrier per stage is the
 * workgroup's (every warp runs NST stages). At the end the warps' sums are
 * added through LDS in warp order (no atomics) and stored.
 * Lane l (g = l / 4, t = l % 4) reads rows g and g + 8 of each block (the
 * words of lib_quant's permutation, rows RW words apart: conflict-free as
 * RW % 32 == 4) and x row g, elements 16 s + 4t .. 16 s + 4t + 3 of step s,
 * into B's registers in the same order: (x0, x2), (x1, x3).
 * A row past N (a guard for N % 16 != 0) is read as row N - 1, not stored.
 * Epilogue: the stored value is EPI over acc0 (the sum) and the operands e<k>
 * read at the result's index (a<k> in EPI), rounded to OUT_T. */
extern "C" __global__ void __launch_bounds__({{BLOCK}})
{{KERNEL}}(KG_GLOBAL(const {{T}}) x, KG_GLOBAL(const unsigned short) w,{{#each EPI_IN}}
    KG_GLOBAL(const {{T}}) e{{I}},{{/each}} KG_GLOBAL({{OUT_T}}) y, long M) {
  /* the ring: S stages of KS chunks of 16 rows of RW words; a spare word at
   * the end for kg_q_lds_words, which may read one word past a field */
  alignas(16) __shared__ unsigned ring[{{S}} * {{KS}} * 16 * {{RW}} + 4];
  /* copies: the 16 rows of a chunk are 16 PR pieces of 16 bytes, PL per lane */
  constexpr int PR = {{CB}} / 16, PL = (16 * PR + 31) / 32;

  const int warp = (int)(threadIdx.x / 32u), lane = (int)(threadIdx.x % 32u);
  const int g = lane / 4, t = lane % 4;
  const long n0 = (long)blockIdx.x * 16;
  const auto load_stage = [&](int s) {
    const long c = (long)s * {{KS}} + warp;
    if (c < {{NCH}}) {
      unsigned short *dst = (unsigned short *)(ring + ((s % {{S}}) * {{KS}} + warp) * 16 * {{RW}});
#pragma unroll
      for (int i = 0; i < PL; i++) {
        const int p = lane + 32 * i, r = p / PR, o = p % PR * 8; /* o: 16-bit units */
        const long n = n0 + r < {{N}} ? n0 + r : {{N}} - 1;
        if ((16 * PR) % 32 == 0 || p < 16 * PR)
          kg_async_copy<8>(dst + r * {{RW}} * 2 + o, w, n * ({{RB}}L / 2) + c * ({{CB}} / 2) + o,
                           true);
      }
    }
  };

  /* C element e of this lane is row g + 8 (e / 2), column (x row) 2t + e % 2.
   * B column g is x row g; for g >= M it is row 0 again, without a branch:
   * C's columns are independent and those past M are never stored. */
  float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  const long xrow = (long)(g < M ? g : 0) * {{K}}L;
#pragma unroll
  for (int s = 0; s < {{S}} - 1; s++) {
    if (s < {{NST}})
      load_stage(s);
    kg_async_commit();
  }
  for (int s = 0; s < {{NST}}; s++) {
    kg_async_wait<{{S}} - 2>();
    __syncthreads(); /* stage s is in; every warp is done with stage s - 1 */
    if (s + {{S}} - 1 < {{NST}})
      load_stage(s + {{S}} - 1);
    kg_async_commit();
    const long c = (long)s * {{KS}} + warp;
    if (c < {{NCH}}) { /* the same for the whole warp, as mma.sync needs */
      const unsigned *r0 = ring + ((s % {{S}}) * {{KS}} + warp) * 16 * {{RW}} + g * {{RW}};
      const unsigned *r1 = r0 + 8 * {{RW}};
#pragma unroll
      for (int b = 0; b < 8; b++) {
        const long k0 = c * 256 + b * 32;
        unsigned bx[2][2];
#pragma unroll
        for (int st = 0; st < 2; st++) {
          const kg_vec<{{T}}, 4> v = kg_ldv<4>(x, xrow + k0 + 16 * st + 4 * t);
          bx[st][0] = v.v[0].bits | (unsigned)v.v[2].bits << 16;
          bx[st][1] = v.v[1].bits | (unsigned)v.v[3].bits << 16;
        }
        unsigned a[2][4];
        {{DEC}}<{{BF16}}>(r0, r1, b * {{BB}}, t, a);
        float cc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        kg_mma_16x8x16<{{BF16}}>(cc, a[0], bx[0]);
        kg_mma_16x8x16<{{BF16}}>(cc, a[1], bx[1]);
        const float d0 = kg_f16_bits_to_f32((unsigned short)kg_q_lds_u16(r0, b * {{BB}}));
        const float d1 = kg_f16_bits_to_f32((unsigned short)kg_q_lds_u16(r1, b * {{BB}}));
        acc[0] += d0 * cc[0];
        acc[1] += d0 * cc[1];
        acc[2] += d1 * cc[2];
        acc[3] += d1 * cc[3];
      }
    }
  }

  /* the warps' sums, part[v][e][lane], added in warp order; the ring is
   * free once every warp is past its last stage (no copy is pending) */
  __syncthreads();
  float *part = (float *)ring;
#pragma unroll
  for (int e = 0; e < 4; e++)
    part[(warp * 4 + e) * 32 + lane] = acc[e];
  __syncthreads();
  for (int j = (int)threadIdx.x; j < 16 * {{MMAX}}; j += {{BLOCK}}) {
    const int r = j % 16, m = j / 16;
    const long n = n0 + r;
    if (m < M && n < {{N}}) {
      const int l = r % 8 * 4 + m / 2, e = r / 8 * 2 + m % 2;
      float acc0 = 0.0f;
#pragma unroll
      for (int v = 0; v < {{KS}}; v++)
        acc0 += part[(v * 4 + e) * 32 + l];
      const long idx = m * {{N}}L + n;
{{#each EPI_IN}}      const float a{{I}} = kg_to_f32(kg_ld(e{{I}}, idx{{MOD}}));
{{/each}}      kg_st(y, idx, kg_from_f32<{{OUT_T}}>({{EPI}}));
    }
  }
}
