/* concat: y [outer, IA + IB] = a [outer, IA] beside b [outer, IB] (the dims
 * before the joined one as `outer`; IA and IB a's and b's extents from it
 * on). One thread an element of y's n. */
extern "C" __global__ void __launch_bounds__({{BLOCK}})
{{KERNEL}}(KG_GLOBAL(const {{X_T}}) a, KG_GLOBAL(const {{X_T}}) b, KG_GLOBAL({{X_T}}) y, long n) {
  const long i = (long)blockIdx.x * {{BLOCK}} + threadIdx.x;
  if (i >= n)
    return;
  const long o = i / ({{IA}} + {{IB}}), j = i % ({{IA}} + {{IB}});
  kg_st(y, i, j < {{IA}} ? kg_ld(a, o * {{IA}} + j) : kg_ld(b, o * {{IB}} + j - {{IA}}));
}
