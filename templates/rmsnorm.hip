/* rmsnorm: y[r, c] = x[r, c] * rsqrt(mean_c(x[r, c]^2) + EPS) * w[c].
 * With a residual r (R_T): h = x + r rounded to x's dtype is stored as the
 * second result and normalised in place of x.
 * One workgroup per row of COLS elements; VEC elements per access; the sum of
 * squares is reduced across the workgroup (waves of WAVE lanes). A row of at
 * most 8 strides (CACHE) stays in registers between the two passes, so it is
 * read from memory once; a longer one is read again (h, with a residual). */
extern "C" __global__ void __launch_bounds__({{BLOCK}})
{{KERNEL}}(KG_GLOBAL(const {{X_T}}) x, {{#if R_T}}KG_GLOBAL(const {{R_T}}) r, {{/if}}{{#if W_T}}KG_GLOBAL(const {{W_T}}) w, {{/if}}KG_GLOBAL({{Y_T}}) y{{#if R_T}}, KG_GLOBAL({{X_T}}) h{{/if}}) {
  kg_dep_launch();
  kg_dep_wait(); /* early launch: nothing is read before it (common.hip) */
  const long base = (long)blockIdx.x * {{COLS}};
  float ss = 0.0f;
{{#if CACHE}}  kg_vec<{{X_T}}, {{VEC}}> row[{{ITERS}}];
#pragma unroll
  for (int it = 0; it < {{ITERS}}; ++it) {
    const long c = ((long)threadIdx.x + it * {{BLOCK}}) * {{VEC}};
    if (c < {{COLS}}) {
{{#if R_T}}      row[it] = kg_residual_add<{{VEC}}, {{X_T}}, {{R_T}}>(x, r, h, base + c);
{{else}}      row[it] = kg_ldv<{{VEC}}>(x, base + c);
{{/if}}#pragma unroll
      for (int k = 0; k < {{VEC}}; ++k) {
        const float f = kg_to_f32(row[it].v[k]);
        ss += f * f;
      }
    }
  }
{{else}}  for (long c = (long)threadIdx.x * {{VEC}}; c < {{COLS}}; c += {{BLOCK}} * {{VEC}}) {
{{#if R_T}}    const kg_vec<{{X_T}}, {{VEC}}> v = kg_residual_add<{{VEC}}, {{X_T}}, {{R_T}}>(x, r, h, base + c);
{{else}}    const kg_vec<{{X_T}}, {{VEC}}> v = kg_ldv<{{VEC}}>(x, base + c);
{{/if}}#pragma unroll
    for (int k = 0; k < {{VEC}}; ++k) {
      const float f = kg_to_f32(v.v[k]);
      ss += f * f;
    }
  }
{{/if}}  ss = kg_block_sum<{{WAVE}}, {{BLOCK}}>(ss);
  const float scale = kg_rsqrt(ss * (1.0f / {{COLS}}) + {{EPS}});
{{#if CACHE}}#pragma unroll
  for (int it = 0; it < {{ITERS}}; ++it) {
    const long c = ((long)threadIdx.x + it * {{BLOCK}}) * {{VEC}};
    if (c < {{COLS}}) {
      const kg_vec<{{X_T}}, {{VEC}}> v = row[it];
{{else}}  for (long c = (long)threadIdx.x * {{VEC}}; c < {{COLS}}; c += {{BLOCK}} * {{VEC}}) {
    {
      const kg_vec<{{X_T}}, {{VEC}}> v = kg_ldv<{{VEC}}>({{SRC}}, base + c);
{{/if}}{{#if W_T}}      const kg_vec<{{W_T}}, {{VEC}}> g = kg_ldv<{{VEC}}>(w, c);
{{/if}}      kg_vec<{{Y_T}}, {{VEC}}> o;
#pragma unroll
      for (int k = 0; k < {{VEC}}; ++k)
        o.v[k] = kg_from_f32<{{Y_T}}>(kg_to_f32(v.v[k]) * scale{{#if W_T}} * kg_to_f32(g.v[k]){{/if}});
      kg_stv<{{VEC}}>(y, base + c, o);
    }
  }
}
