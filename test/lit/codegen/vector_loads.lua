-- streaming kernels issue 128-bit global loads and stores when the row allows.
-- RUN: %kgen --arch gfx1100 --emit=asm %s -o - | FileCheck %s --check-prefix=W32
-- RUN: %kgen --arch gfx942 --emit=asm %s -o - | FileCheck %s --check-prefix=W64
-- W32-LABEL: vector_loads_silu_mul_{{[0-9a-f]+}}:
-- W32: global_load_b128
-- W32: global_store_b128
-- W32-LABEL: vector_loads_rmsnorm_{{[0-9a-f]+}}:
-- W32: global_load_b128
-- W64-LABEL: vector_loads_silu_mul_{{[0-9a-f]+}}:
-- W64: global_load_dwordx4
-- W64: global_store_dwordx4
-- W64-LABEL: vector_loads_rmsnorm_{{[0-9a-f]+}}:
-- W64: global_load_dwordx4
local T = sym("T", 8)
local g = input("g", bf16, { T, 4096 })
local u = input("u", bf16, { T, 4096 })
output("y", silu(g) * u)
output("n", rmsnorm(g))
