/* embedding_q: y[r, :] = row ids[r] - base of a table [vocab, D] in a GGUF
 * block format, dequantized; the table holds rows base .. base + vocab - 1
 * (a split model's part: base is the rank's first row, else 0), an id
 * outside them gives a row of zeros. Row n
 * of the table is its RB bytes of blocks (the table comes as 16-bit units;
 * offsets are bytes). One workgroup per id: thread t decodes the groups of
 * 32 t, t + BLOCK, ... ({{DEQ}}: weight e is sc[e / 16] q[e] - mn, the
 * exact products of ggml's dequantization) and stores each group's 32
 * values, rounded to Y_T, in vectors of 16 bytes (kg_opaque: a weight of -0
 * stays -0 in f16, as ggml's is). */
extern "C" __global__ void __launch_bounds__({{BLOCK}})
{{KERNEL}}(KG_GLOBAL(const unsigned short) table, KG_GLOBAL(const int) ids, KG_GLOBAL({{Y_T}}) y, long vocab, long base) {
  kg_dep_launch();
  kg_dep_wait(); /* early launch: nothing is read before it (common.hip) */
  constexpr int V = 16 / (int)sizeof({{Y_T}});
  const long row = blockIdx.x;
  const long id = (long)kg_ld(ids, row) - base;
  const bool in_range = id >= 0 && id < vocab;
  for (int g = (int)threadIdx.x; g < {{D}} / 32; g += {{BLOCK}}) {
    float q[32], sc[2], mn = 0.0f;
    if (in_range) {
      {{DEQ}}(table, id * {{RB}}L, g, q, sc, &mn);
    } else {
#pragma unroll
      for (int e = 0; e < 32; ++e)
        q[e] = 0.0f;
      sc[0] = sc[1] = 1.0f;
    }
#pragma unroll
    for (int s = 0; s < 32 / V; ++s) {
      kg_vec<{{Y_T}}, V> v;
#pragma unroll
      for (int e = 0; e < V; ++e)
        v.v[e] = kg_from_f32<{{Y_T}}>(kg_opaque(sc[(s * V + e) >> 4] * q[s * V + e] - mn));
      kg_stv<V>(y, row * {{D}}L + g * 32 + s * V, v);
    }
  }
}
