/* embedding: y[r, :] = table[ids[r] - base, :] for a table [vocab, D] that
 * holds rows base .. base + vocab - 1 (a split model's part: base is the
 * rank's first row, else 0); an id outside them gives a row of zeros. One
 * workgroup per id, VEC elements per access. A row of at most 8 strides
 * (CACHE) is loaded whole before any of it is stored, so a thread has all
 * its loads in flight at once. */
extern "C" __global__ void __launch_bounds__({{BLOCK}})
{{KERNEL}}(KG_GLOBAL(const {{T_T}}) table, KG_GLOBAL(const int) ids, KG_GLOBAL({{T_T}}) y, long vocab, long base) {
  kg_dep_launch();
  kg_dep_wait(); /* early launch: nothing is read before it (common.hip) */
  const long row = blockIdx.x;
  const long id = (long)kg_ld(ids, row) - base;
  const bool in_range = id >= 0 && id < vocab;
  const long src = id * {{D}};
{{#if CACHE}}  kg_vec<{{T_T}}, {{VEC}}> v[{{ITERS}}];
#pragma unroll
  for (int it = 0; it < {{ITERS}}; ++it) {
    const long c = ((long)threadIdx.x + it * {{BLOCK}}) * {{VEC}};
    if (c < {{D}}) {
      if (in_range) {
        v[it] = kg_ldv<{{VEC}}>(table, src + c);
      } else {
#pragma unroll
        for (int k = 0; k < {{VEC}}; ++k)
          v[it].v[k] = kg_from_f32<{{T_T}}>(0.0f);
      }
    }
  }
#pragma unroll
  for (int it = 0; it < {{ITERS}}; ++it) {
    const long c = ((long)threadIdx.x + it * {{BLOCK}}) * {{VEC}};
    if (c < {{D}})
      kg_stv<{{VEC}}>(y, row * {{D}} + c, v[it]);
  }
{{else}}  for (long c = (long)threadIdx.x * {{VEC}}; c < {{D}}; c += {{BLOCK}} * {{VEC}}) {
    kg_vec<{{T_T}}, {{VEC}}> v;
    if (in_range) {
      v = kg_ldv<{{VEC}}>(table, src + c);
    } else {
#pragma unroll
      for (int k = 0; k < {{VEC}}; ++k)
        v.v[k] = kg_from_f32<{{T_T}}>(0.0f);
    }
    kg_stv<{{VEC}}>(y, row * {{D}} + c, v);
  }
{{/if}}}
