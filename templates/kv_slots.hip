/* kv_slots: each token's slot in a paged KV pool (lua/ops/kv.lua): slot[t] =
 * blocks[s, p / BS] BS + p % BS for its sequence s = seq[t] and position
 * p = pos[t]; -1, a slot kv_append skips, where s is outside [0, nseq), p is
 * negative or past the block table's MAXB blocks, the block is negative or
 * the slot past 2^31 - 1. A thread per token. */
extern "C" __global__ void __launch_bounds__({{BLOCK}})
{{KERNEL}}(KG_GLOBAL(const int) pos, KG_GLOBAL(const int) seq, KG_GLOBAL(const int) blocks, KG_GLOBAL(int) slot, long tokens, long nseq) {
  kg_dep_launch();
  kg_dep_wait(); /* early launch: nothing is read before it (common.hip) */
  const long t = (long)blockIdx.x * {{BLOCK}} + (long)threadIdx.x;
  if (t >= tokens)
    return;
  const int s = kg_ld(seq, t), p = kg_ld(pos, t);
  long r = -1;
  if (s >= 0 && s < nseq && p >= 0 && p / {{BS}} < {{MAXB}}) {
    const long b = kg_ld(blocks, (long)s * {{MAXB}} + p / {{BS}});
    if (b >= 0 && b * {{BS}} + p % {{BS}} <= 2147483647L)
      r = b * {{BS}} + p % {{BS}};
  }
  kg_st(slot, t, (int)r);
}
