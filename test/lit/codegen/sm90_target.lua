-- sm_80 and sm_90 are targets like any other (data files, warp 32); their
-- source is the same templates over prelude_cuda.hip, and expanding it needs
-- no CUDA: --emit=hip stops before NVRTC.
-- RUN: %kgen --list-targets | FileCheck %s --check-prefix=LIST
-- RUN: env KGEN_NVRTC=/nonexistent/libnvrtc.so %kgen --arch sm_90 --emit=hip %s -o - | FileCheck %s
-- LIST: sm_80 wave32 Ampere, A100
-- LIST: sm_90 wave32 Hopper, H100
-- CHECK: /* model sm90_target, target sm_90 (cuda, wave 32) */
-- CHECK: /* ---- templates/prelude_cuda.hip ---- */
-- CHECK: KG_INLINE unsigned kg_shfl_u32(unsigned v, unsigned src) {
-- CHECK-NEXT: return __shfl_sync(0xffffffffu, v, (int)src);
-- CHECK: /* ---- templates/common.hip ---- */
-- CHECK: kg_block_sum<32, {{[0-9]+}}>(s)
local x = input("x", f16, { 2, 1024 })
output("p", softmax(x))
