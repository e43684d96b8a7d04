-- metadata: every kernel reports the target's wave size and no scratch.
-- RUN: %kgen --arch gfx1100 --emit=meta %s -o - | FileCheck %s --check-prefixes=CHECK,W32
-- RUN: %kgen --arch gfx942 --emit=meta %s -o - | FileCheck %s --check-prefixes=CHECK,W64
-- CHECK: amdhsa.kernels:
-- CHECK: .name: meta_wave_rmsnorm_{{[0-9a-f]+}}
-- CHECK: .private_segment_fixed_size: 0
-- W32: .wavefront_size: 32
-- W64: .wavefront_size: 64
-- CHECK: .name: meta_wave_softmax_{{[0-9a-f]+}}
-- CHECK: .private_segment_fixed_size: 0
-- W32: .wavefront_size: 32
-- W64: .wavefront_size: 64
-- W32: amdhsa.target: amdgcn-amd-amdhsa--gfx1100
-- W64: amdhsa.target: amdgcn-amd-amdhsa--gfx942
local x = input("x", f32, { 2, 512 })
output("a", rmsnorm(x))
output("b", softmax(x))
