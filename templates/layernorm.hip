/* layernorm: y[r, c] = (x[r, c] - mean) * rsqrt(var + EPS) * w[c] + b[c], the
 * mean and (biased) variance over the row; weight and bias optional.
 * With a residual r (R_T): h = x + r rounded to x's dtype is stored as the
 * second result and normalised in place of x (later passes read h back).
 * One workgroup per row of COLS elements; VEC elements per access. Three
 * passes over the row: the mean, the variance about it (kg_row_stats), the
 * output. */
extern "C" __global__ void __launch_bounds__({{BLOCK}})
{{KERNEL}}(KG_GLOBAL(const {{X_T}}) x, {{#if R_T}}KG_GLOBAL(const {{R_T}}) r, {{/if}}{{#if W_T}}KG_GLOBAL(const {{W_T}}) w, {{/if}}{{#if B_T}}KG_GLOBAL(const {{B_T}}) b, {{/if}}KG_GLOBAL({{Y_T}}) y{{#if R_T}}, KG_GLOBAL({{X_T}}) h{{/if}}) {
  kg_dep_launch();
  kg_dep_wait(); /* early launch: nothing is read before it (common.hip) */
  const long base = (long)blockIdx.x * {{COLS}};
  float s = 0.0f;
  for (long c = (long)threadIdx.x * {{VEC}}; c < {{COLS}}; c += {{BLOCK}} * {{VEC}}) {
{{#if R_T}}    const kg_vec<{{X_T}}, {{VEC}}> v = kg_residual_add<{{VEC}}, {{X_T}}, {{R_T}}>(x, r, h, base + c);
{{else}}    const kg_vec<{{X_T}}, {{VEC}}> v = kg_ldv<{{VEC}}>(x, base + c);
{{/if}}#pragma unroll
    for (int k = 0; k < {{VEC}}; ++k)
      s += kg_to_f32(v.v[k]);
  }
  const float mean = kg_block_sum<{{WAVE}}, {{BLOCK}}>(s) * (1.0f / {{COLS}});
  float shift, rstd;
  kg_row_stats<{{WAVE}}, {{BLOCK}}, {{VEC}}, {{COLS}}>({{SRC}}, base, mean, {{EPS}}, shift, rstd);
  for (long c = (long)threadIdx.x * {{VEC}}; c < {{COLS}}; c += {{BLOCK}} * {{VEC}}) {
    const kg_vec<{{X_T}}, {{VEC}}> v = kg_ldv<{{VEC}}>({{SRC}}, base + c);
{{#if W_T}}    const kg_vec<{{W_T}}, {{VEC}}> g = kg_ldv<{{VEC}}>(w, c);
{{/if}}{{#if B_T}}    const kg_vec<{{B_T}}, {{VEC}}> a = kg_ldv<{{VEC}}>(b, c);
{{/if}}    kg_vec<{{Y_T}}, {{VEC}}> o;
#pragma unroll
    for (int k = 0; k < {{VEC}}; ++k)
      o.v[k] = kg_from_f32<{{Y_T}}>((kg_to_f32(v.v[k]) - mean - shift) * rstd{{#if W_T}} * kg_to_f32(g.v[k]){{/if}}{{#if B_T}} + kg_to_f32(a.v[k]){{/if}});
    kg_stv<{{VEC}}>(y, base + c, o);
  }
}
