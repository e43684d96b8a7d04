/* map: out[i] = EXPR(a0[i], a1[i], ...) over n elements, computed in float.
 * Each thread handles UNROLL vectors of VEC consecutive elements, the vectors
 * BLOCK * VEC apart so that a wave's accesses stay contiguous; all loads are
 * issued before any store (bytes in flight hide memory latency), with one
 * vector load per input and vector (128-bit where the dtype and n allow).
 * Vectors past n fall back to elements. An operand broadcast over leading
 * dims (numel MOD) is read at i % MOD: with vector loads when MOD is a
 * multiple of VEC, else element by element. */
extern "C" __global__ void __launch_bounds__({{BLOCK}})
{{KERNEL}}({{#each IN}}KG_GLOBAL(const {{T}}) in{{I}}, {{/each}}KG_GLOBAL({{OUT_T}}) out, long n) {
  kg_dep_launch();
  kg_dep_wait(); /* early launch: nothing is read before it (common.hip) */
  const long base = ((long)blockIdx.x * {{BLOCK}} * {{UNROLL}} + threadIdx.x) * {{VEC}};
  if (base + ({{UNROLL}} - 1) * {{BLOCK}} * {{VEC}} + {{VEC}} <= n) {
{{#each IN}}    kg_vec<{{T}}, {{VEC}}> v{{I}}[{{UNROLL}}];
{{/each}}#pragma unroll
    for (int u = 0; u < {{UNROLL}}; ++u) {
      const long i = base + (long)u * {{BLOCK}} * {{VEC}};
{{#each IN}}{{#if BVEC}}      v{{I}}[u] = kg_ldv<{{VEC}}>(in{{I}}, {{VIDX}});
{{else}}#pragma unroll
      for (int k = 0; k < {{VEC}}; ++k)
        v{{I}}[u].v[k] = kg_ld(in{{I}}, (i + k) % {{MOD}});
{{/if}}{{/each}}    }
#pragma unroll
    for (int u = 0; u < {{UNROLL}}; ++u) {
      kg_vec<{{OUT_T}}, {{VEC}}> r;
#pragma unroll
      for (int k = 0; k < {{VEC}}; ++k) {
{{#each IN}}        const float a{{I}} = kg_to_f32(v{{I}}[u].v[k]);
{{/each}}        r.v[k] = kg_from_f32<{{OUT_T}}>({{EXPR}});
      }
      kg_stv<{{VEC}}>(out, base + (long)u * {{BLOCK}} * {{VEC}}, r);
    }
  } else {
    for (int u = 0; u < {{UNROLL}}; ++u) {
      const long i = base + (long)u * {{BLOCK}} * {{VEC}};
      for (long j = i; j < i + {{VEC}} && j < n; ++j) {
{{#each IN}}        const float a{{I}} = kg_to_f32(kg_ld(in{{I}}, {{TIDX}}));
{{/each}}        kg_st(out, j, kg_from_f32<{{OUT_T}}>({{EXPR}}));
      }
    }
  }
}
