/* groupnorm: x is [N, C, spatial...] (NCHW); channels are split into GROUPS
 * groups of CPG channels, and each (n, group), CPG * HW contiguous elements
 * (COLS), is normalised over itself: y = (x - mean) * rsqrt(var + EPS) *
 * w[ch] + b[ch], ch = group * CPG + (column / HW); weight and bias optional.
 * One workgroup per (n, group); VEC elements per access. Three passes: the
 * mean, the variance about it (kg_row_stats), the output. */
extern "C" __global__ void __launch_bounds__({{BLOCK}})
{{KERNEL}}(KG_GLOBAL(const {{X_T}}) x, {{#if W_T}}KG_GLOBAL(const {{W_T}}) w, {{/if}}{{#if B_T}}KG_GLOBAL(const {{B_T}}) b, {{/if}}KG_GLOBAL({{Y_T}}) y) {
  const long base = (long)blockIdx.x * {{COLS}};
  float s = 0.0f;
  for (long c = (long)threadIdx.x * {{VEC}}; c < {{COLS}}; c += {{BLOCK}} * {{VEC}}) {
    const kg_vec<{{X_T}}, {{VEC}}> v = kg_ldv<{{VEC}}>(x, base + c);
#pragma unroll
    for (int k = 0; k < {{VEC}}; ++k)
      s += kg_to_f32(v.v[k]);
  }
  const float mean = kg_block_sum<{{WAVE}}, {{BLOCK}}>(s) * (1.0f / {{COLS}});
  float shift, rstd;
  kg_row_stats<{{WAVE}}, {{BLOCK}}, {{VEC}}, {{COLS}}>(x, base, mean, {{EPS}}, shift, rstd);
  const long ch0 = (long)(blockIdx.x % {{GROUPS}}) * {{CPG}};
  for (long c = (long)threadIdx.x * {{VEC}}; c < {{COLS}}; c += {{BLOCK}} * {{VEC}}) {
    const kg_vec<{{X_T}}, {{VEC}}> v = kg_ldv<{{VEC}}>(x, base + c);
    kg_vec<{{Y_T}}, {{VEC}}> o;
#pragma unroll
    for (int k = 0; k < {{VEC}}; ++k) {
      const long ch = ch0 + (c + k) / {{HW}};
      (void)ch;
      o.v[k] = kg_from_f32<{{Y_T}}>((kg_to_f32(v.v[k]) - mean - shift) * rstd{{#if W_T}} * kg_to_f32(kg_ld(w, ch)){{/if}}{{#if B_T}} + kg_to_f32(kg_ld(b, ch)){{/if}});
    }
    kg_stv<{{VEC}}>(y, base + c, o);
  }
}
