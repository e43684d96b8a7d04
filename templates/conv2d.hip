/* conv2d: a 2-D convolution as an implicit GEMM per group (lua/ops/conv.lua).
 * x [NB, C, IH, IW] (NCHW) or [NB, IH, IW, C] (NHWC), w [COUT, CG, KH, KW] or
 * [COUT, KH, KW, CG] (CG = C / groups), y [NB, COUT, OH, OW] or
 * [NB, OH, OW, COUT]. For group g: y[m, co] = sum_k A[m, k] w[g COG + co, k]
 * with rows m = (n, oh, ow) (M = NB OH OW, given at run time), columns co <
 * COG = COUT / groups and k = (c, kh, kw) (NCHW) or (kh, kw, c) (NHWC): the
 * order of a w row in either layout, so the B tile is a plain copy of w rows
 * (as gemm.hip's [N, K] path, VEC elements per copy, VEC dividing K), while
 * A[m, k] = x[n, g CG + c, oh SH - PH + kh DH, ow SW - PW + kw DW] is gathered
 * element by element (zero outside the image: the padding).
 * The rest is gemm.hip's structure: one workgroup per BM x BN tile of a
 * group's y; workgroup i takes tile row i / REPEAT and, of i % REPEAT, group
 * / TILES_N and tile column % TILES_N; WM x WN waves of FM x FN fragments of
 * FRAG (templates/lib_mma.hip); K in tiles of BK through STAGES LDS buffers.
 * f32 accumulation; with BIAS, bias[oc] added to the sums; the result is
 * rounded to T once. */
extern "C" __global__ void __launch_bounds__({{BLOCK}})
{{KERNEL}}(KG_GLOBAL(const {{T}}) x, KG_GLOBAL(const {{T}}) w, {{#if BIAS}}KG_GLOBAL(const {{T}}) bias, {{/if}}KG_GLOBAL({{T}}) y, long M) {
  typedef {{FRAG}} F;
  /* the LDS ring: As[STAGES][BM * LD], Bs[STAGES][BN * LD] */
  KG_SHARED_BUFFER(lds, {{SHARED_BYTES}});
  typedef {{T}} a_tile[{{BM}} * {{LD}}];
  typedef {{T}} b_tile[{{BN}} * {{LD}}];
  a_tile *const As = (a_tile *)lds;
  b_tile *const Bs = (b_tile *)(As + {{STAGES}});
  const long bid = (long)blockIdx.x;
  const long rest = bid % {{REPEAT}};
  const int group = (int)(rest / {{TILES_N}});
  const long m0 = bid / {{REPEAT}} * {{BM}}, n0 = rest % {{TILES_N}} * {{BN}};
  const int tid = (int)threadIdx.x, wave = tid / {{WAVE}};
  const int wm = wave / {{WN}} * ({{BM}} / {{WM}}), wn = wave % {{WN}} * ({{BN}} / {{WN}});
  const long woff = (long)group * {{COG}}L * {{K}}L;
  const int KT = ({{K}} + {{BK}} - 1) / {{BK}};

  /* tile kt of the gathered x and of w into stage s */
  auto load_tile = [&](int s, int kt) {
    const long k0 = (long)kt * {{BK}};
#pragma unroll
    for (int u = tid; u < {{BM}} * {{BK}}; u += {{BLOCK}}) {
      const int r = u / {{BK}}, c = u % {{BK}};
      const long m = m0 + r;
      const int k = (int)k0 + c;
      const long n = m / ({{OH}} * {{OW}});
      const int pix = (int)(m % ({{OH}} * {{OW}}));
{{#if NHWC}}
      const int kh = k / ({{KW}} * {{CG}}), kw = k % ({{KW}} * {{CG}}) / {{CG}},
                ci = k % {{CG}};
{{else}}
      const int ci = k / ({{KH}} * {{KW}}), kh = k % ({{KH}} * {{KW}}) / {{KW}},
                kw = k % {{KW}};
{{/if}}
      const int ih = pix / {{OW}} * {{SH}} - {{PH}} + kh * {{DH}};
      const int iw = pix % {{OW}} * {{SW}} - {{PW}} + kw * {{DW}};
      const bool ok = m < M && k < {{K}} && ih >= 0 && ih < {{IH}} && iw >= 0 && iw < {{IW}};
      {{T}} v = kg_from_f32<{{T}}>(0.0f);
      if (ok) {
{{#if NHWC}}
        v = kg_ld(x, ((n * {{IH}} + ih) * {{IW}} + iw) * {{C}}L + group * {{CG}} + ci);
{{else}}
        v = kg_ld(x, ((n * {{C}} + group * {{CG}} + ci) * {{IH}} + ih) * {{IW}}L + iw);
{{/if}}
      }
      As[s][r * {{LD}} + c] = v;
    }
#pragma unroll
    for (int u = tid; u < {{BN}} * {{BK}} / {{VEC}}; u += {{BLOCK}}) {
      const int r = u / ({{BK}} / {{VEC}}), c = u % ({{BK}} / {{VEC}}) * {{VEC}};
      const bool ok = n0 + r < {{COG}} && k0 + c < {{K}};
      kg_tile_copy<{{VEC}}>(&Bs[s][r * {{LD}} + c], w, woff + (n0 + r) * {{K}}L + k0 + c, ok);
    }
  };

  typename F::acc_t acc[{{FM}}][{{FN}}];
#pragma unroll
  for (int i = 0; i < {{FM}}; i++)
#pragma unroll
    for (int j = 0; j < {{FN}}; j++)
#pragma unroll
      for (int r = 0; r < F::ACC; r++)
        acc[i][j][r] = 0.0f;

#pragma unroll
  for (int s = 0; s < {{STAGES}} - 1; s++) {
    if (s < KT)
      load_tile(s, s);
    kg_async_commit();
  }
  for (int kt = 0; kt < KT; kt++) {
    kg_async_wait<{{STAGES}} - 2>();
    __syncthreads(); /* tile kt is in; every wave is done with tile kt - 1 */
    if (kt + {{STAGES}} - 1 < KT)
      load_tile((kt + {{STAGES}} - 1) % {{STAGES}}, kt + {{STAGES}} - 1);
    kg_async_commit();
    const {{T}} *as = As[kt % {{STAGES}}] + wm * {{LD}};
    const {{T}} *bs = Bs[kt % {{STAGES}}] + wn * {{LD}};
#pragma unroll
    for (int kk = 0; kk < {{BK}}; kk += F::K) {
      typename F::a_t a[{{FM}}];
#pragma unroll
      for (int i = 0; i < {{FM}}; i++)
        F::load_a(a[i], as, i * F::M, kk);
#pragma unroll
      for (int j = 0; j < {{FN}}; j++) {
        typename F::b_t b;
        F::load_b(b, bs, j * F::N, kk);
#pragma unroll
        for (int i = 0; i < {{FM}}; i++)
          F::mma(acc[i][j], a[i], b);
      }
    }
  }

  /* each lane stores the elements its accumulators hold */
#pragma unroll
  for (int i = 0; i < {{FM}}; i++)
#pragma unroll
    for (int j = 0; j < {{FN}}; j++)
#pragma unroll
      for (int r = 0; r < F::ACC; r++) {
        const long m = m0 + wm + i * F::M + F::row(r), co = n0 + wn + j * F::N + F::col(r);
        if (m < M && co < {{COG}}) {
          const long oc = group * {{COG}}L + co;
          const float v = acc[i][j][r]{{#if BIAS}} + kg_to_f32(kg_ld(bias, oc)){{/if}};
{{#if NHWC}}
          kg_st(y, m * {{COUT}}L + oc, kg_from_f32<{{T}}>(v));
{{else}}
          const long n = m / ({{OH}} * {{OW}}), pix = m % ({{OH}} * {{OW}});
          kg_st(y, (n * {{COUT}} + oc) * ({{OH}} * {{OW}}L) + pix, kg_from_f32<{{T}}>(v));
{{/if}}
        }
      }
}
