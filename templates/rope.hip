/* rope: rotary position embedding of x [T, heads, D] at positions [T]. Pair
 * (a, b) becomes (a cos - b sin, b cos + a sin) at angle pos * inv_freq_i;
 * HALF_LAYOUT pairs (i, i + HALF), INTERLEAVED pairs (2i, 2i + 1); dims past
 * ROT are copied. One workgroup per token: the HALF cos/sin values go to LDS
 * once, then every head of the token is rotated, VEC elements per access.
 * {{KERNEL}}_rev holds inv_freq_i / (2 pi) as three floats of 12 significant
 * bits (lua/ops/rope.lua explains the exact reduction kg_rope_angle does). */
__device__ static const float {{KERNEL}}_rev[{{HALF}} * 3] = {
    {{REV}}};

extern "C" __global__ void __launch_bounds__({{BLOCK}})
{{KERNEL}}(KG_GLOBAL(const {{X_T}}) x, KG_GLOBAL(const int) positions, KG_GLOBAL({{X_T}}) y, long heads) {
  kg_dep_launch();
  kg_dep_wait(); /* early launch: nothing is read before it (common.hip) */
  __shared__ float cos_s[{{HALF}}];
  __shared__ float sin_s[{{HALF}}];
  const long t = blockIdx.x;
  const int pos = kg_ld(positions, t);
  for (int i = threadIdx.x; i < {{HALF}}; i += {{BLOCK}}) {
    const float a = kg_rope_angle(pos, {{KERNEL}}_rev[3 * i], {{KERNEL}}_rev[3 * i + 1],
                                  {{KERNEL}}_rev[3 * i + 2]);
    cos_s[i] = kg_cos(a);
    sin_s[i] = kg_sin(a);
  }
  __syncthreads();
  const long base = t * heads * {{D}};
  for (long w = threadIdx.x; w < heads * {{ROT_ITEMS}}; w += {{BLOCK}}) {
    const long h = w / {{ROT_ITEMS}};
    const int j = (int)(w - h * {{ROT_ITEMS}}) * {{VEC}};
    const long row = base + h * {{D}};
{{#if HALF_LAYOUT}}    const kg_vec<{{X_T}}, {{VEC}}> lo = kg_ldv<{{VEC}}>(x, row + j);
    const kg_vec<{{X_T}}, {{VEC}}> hi = kg_ldv<{{VEC}}>(x, row + {{HALF}} + j);
    kg_vec<{{X_T}}, {{VEC}}> rlo, rhi;
#pragma unroll
    for (int k = 0; k < {{VEC}}; ++k) {
      const float a = kg_to_f32(lo.v[k]), b = kg_to_f32(hi.v[k]);
      const float c = cos_s[j + k], s = sin_s[j + k];
      rlo.v[k] = kg_from_f32<{{X_T}}>(a * c - b * s);
      rhi.v[k] = kg_from_f32<{{X_T}}>(b * c + a * s);
    }
    kg_stv<{{VEC}}>(y, row + j, rlo);
    kg_stv<{{VEC}}>(y, row + {{HALF}} + j, rhi);
{{/if}}{{#if INTERLEAVED}}    const kg_vec<{{X_T}}, {{VEC}}> v = kg_ldv<{{VEC}}>(x, row + j);
    kg_vec<{{X_T}}, {{VEC}}> r;
#pragma unroll
    for (int k = 0; k < {{VEC}}; k += 2) {
      const float a = kg_to_f32(v.v[k]), b = kg_to_f32(v.v[k + 1]);
      const float c = cos_s[(j + k) / 2], s = sin_s[(j + k) / 2];
      r.v[k] = kg_from_f32<{{X_T}}>(a * c - b * s);
      r.v[k + 1] = kg_from_f32<{{X_T}}>(b * c + a * s);
    }
    kg_stv<{{VEC}}>(y, row + j, r);
{{/if}}  }
{{#if PASS}}  for (long w = threadIdx.x; w < heads * {{PASS_ITEMS}}; w += {{BLOCK}}) {
    const long h = w / {{PASS_ITEMS}};
    const long i = base + h * {{D}} + {{ROT}} + (w - h * {{PASS_ITEMS}}) * {{VEC}};
    kg_stv<{{VEC}}>(y, i, kg_ldv<{{VEC}}>(x, i));
  }
{{/if}}}
