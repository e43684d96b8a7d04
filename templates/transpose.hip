/* transpose: x [batch, R, C] -> y [batch, C, R], a TS x TS tile a
 * workgroup through LDS (TS + 1 columns: a column of the tile read by the
 * waves is spread over the banks). Workgroup b * TILES + t: matrix b, tile
 * t of its (R / TS) x TC tiles, row-major. BLOCK threads: TS columns by
 * BLOCK / TS rows; reads and writes both run along rows of TS elements. */
extern "C" __global__ void __launch_bounds__({{BLOCK}})
{{KERNEL}}(KG_GLOBAL(const {{X_T}}) x, KG_GLOBAL({{X_T}}) y) {
  __shared__ {{X_T}} tile[{{TS}}][{{TS}} + 1];
  const long bid = (long)blockIdx.x;
  const long base = bid / {{TILES}} * ({{R}}L * {{C}}L);
  const int t = (int)(bid % {{TILES}});
  const int r0 = t / {{TC}} * {{TS}}, c0 = t % {{TC}} * {{TS}};
  const int tx = (int)threadIdx.x % {{TS}}, ty = (int)threadIdx.x / {{TS}};
  for (int i = ty; i < {{TS}}; i += {{BLOCK}} / {{TS}})
    if (r0 + i < {{R}} && c0 + tx < {{C}})
      tile[i][tx] = kg_ld(x, base + (long)(r0 + i) * {{C}} + c0 + tx);
  __syncthreads();
  for (int i = ty; i < {{TS}}; i += {{BLOCK}} / {{TS}})
    if (c0 + i < {{C}} && r0 + tx < {{R}})
      kg_st(y, base + (long)(c0 + i) * {{R}} + r0 + tx, tile[tx][i]);
}
