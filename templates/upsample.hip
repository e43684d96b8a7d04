/* upsample: 2x upsampling of x [images, H, W] -> y [images, 2H, 2W], NEAREST
 * or BILINEAR (half-pixel centres, align_corners=False: per axis
 * y[2k] = 3/4 x[k] + 1/4 x[k-1], y[2k+1] = 3/4 x[k] + 1/4 x[k+1], indices
 * clamped to the image). One workgroup per output row; each thread reads VEC
 * input columns (and, bilinear, the column either side) and writes 2 VEC
 * outputs as two VEC stores. */
extern "C" __global__ void __launch_bounds__({{BLOCK}})
{{KERNEL}}(KG_GLOBAL(const {{X_T}}) x, KG_GLOBAL({{X_T}}) y) {
  const long row = blockIdx.x;
  const long img = row / (2 * {{H}});
  const int oy = (int)(row - img * (2 * {{H}}));
  const int ky = oy >> 1;
  const long dst = row * (2 * {{W}});
{{#if BILINEAR}}  /* the nearer source row (weight 3/4) and the farther one (1/4) */
  const int fy = (oy & 1) ? (ky + 1 < {{H}} ? ky + 1 : {{H}} - 1) : (ky > 0 ? ky - 1 : 0);
  const long near = (img * {{H}} + ky) * {{W}};
  const long far = (img * {{H}} + fy) * {{W}};
{{else}}  const long src = (img * {{H}} + ky) * {{W}};
{{/if}}  for (long c = (long)threadIdx.x * {{VEC}}; c < {{W}}; c += {{BLOCK}} * {{VEC}}) {
    kg_vec<{{X_T}}, {{VEC}}> lo, hi;
{{#if BILINEAR}}    /* m[k + 1]: column c + k blended vertically, k = -1 .. VEC */
    float m[{{VEC}} + 2];
    const kg_vec<{{X_T}}, {{VEC}}> vn = kg_ldv<{{VEC}}>(x, near + c);
    const kg_vec<{{X_T}}, {{VEC}}> vf = kg_ldv<{{VEC}}>(x, far + c);
#pragma unroll
    for (int k = 0; k < {{VEC}}; ++k)
      m[k + 1] = 0.75f * kg_to_f32(vn.v[k]) + 0.25f * kg_to_f32(vf.v[k]);
    const long left = c > 0 ? c - 1 : 0;
    const long right = c + {{VEC}} < {{W}} ? c + {{VEC}} : {{W}} - 1;
    m[0] = 0.75f * kg_to_f32(kg_ld(x, near + left)) + 0.25f * kg_to_f32(kg_ld(x, far + left));
    m[{{VEC}} + 1] =
        0.75f * kg_to_f32(kg_ld(x, near + right)) + 0.25f * kg_to_f32(kg_ld(x, far + right));
#pragma unroll
    for (int e = 0; e < 2 * {{VEC}}; ++e) {
      const int k = e / 2;
      const float o = 0.75f * m[k + 1] + 0.25f * ((e & 1) ? m[k + 2] : m[k]);
      if (e < {{VEC}})
        lo.v[e] = kg_from_f32<{{X_T}}>(o);
      else
        hi.v[e - {{VEC}}] = kg_from_f32<{{X_T}}>(o);
    }
{{else}}    const kg_vec<{{X_T}}, {{VEC}}> v = kg_ldv<{{VEC}}>(x, src + c);
#pragma unroll
    for (int e = 0; e < {{VEC}}; ++e) {
      lo.v[e] = v.v[e / 2];
      hi.v[e] = v.v[(e + {{VEC}}) / 2];
    }
{{/if}}    kg_stv<{{VEC}}>(y, dst + 2 * c, lo);
    kg_stv<{{VEC}}>(y, dst + 2 * c + {{VEC}}, hi);
  }
}
