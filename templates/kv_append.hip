/* kv_append: cache[layer, h, pos[t], :] = new[t, h, :], in place, for a cache
 * [L, KVH, SLOTS, D]. One workgroup per (t, h) row of new. A position outside
 * [0, SLOTS) is skipped; when a later token has the same position, this one
 * is skipped too (the last token wins, whatever the workgroup order). */
extern "C" __global__ void __launch_bounds__({{BLOCK}})
{{KERNEL}}(KG_GLOBAL({{C_T}}) cache, KG_GLOBAL(const {{N_T}}) nw, KG_GLOBAL(const int) positions, long tokens, long layer) {
  kg_dep_launch();
  kg_dep_wait(); /* early launch: nothing is read before it (common.hip) */
  const long row = blockIdx.x;
  const long t = row / {{KVH}};
  const long h = row - t * {{KVH}};
  const int pos = kg_ld(positions, t);
  if (pos < 0 || pos >= {{SLOTS}})
    return; /* the same for the whole workgroup */
  float later = 0.0f;
  for (long u = t + 1 + threadIdx.x; u < tokens; u += {{BLOCK}})
    later = kg_ld(positions, u) == pos ? 1.0f : later;
  if (kg_block_max<{{WAVE}}, {{BLOCK}}>(later) > 0.0f)
    return;
  const long src = row * {{D}};
  const long dst = ((layer * {{KVH}} + h) * {{SLOTS}} + pos) * {{D}};
  for (long c = (long)threadIdx.x * {{VEC}}; c < {{D}}; c += {{BLOCK}} * {{VEC}}) {
    const kg_vec<{{N_T}}, {{VEC}}> v = kg_ldv<{{VEC}}>(nw, src + c);
    kg_vec<{{C_T}}, {{VEC}}> r;
#pragma unroll
    for (int k = 0; k < {{VEC}}; ++k)
      r.v[k] = kg_from_f32<{{C_T}}>(kg_to_f32(v.v[k]));
    kg_stv<{{VEC}}>(cache, dst + c, r);
  }
}
