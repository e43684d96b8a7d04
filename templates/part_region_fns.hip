{{! gemv's REGIONS with REPI, before the kernel: RE_REV (each pair's frequency), whether region r is rotated (ROPE<r>) or cached (KV<r>), and the weight row of column p of region r (the half layout computes pair (i, i + D/2) of each head as its columns 2i, 2i + 1) }}__device__ static const float {{KERNEL}}_rev[{{RE_PAIRS}} * 3] = {
    {{RE_REV}}};
KG_INLINE bool {{KERNEL}}_roped(int r) {
  return r == 0 ? {{#if ROPE0}}true{{else}}false{{/if}} : r == 1 ? {{#if ROPE1}}true{{else}}false{{/if}} : {{#if ROPE2}}true{{else}}false{{/if}};
}
KG_INLINE bool {{KERNEL}}_cached(int r) {
  return r == 0 ? {{#if KV0}}true{{else}}false{{/if}} : r == 1 ? {{#if KV1}}true{{else}}false{{/if}} : {{#if KV2}}true{{else}}false{{/if}};
}
KG_INLINE long {{KERNEL}}_col(int r, long p) {
{{#if RE_HALF}}  if ({{KERNEL}}_roped(r)) {
    const long j = p % {{RE_D}};
    return p - j + (j >> 1) + (j & 1) * {{RE_PAIRS}};
  }
{{else}}  (void)r;
{{/if}}  return p;
}
