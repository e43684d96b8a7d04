-- sm_90 (NVRTC): --emit=asm is PTX. Streaming kernels use 128-bit global loads
-- and stores; row kernels reduce with warp shuffles and synchronise with
-- bar.sync; nothing goes to local memory.
-- REQUIRES: nvrtc
-- RUN: %kgen --arch sm_90 --emit=asm %s -o - | FileCheck %s
-- RUN: %kgen --arch sm_80 --emit=asm %s -o - | FileCheck %s --check-prefix=SM80
-- CHECK: .target sm_90
-- CHECK: .address_size 64
-- CHECK-LABEL: .entry sm90_ptx_silu_mul_{{[0-9a-f]+}}(
-- CHECK: ld.global{{(.nc)?}}.v4.u32
-- CHECK: st.global.v4.u32
-- CHECK-LABEL: .entry sm90_ptx_rmsnorm_{{[0-9a-f]+}}(
-- CHECK: ld.global{{(.nc)?}}.v4.u32
-- CHECK: shfl.sync.idx.b32
-- CHECK: bar.sync 0;
-- CHECK: st.global.v4.u32
-- CHECK-NOT: {{ld|st}}.local
-- SM80: .target sm_80
local T = sym("T", 8)
local g = input("g", bf16, { T, 4096 })
local u = input("u", bf16, { T, 4096 })
output("y", silu(g) * u)
output("n", rmsnorm(g))
