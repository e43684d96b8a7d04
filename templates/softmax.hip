/* softmax: y[r, c] = exp(f - m) / sum_c exp(f - m), or with LOG, log_softmax:
 * y = f - m - log(sum_c exp(f - m)); f = SCALE x[r, c] (+ mask[r % mask_rows,
 * c], an additive mask broadcast over leading dims), and -inf where CAUSAL
 * masks it: c > i + OFFSET, i = r % tq the query row; m the row max of f.
 * A masked element gives 0 (LOG: -inf), so does every element of a row that is
 * masked whole. One workgroup per row of COLS elements; each thread keeps an
 * online (max, sum) pair, then the pairs are combined across the workgroup
 * (waves of WAVE lanes). */
extern "C" __global__ void __launch_bounds__({{BLOCK}})
{{KERNEL}}(KG_GLOBAL(const {{X_T}}) x, {{#if M_T}}KG_GLOBAL(const {{M_T}}) mask, {{/if}}KG_GLOBAL({{Y_T}}) y{{#if M_T}}, long mask_rows{{/if}}{{#if CAUSAL}}, long tq{{/if}}{{#if OFFSET_ARG}}, long offset{{/if}}) {
  kg_dep_launch();
  kg_dep_wait(); /* early launch: nothing is read before it (common.hip) */
  const long base = (long)blockIdx.x * {{COLS}};
{{#if M_T}}  const long mbase = ((long)blockIdx.x % mask_rows) * {{COLS}};
{{/if}}{{#if CAUSAL}}  const long limit = (long)blockIdx.x % tq + {{OFFSET}}; /* the last column kept */
{{/if}}  float m = -__builtin_inff();
  float s = 0.0f;
  for (long c = (long)threadIdx.x * {{VEC}}; c < {{COLS}}; c += {{BLOCK}} * {{VEC}}) {
    const kg_vec<{{X_T}}, {{VEC}}> v = kg_ldv<{{VEC}}>(x, base + c);
{{#if M_T}}    const kg_vec<{{M_T}}, {{VEC}}> a = kg_ldv<{{VEC}}>(mask, mbase + c);
{{/if}}#pragma unroll
    for (int k = 0; k < {{VEC}}; ++k) {
      const float f = {{#if CAUSAL}}c + k > limit ? -__builtin_inff() : {{/if}}kg_to_f32(v.v[k]) * {{SCALE}}{{#if M_T}} + kg_to_f32(a.v[k]){{/if}};
      if (f > m) {
        s = s * kg_exp(m - f) + 1.0f;
        m = f;
      } else if (f != -__builtin_inff()) {
        s += kg_exp(f - m);
      }
    }
  }
  const float row_max = kg_block_max<{{WAVE}}, {{BLOCK}}>(m);
  s = m == -__builtin_inff() ? 0.0f : s * kg_exp(m - row_max);
  const float sum = kg_block_sum<{{WAVE}}, {{BLOCK}}>(s);
{{#if LOG}}  const float log_sum = kg_log(sum);
{{else}}  const float inv_sum = 1.0f / sum;
{{/if}}  for (long c = (long)threadIdx.x * {{VEC}}; c < {{COLS}}; c += {{BLOCK}} * {{VEC}}) {
    const kg_vec<{{X_T}}, {{VEC}}> v = kg_ldv<{{VEC}}>(x, base + c);
{{#if M_T}}    const kg_vec<{{M_T}}, {{VEC}}> a = kg_ldv<{{VEC}}>(mask, mbase + c);
{{/if}}    kg_vec<{{Y_T}}, {{VEC}}> r;
#pragma unroll
    for (int k = 0; k < {{VEC}}; ++k) {
      const float f = {{#if CAUSAL}}c + k > limit ? -__builtin_inff() : {{/if}}kg_to_f32(v.v[k]) * {{SCALE}}{{#if M_T}} + kg_to_f32(a.v[k]){{/if}};
{{#if LOG}}      r.v[k] = kg_from_f32<{{Y_T}}>(f == -__builtin_inff() ? f : (f - row_max) - log_sum);
{{else}}      r.v[k] = kg_from_f32<{{Y_T}}>(f == -__builtin_inff() ? 0.0f : kg_exp(f - row_max) * inv_sum);
{{/if}}    }
    kg_stv<{{VEC}}>(y, base + c, r);
  }
}
