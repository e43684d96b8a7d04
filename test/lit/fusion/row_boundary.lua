-- map ops do not fuse into row kernels (yet): rmsnorm(x + r) is two kernels,
-- and the sum lives in the arena between them.
-- RUN: %kgen --arch gfx1100 --emit=table %s -o - | FileCheck %s
-- CHECK: {"row_boundary_add_{{[0-9a-f]+}}",
-- CHECK: {"row_boundary_rmsnorm_{{[0-9a-f]+}}",
-- CHECK: 8192, 256,
local T = sym("T", 4)
local x = input("x", f16, { T, 1024 })
local r = input("r", f16, { T, 1024 })
output("y", rmsnorm(add(x, r)))
