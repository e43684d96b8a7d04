/* map: out[i] = EXPR(a0[i], a1[i], ...) over n elements, computed in float.
 * Each thread handles VEC consecutive elements with one vector load per input
 * (128-bit where the dtype and n allow); the last thread takes the tail. An
 * operand broadcast over leading dims (numel MOD) is read at i % MOD: with
 * vector loads when MOD is a multiple of VEC, else element by element. */
extern "C" __global__ void __launch_bounds__({{BLOCK}})
{{KERNEL}}({{#each IN}}KG_GLOBAL(const {{T}}) in{{I}}, {{/each}}KG_GLOBAL({{OUT_T}}) out, long n) {
  const long i = ((long)blockIdx.x * {{BLOCK}} + threadIdx.x) * {{VEC}};
  if (i + {{VEC}} <= n) {
{{#each IN}}{{#if BVEC}}    const kg_vec<{{T}}, {{VEC}}> v{{I}} = kg_ldv<{{VEC}}>(in{{I}}, {{VIDX}});
{{/if}}{{#if BSCALAR}}    kg_vec<{{T}}, {{VEC}}> v{{I}};
#pragma unroll
    for (int k = 0; k < {{VEC}}; ++k)
      v{{I}}.v[k] = kg_ld(in{{I}}, (i + k) % {{MOD}});
{{/if}}{{/each}}    kg_vec<{{OUT_T}}, {{VEC}}> r;
#pragma unroll
    for (int k = 0; k < {{VEC}}; ++k) {
{{#each IN}}      const float a{{I}} = kg_to_f32(v{{I}}.v[k]);
{{/each}}      r.v[k] = kg_from_f32<{{OUT_T}}>({{EXPR}});
    }
    kg_stv<{{VEC}}>(out, i, r);
  } else {
    for (long j = i; j < n; ++j) {
{{#each IN}}      const float a{{I}} = kg_to_f32(kg_ld(in{{I}}, {{TIDX}}));
{{/each}}      kg_st(out, j, kg_from_f32<{{OUT_T}}>({{EXPR}}));
    }
  }
}
