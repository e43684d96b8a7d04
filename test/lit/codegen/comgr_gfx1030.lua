-- gfx1030 (RDNA2, wave32) through comgr as well.
-- RUN: %kgen --compiler=comgr --arch gfx1030 --emit=meta %s -o - | FileCheck %s
-- CHECK: .name: comgr_gfx1030_rmsnorm_{{[0-9a-f]+}}
-- CHECK: .private_segment_fixed_size: 0
-- CHECK: .wavefront_size: 32
local x = input("x", f16, { 2, 512 })
output("n", rmsnorm(x))
